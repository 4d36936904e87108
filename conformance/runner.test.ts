/** The runner both ways: a correct simulator passes every check; each deliberate fault is caught by its check. */
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDays, dateAt } from '../protocol/calendar.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../reporting/write.ts';
import { seedDemoWorld, type Fixtures } from '../simulator/demo-world.ts';
import { API_ROOT } from '../simulator/http/app.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import { FAULT_NAMES } from '../simulator/faults.ts';
import { catalogue } from './catalogue.ts';
import { DETECTED_BY, runMutants } from './mutants.ts';
import { BITE_EVIDENCE } from './bite-evidence.ts';
import { faultKills } from './bite.ts';
import { assertConformance, runConformance } from './runner.ts';
import { loadClauses } from '../spec/clauses.ts';

describe('the check catalogue', () => {
  it('gives every check a unique id, known clause ids and a level', () => {
    const ids = catalogue().map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const clauses = new Set(loadClauses().map((c) => c.id));
    for (const check of catalogue()) {
      expect(check.clauses.length, check.id).toBeGreaterThan(0);
      for (const id of check.clauses) expect(clauses.has(id), `${check.id} cites unknown clause ${id}`).toBe(true);
      expect(['normative', 'assumption']).toContain(check.level);
    }
  });

  it('names a detecting check for every simulator fault', () => {
    for (const fault of FAULT_NAMES) expect(ids()).toContain(DETECTED_BY[fault]);
    function ids() {
      return catalogue().map((c) => c.id);
    }
  });
});

describe('against the in-process simulator', () => {
  it('passes every applicable check', async () => {
    const report = await runConformance({ target: 'in-process', runs: 10, seed: 7 });
    // In-process every check applies: the runner's receiver stands in for the partner's.
    const bad = report.results.filter((r) => r.outcome !== 'passed');
    expect(bad.map((r) => `${r.id}: ${r.outcome} ${r.failure?.received ?? r.error ?? r.reason ?? ''}`)).toEqual([]);
    expect(report.summary.passed).toBe(catalogue().length);
    expect(report.coverage.some((c) => c.status === 'passed')).toBe(true);
  });

  it('detects every fault with the check that should detect it (mutation score 100%)', async () => {
    const { results, score } = await runMutants({ runs: 10, seed: 7 });
    expect(results.filter((r) => !r.detected).map((r) => `${r.fault}: ${r.check} ${r.missed}`)).toEqual([]);
    expect(score).toBe(1);
    // The committed evidence behind the report's "shown to bite" is what the faults show now (npm run bite-evidence rewrites it).
    expect(BITE_EVIDENCE.faults, 'conformance/bite-evidence.ts is stale: npm run bite-evidence').toEqual(faultKills(results));
  });

  it('reports a failure with its clause, exchanges, seed and replay command; the replay reproduces it', async () => {
    const report = await runConformance({ target: 'in-process', fault: 'key-reuse-accepted', checks: ['idempotency.reuse-with-any-change-refused'], runs: 10, seed: 99 });
    const [result] = report.results;
    expect(result!.outcome).toBe('failed');
    expect(result!.failure).toMatchObject({ kind: 'UnexpectedStatus', clause: '4.5.R1d' });
    expect(result!.property).toMatchObject({ seed: 99, path: expect.any(String), counterexample: expect.any(String) });
    expect(result!.exchanges.length).toBeGreaterThan(0);
    expect(result!.replay).toContain(`--check idempotency.reuse-with-any-change-refused --seed=99 --path=${result!.property!.path}`);
    const again = await runConformance({ target: 'in-process', fault: 'key-reuse-accepted', checks: ['idempotency.reuse-with-any-change-refused'], runs: 10, seed: 99, path: result!.property!.path });
    expect(again.results[0]!.outcome).toBe('failed');
    expect(again.results[0]!.property?.counterexample).toBe(result!.property!.counterexample);
  });

  it('assertConformance throws naming the failed check and how to replay it', async () => {
    await expect(assertConformance({ target: 'in-process', fault: 'unauthenticated-403', checks: ['auth.missing-key-is-401'], runs: 5, seed: 1 }))
      .rejects.toThrow(/auth\.missing-key-is-401[\s\S]*replay: npm run conformance -- .*--fault unauthenticated-403 --enable-faults/);
  });

  it('--normative-only leaves out the checks that rely on an assumption', async () => {
    const report = await runConformance({ target: 'in-process', normativeOnly: true, suites: ['schema'], runs: 5 });
    const assumed = report.results.filter((r) => r.level === 'assumption');
    expect(assumed.length).toBeGreaterThan(0);
    expect(assumed.every((r) => r.outcome === 'skipped')).toBe(true);
  });

  it('--normative-only names each clause it left unproven because only an assumption can observe it', async () => {
    const report = await runConformance({ target: 'in-process', normativeOnly: true, suites: ['schema'], runs: 5 });
    const left = report.coverage.filter((c) => c.why?.startsWith('observable only through an assumption: '));
    // schema.assumed-operations-conform is the only check of 4.8.R5 and 4.8.R6 (their paths are not shown).
    expect(left.map((c) => c.id)).toEqual(expect.arrayContaining(['4.8.R5', '4.8.R6']));
    expect(left.every((c) => c.status === 'not_run')).toBe(true);
    expect(report.summary.clauses_through_assumption).toBe(left.length);
  });

  it('marks as observable only through an assumption exactly the clauses no normative check proves', () => {
    const checks = catalogue();
    for (const clause of loadClauses().filter((c) => c.untestable === undefined)) {
      const proving = checks.filter((c) => c.clauses.includes(clause.id));
      if (proving.length === 0) continue;
      const normative = proving.some((c) => c.level === 'normative');
      // Marked: no normative check may prove it (else the mark hides a proof); unmarked: a normative check must.
      expect({ id: clause.id, normative }).toEqual({ id: clause.id, normative: clause.observedThrough === undefined });
    }
  });

  it('refuses unknown suites and checks, naming them', async () => {
    await expect(runConformance({ target: 'in-process', suites: ['nope'] })).rejects.toThrow('unknown suite "nope"');
    await expect(runConformance({ target: 'in-process', checks: ['nope.check'] })).rejects.toThrow('unknown check "nope.check"');
  });
});

