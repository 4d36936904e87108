/**
 * The sync checks run live under --allow-sync (§4.7, §8 L10/L11): the
 * simulator serves over HTTP as a live target with a partner's own key. A run
 * spends at most one charged sync, shared by its checks; a second run inside
 * the 24 hours finds the allowance spent and reports the checks that need the
 * 202 not applicable (naming when the window reopens), never failed, while the
 * checks that judge the refusals still run; a deployment whose refused syncs
 * charge the window fails the check that names §4.7.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { seedDemoWorld } from '../simulator/demo-world.ts';
import { API_ROOT } from '../simulator/http/app.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import type { FaultName } from '../simulator/domain/faults.ts';
import { runConformance, type ConformanceOptions } from './runner.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

const SYNC_CHECKS = ['sync.interval-and-cap', 'sync.monthly-chunks', 'sync.normalised-202', 'sync.property-cap', 'sync.validation-before-charge'];

async function liveTarget(faults: FaultName[] = []): Promise<{ options: ConformanceOptions; sim: Simulator; origin: string; integrationId: number }> {
  const sim = createSimulator({ faults });
  const server = sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((ok) => server.once('listening', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: sim.staffToken! });
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    sim.webhooks.stop();
    await sim.store.close();
  });
  const main = fixtures.integrations[0]!;
  return {
    sim,
    origin,
    integrationId: main.id,
    options: { baseUrl: origin + API_ROOT, apiKey: main.apiKey, allowSync: true, properties: main.properties.filter((p) => !p.archived).map((p) => p.doorloom_id), runs: 5, seed: 7 },
  };
}

async function outcomes(options: ConformanceOptions, checks = SYNC_CHECKS): Promise<[string, string, string][]> {
  const report = await runConformance({ ...options, checks });
  expect(report.target.kind).toBe('live');
  return report.results.map((r): [string, string, string] => [r.id, r.outcome, r.failure ? `${r.failure.kind} (${r.failure.clause})` : r.reason ?? r.error ?? '']).sort(([a], [b]) => a.localeCompare(b));
}

/** The simulator's own record of the partner's POST /sync answers, as status and code. */
function syncAnswers(sim: Simulator, integrationId: number): string[] {
  return sim.journal.of(integrationId).filter((e) => e.operation === 'requestSync').map((e) => `${e.status}${e.code ? ` ${e.code}` : ''}`);
}

describe('sync checks against a live target with --allow-sync', () => {
  it('a run spends one charged sync and proves its 202; a second run within 24 hours is not applicable where it needs the 202, never failed', async () => {
    const { options, sim, integrationId } = await liveTarget();
    expect(await outcomes(options)).toEqual(SYNC_CHECKS.map((id) => [id, 'passed', '']));
    // The refusals first (they charge nothing), one accepted sync, then the interval and the cap: 202 once.
    expect(syncAnswers(sim, integrationId)).toEqual([
      '422 PROPERTY_NOT_MAPPED', '422 VALIDATION_FAILED', '422 VALIDATION_FAILED', '422 PROPERTY_NOT_MAPPED', '202',
      '429 SYNC_TOO_SOON', '429 SYNC_TOO_SOON', '429 SYNC_TOO_SOON', '429 SYNC_TOO_SOON', '429 SYNC_TOO_SOON', '429 RATE_LIMITED',
    ]);

    const again = await outcomes(options);
    const byId = Object.fromEntries(again.map(([id, outcome, reason]) => [id, { outcome, reason }]));
    expect(byId['sync.interval-and-cap']).toEqual({ outcome: 'passed', reason: '' });
    // The cap is proven by a refusal, which needs no 202.
    expect(byId['sync.property-cap']).toEqual({ outcome: 'passed', reason: '' });
    for (const id of ['sync.normalised-202', 'sync.validation-before-charge', 'sync.monthly-chunks']) {
      expect(byId[id]!.outcome).toBe('not_applicable');
      expect(byId[id]!.reason).toMatch(/spent before this run .*can run again after \d{4}-\d\d-\d\dT/);
    }
    // The second run charged nothing: its refusals and one capped call, no further 202.
    expect(syncAnswers(sim, integrationId).slice(11)).toEqual(['422 PROPERTY_NOT_MAPPED', '422 VALIDATION_FAILED', '422 VALIDATION_FAILED', '422 PROPERTY_NOT_MAPPED', '429 RATE_LIMITED']);
  });

  it('a window spent before the run (429 SYNC_TOO_SOON) makes the 202 checks not applicable naming when it reopens; the interval and cap are still proven', async () => {
    const { options, origin, sim } = await liveTarget();
    // The partner synced a minute before the run (the minute passes on the simulator's clock, through its staff plane).
    const synced = await fetch(`${options.baseUrl}/sync`, { method: 'POST', headers: { Authorization: `Bearer ${options.apiKey}`, 'Content-Type': 'application/json' }, body: '{}' });
    expect(synced.status).toBe(202);
    const advanced = await fetch(`${origin}/_staff/clock/advance`, { method: 'POST', headers: { Authorization: `Bearer ${sim.staffToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds: 60 }) });
    expect(advanced.status).toBe(200);
    const advancedAt = Date.now();
    const byId = Object.fromEntries((await outcomes(options)).map(([id, outcome, reason]) => [id, { outcome, reason }]));
    // The simulator's clock runs on in real time after the minute it was moved: the window left is 24 h less that
    // minute less however long the run took on this machine (a bound from the run's own time, not a guess at speed).
    const ranFor = Math.ceil((Date.now() - advancedAt) / 1000) + 1;
    expect(byId['sync.interval-and-cap']).toEqual({ outcome: 'passed', reason: '' });
    // The cap is proven by a refusal, which needs no 202.
    expect(byId['sync.property-cap']).toEqual({ outcome: 'passed', reason: '' });
    for (const id of ['sync.normalised-202', 'sync.validation-before-charge', 'sync.monthly-chunks']) {
      expect(byId[id]!.outcome).toBe('not_applicable');
      const said = /window was spent before this run \(429 SYNC_TOO_SOON, errors.retry_after (\d+) s\).*can run again after \d{4}-/.exec(byId[id]!.reason);
      expect(said, byId[id]!.reason).not.toBeNull();
      expect(Number(said![1])).toBeLessThanOrEqual(86_340);
      expect(Number(said![1])).toBeGreaterThanOrEqual(86_340 - ranFor);
    }
  });

  it('a deployment whose refused sync charges the window fails sync.validation-before-charge naming §4.7', async () => {
    const { options } = await liveTarget(['sync-charged-before-validation']);
    expect(await outcomes(options, ['sync.validation-before-charge'])).toEqual([['sync.validation-before-charge', 'failed', 'RefusalConsumedWindow (4.7.R5)']]);
  });

  it('a deployment whose sync chunks straddle months fails sync.monthly-chunks naming §4.7', async () => {
    const { options } = await liveTarget(['chunk-straddles-months']);
    expect(await outcomes(options, ['sync.monthly-chunks'])).toEqual([['sync.monthly-chunks', 'failed', 'ChunkStraddlesMonths (4.7.R4)']]);
  });

  it('without --allow-sync the sync checks are not applicable, naming the capability, and spend nothing', async () => {
    const { options, sim, integrationId } = await liveTarget();
    const result = await outcomes({ ...options, allowSync: false });
    expect(result.map(([id, outcome]) => [id, outcome])).toEqual(SYNC_CHECKS.map((id) => [id, 'not_applicable']));
    for (const [, , reason] of result) expect(reason).toMatch(/needs sync/);
    expect(syncAnswers(sim, integrationId)).toEqual([]);
  });
});
