/**
 * Every deliberate fault is caught over HTTP too: a simulator serving the
 * fault, reached as a live deployment with partner credentials, the
 * platform's extra credentials and the control plane, fails the check that
 * names its clause. The whole score is taken against simulators served over
 * loopback from this process (119 separate processes cost two minutes of CPU
 * in tsx start-ups alone); `--mutants --live`'s own way, a simulator process
 * per fault (`npm start -- --fault NAME --enable-faults`), is run for a few.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../simulator/faults.ts';
import type { FaultName } from '../simulator/domain/faults.ts';
import { runLiveMutants, startSimulatorWithFault, type ServeFault } from './live-mutants.ts';
import { serveSimulator } from './served-simulator.ts';

const servedOverLoopback: ServeFault = async (fault) => {
  const served = await serveSimulator([fault]);
  return { options: { ...served.partner, ...served.platform, allowSync: true, allowBurst: true }, stop: () => served.close() };
};

describe('live mutation score', () => {
  it('is 100%: every fault detected by its check over HTTP', async () => {
    const { results, score } = await runLiveMutants(servedOverLoopback, { runs: 5, seed: 3, concurrency: 3 });
    expect(results.map((r) => r.fault)).toEqual([...FAULT_NAMES]);
    expect(results.filter((r) => !r.detected).map((r) => `${r.fault}: ${r.check} did not fail (failed: ${r.failedChecks.join(', ') || 'nothing'}; it was ${r.missed})`)).toEqual([]);
    expect(score).toBe(1);
  });

  it('a simulator process started with the fault (--mutants --live) is caught the same way', async () => {
    const faults: FaultName[] = ['webhook-pair-swapped', 'sequence-reuse', 'covered-count-brand-wide'];
    const { results, score } = await runLiveMutants(startSimulatorWithFault, { runs: 5, seed: 3, faults, concurrency: 3 });
    expect(results.map((r) => `${r.fault} ${r.detected}`)).toEqual(faults.map((f) => `${f} true`));
    expect(score).toBe(1);
  });
});
