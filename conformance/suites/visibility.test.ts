/**
 * §1 visibility wherever an integration names something (issue 40 item 4): each check fails on a simulator whose
 * namespace leaks in that one place, naming the breach and the clause, and passes on the correct one; both
 * in-process and as a live deployment reached with a second integration's key. Without a property the second
 * integration may book on (--other-property), the checks that need its own booking say so and book nothing for it.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import type { FaultName } from '../../simulator/domain/faults.ts';
import { runConformance } from '../runner.ts';
import { serveSimulator } from '../served-simulator.ts';

const CHECKS = [
  'visibility.foreign-alias-names-nothing',
  'visibility.idempotency-key-per-integration',
  'visibility.external-id-per-integration',
  'visibility.sync-foreign-property-422',
  'visibility.foreign-property-events-hidden',
  'pagination.full-pages-when-more-follow',
];

/** [fault, check, the failure it must report] */
const LEAKS: [FaultName, string, string][] = [
  ['snapshot-alias-any-integration', 'visibility.foreign-alias-names-nothing', 'ForeignAliasResolved (1.V1)'],
  ['create-alias-any-integration', 'visibility.foreign-alias-names-nothing', 'ForeignAliasBooked (1.V1)'],
  ['idempotency-key-global', 'visibility.idempotency-key-per-integration', 'ForeignKeyReplayed (1.V1)'],
  ['external-id-global', 'visibility.external-id-per-integration', 'ForeignDuplicate (1.V1)'],
  ['sync-foreign-property-accepted', 'visibility.sync-foreign-property-422', 'ForeignPropertySynced (4.7.Q2a)'],
  ['events-filter-any-integration', 'visibility.foreign-property-events-hidden', 'ForeignEventsShown (1.V2)'],
  ['per-page-200-short-by-one', 'pagination.full-pages-when-more-follow', 'ShortPage (8.L1)'],
];

function outcome(r: { outcome: string; failure?: { kind: string; clause: string }; reason?: string; error?: string }): string {
  return r.failure ? `${r.failure.kind} (${r.failure.clause})` : r.outcome === 'passed' ? 'passed' : `${r.outcome}: ${r.reason ?? r.error}`;
}

describe('in-process', () => {
  it('every check passes on the correct simulator', async () => {
    const report = await runConformance({ target: 'in-process', checks: CHECKS, runs: 5, seed: 40 });
    expect(report.results.map((r) => [r.id, outcome(r)])).toEqual(CHECKS.map((id) => [id, 'passed']));
  });

  it.each(LEAKS)('%s: %s fails with %s', async (fault, check, breach) => {
    const report = await runConformance({ target: 'in-process', fault, checks: [check], runs: 5, seed: 40 });
    expect(outcome(report.results[0]!)).toBe(breach);
  });
});

async function live(test: TestContext, faults: FaultName[]) {
  const served = await serveSimulator(faults);
  test.onTestFinished(() => served.close());
  return { ...served.partner, ...served.platform, allowWrites: true, allowSync: true, runs: 5, seed: 40 };
}

describe('live, with a second integration\'s key', () => {
  it('every check passes on a correct deployment', async (test) => {
    const report = await runConformance({ ...(await live(test, [])), checks: CHECKS });
    expect(report.target.kind).toBe('live');
    expect(report.results.map((r) => [r.id, outcome(r)])).toEqual(CHECKS.map((id) => [id, 'passed']));
  });

  it.for(LEAKS)('%s: %s fails with %s', async ([fault, check, breach], test) => {
    const report = await runConformance({ ...(await live(test, [fault])), checks: [check] });
    expect(outcome(report.results[0]!)).toBe(breach);
  });

  it('without --other-property the checks that need the second integration\'s own booking are not applicable and book nothing for it', async (test) => {
    const options = await live(test, []);
    const report = await runConformance({ ...options, otherProperties: undefined, checks: ['visibility.idempotency-key-per-integration', 'visibility.external-id-per-integration'] });
    for (const r of report.results) {
      expect(r.outcome, r.id).toBe('not_applicable');
      expect(r.reason).toMatch(/--other-property ID/);
    }
    const theirs = await fetch(`${options.baseUrl}/bookings`, { headers: { Authorization: `Bearer ${options.otherApiKey}` } }).then((r) => r.json() as Promise<{ pagination: { total: number } }>);
    expect(theirs.pagination.total).toBe(0);
  });
});