describe('against a live target', () => {
  let sim: Simulator;
  let fixtures: Fixtures;
  let close: () => Promise<void>;
  let baseUrl: string;

  beforeAll(async () => {
    sim = createSimulator();
    const server = sim.app.listen(0, '127.0.0.1');
    await new Promise<void>((ok) => server.once('listening', ok));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
    fixtures = seedDemoWorld(sim, { baseUrl, staffToken: sim.staffToken! });
    close = () => new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  });
  afterAll(() => close());

  it('checks live webhook deliveries through the runner\'s receiver behind --webhook-public-url', async () => {
    const probe = (await import('node:net')).createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((ok) => probe.close(() => ok()));
    const url = `http://127.0.0.1:${port}/webhook`;
    sim.store.transaction((tx) => {
      const i = tx.get('integrations', '1')!;
      tx.put('integrations', '1', { ...i, webhook: { ...i.webhook, url } });
    });
    sim.webhooks.start(20);
    try {
      const report = await runConformance({
        baseUrl, apiKey: fixtures.integrations[0]!.apiKey, webhookSecret: fixtures.integrations[0]!.webhookSecret, allowWrites: true,
        properties: [fixtures.integrations[0]!.properties[0]!.doorloom_id], webhookPublicUrl: url, webhookListenPort: port, checks: ['webhooks.live-deliveries'],
      });
      expect(report.results.map((r) => [r.id, r.outcome, r.failure?.received ?? r.reason ?? ''])).toEqual([['webhooks.live-deliveries', 'passed', '']]);
      const wrongSecret = await runConformance({
        baseUrl, apiKey: fixtures.integrations[0]!.apiKey, webhookSecret: 'whsec_not_the_secret', allowWrites: true,
        properties: [fixtures.integrations[0]!.properties[0]!.doorloom_id], webhookPublicUrl: url, webhookListenPort: port, checks: ['webhooks.live-deliveries'],
      });
      expect(wrongSecret.results[0]!.outcome).toBe('failed');
    } finally {
      sim.webhooks.stop();
    }
  });

  it('is read-only unless writes are allowed: write checks are not applicable, with the reason, and nothing is written', async () => {
    const before = sim.store.size('bookings');
    const report = await runConformance({ baseUrl, apiKey: fixtures.integrations[0]!.apiKey, runs: 5 });
    expect(sim.store.size('bookings')).toBe(before);
    const writes = report.results.filter((r) => catalogue().find((c) => c.id === r.id)!.needs.includes('write'));
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((r) => r.outcome === 'not_applicable' && /allow-writes/.test(r.reason!))).toBe(true);
    expect(report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored')).toEqual([]);
    expect(report.results.filter((r) => r.outcome === 'passed').length).toBeGreaterThan(3);
  });

  it('with writes, books only on the named properties, far in the future, with ids prefixed by the run id; secrets stay out of reports', async () => {
    const named = fixtures.integrations[0]!.properties[0]!.doorloom_id;
    const before = new Set(Array.from(sim.store.values('bookings')).map((b) => b.id));
    const report = await runConformance({
      baseUrl, apiKey: fixtures.integrations[0]!.apiKey, otherApiKey: fixtures.integrations[1]!.apiKey, webhookSecret: fixtures.integrations[0]!.webhookSecret,
      allowWrites: true, properties: [named], runs: 5,
    });
    expect(report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored').map((r) => r.id)).toEqual([]);
    const created = Array.from(sim.store.values('bookings')).filter((b) => !before.has(b.id));
    expect(created.length).toBeGreaterThan(0);
    const soon = new Date(Date.now() + 240 * 86_400_000).toISOString().slice(0, 10);
    // The one exception is the §4.5 boundary itself: a one-night stay from yesterday (booking.check-in-boundaries).
    const yesterday = addDays(dateAt(Date.now()), -1);
    for (const b of created) {
      expect(b.property_id).toBe(named);
      expect(b.external_booking_id.startsWith(report.runId)).toBe(true);
      expect(b.check_in > soon || (b.check_in === yesterday && b.check_out === addDays(yesterday, 1)), `${b.check_in}..${b.check_out}`).toBe(true);
    }
    expect(created.filter((b) => b.check_in <= soon).length).toBeLessThanOrEqual(1);
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    const written = writeReports(report, dir);
    for (const file of Object.values(written.files)) {
      const text = readFileSync(file, 'utf8');
      for (const i of fixtures.integrations) {
        expect(text).not.toContain(i.apiKey);
        expect(text).not.toContain(i.webhookSecret);
      }
    }
  });
});
