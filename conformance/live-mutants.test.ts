/**
 * Every deliberate fault is caught over HTTP too: a simulator process started
 * with the fault (`npm start -- --fault NAME --enable-faults`), reached as a
 * live deployment with partner credentials, the platform's extra credentials
 * and the control plane, fails the check that names its clause.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../simulator/faults.ts';
import { runLiveMutants, startSimulatorWithFault } from './live-mutants.ts';

describe('live mutation score', () => {
  it('is 100%: every fault detected by its check over HTTP', async () => {
    const { results, score } = await runLiveMutants(startSimulatorWithFault, { runs: 5, seed: 3 });
    expect(results.map((r) => r.fault)).toEqual([...FAULT_NAMES]);
    expect(results.filter((r) => !r.detected).map((r) => `${r.fault}: ${r.check} did not fail (failed: ${r.failedChecks.join(', ') || 'nothing'})`)).toEqual([]);
    expect(score).toBe(1);
  }, 600_000);
});
