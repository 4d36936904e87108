/**
 * visibility.dot-segment-ids: passes the simulator, which routes a `.` or
 * `..` segment as the id it is, and fails one behind a URL-normalising
 * router (fault dot-segments-resolved), in-process and over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../runner.ts';
import { serveSimulator } from '../served-simulator.ts';

const CHECK = 'visibility.dot-segment-ids';

describe('4.2.Q1, 4.3.R2, 4.8.R3: an id . or .. in a path segment is that id', () => {
  it('passes the simulator', async () => {
    const report = await runConformance({ target: 'in-process', checks: [CHECK], runs: 5, seed: 7 });
    expect(report.results.map((r) => `${r.outcome} ${r.failure?.received ?? r.reason ?? ''}`.trim())).toEqual(['passed']);
  });

  it('fails a platform that resolves dot segments before routing, naming the other resource it answered', async () => {
    const report = await runConformance({ target: 'in-process', fault: 'dot-segments-resolved', checks: [CHECK], runs: 5, seed: 7 });
    const [result] = report.results;
    expect(result!.outcome).toBe('failed');
    expect(result!.failure).toMatchObject({ kind: 'OtherResource', clause: '4.2.Q1' });
    expect(result!.failure!.received).toMatch(/^200 for GET \/bookings\/\. .*"pagination"/);
  });

  it('fails it over HTTP too, each probe sent as written', async () => {
    for (const [faults, outcome] of [[[], 'passed'], [['dot-segments-resolved'], 'failed']] as const) {
      const served = await serveSimulator([...faults]);
      try {
        const report = await runConformance({ ...served.partner, ...served.platform, checks: [CHECK] });
        expect(report.results.map((r) => r.outcome), faults.join()).toEqual([outcome]);
        // The failing run's exchanges show the dot segment as it was sent, not resolved (fetch would have sent /bookings/).
        if (outcome === 'failed') expect(report.results[0]!.exchanges.map((e) => e.url).filter((u) => u.endsWith('/bookings/.'))).toHaveLength(1);
      } finally {
        await served.close();
      }
    }
  });
});
