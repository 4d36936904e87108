/**
 * webhooks.no-failure-without-attempt: passes the simulator and fails one
 * that records an attempt the control plane's clock step overtook as failed
 * without posting it (fault stepped-clock-fails-unsent), in-process (the
 * clock stepped through the control plane only) and over HTTP (the
 * simulator also delivering in real time).
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../runner.ts';
import { serveSimulator } from '../served-simulator.ts';

const CHECK = 'webhooks.no-failure-without-attempt';

describe('2.1.R5, 6.R2: every failure the platform records is a post the endpoint refused', () => {
  it('passes the simulator in-process and fails it under stepped-clock-fails-unsent, counting failures beyond the refused posts', async () => {
    for (const [fault, outcome] of [[undefined, 'passed'], ['stepped-clock-fails-unsent', 'failed']] as const) {
      const report = await runConformance({ target: 'in-process', checks: [CHECK], runs: 5, seed: 7, ...(fault ? { fault } : {}) });
      const [result] = report.results;
      expect(`${result!.outcome} ${result!.failure?.received ?? result!.reason ?? ''}`.trim(), fault).toMatch(outcome === 'passed' ? /^passed$/ : /^failed GET \/me webhook\.consecutive_failures 0 → 2 .* refused 1 post\(s\) and accepted none/);
      if (fault) expect(result!.failure).toMatchObject({ kind: 'FailureWithoutAttempt', clause: '2.1.R5' });
    }
  });

  it('passes and fails the same over HTTP', async () => {
    for (const [faults, outcome] of [[[], 'passed'], [['stepped-clock-fails-unsent'], 'failed']] as const) {
      const served = await serveSimulator([...faults]);
      try {
        const report = await runConformance({ ...served.partner, ...served.platform, checks: [CHECK] });
        expect(report.results.map((r) => `${r.outcome} ${r.failure?.kind ?? r.reason ?? ''}`.trim()), faults.join()).toEqual([outcome === 'passed' ? 'passed' : 'failed FailureWithoutAttempt']);
      } finally {
        await served.close();
      }
    }
  });
});
