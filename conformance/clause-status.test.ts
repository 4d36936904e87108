/**
 * A clause fails only where a failing check judged that clause broken
 * (issue 41 item 5): the fault cursor-off-by-one breaks §4.6.R4, and the
 * other clauses its check names stay passed where another check passed them.
 */
import { describe, expect, it } from 'vitest';
import { catalogue } from './catalogue.ts';
import { coverage, runConformance } from './runner.ts';
import type { CheckResult, ClauseCoverage } from './types.ts';

const status = (clauses: ClauseCoverage[], id: string) => clauses.find((c) => c.id === id)?.status;

describe('clause status from the clauses each failure names', () => {
  it('with the fault cursor-off-by-one, only 4.6.R4 fails; 4.6.Q2 and 3.3.R2, passed by other checks of the run, stay passed', async () => {
    const checks = ['sequencing.paging-exactly-once', 'sequencing.replay-limits', 'supersession.live-undelivered-covered'];
    const report = await runConformance({ target: 'in-process', fault: 'cursor-off-by-one', checks, runs: 10, seed: 1 });
    const outcome = Object.fromEntries(report.results.map((r) => [r.id, r.outcome]));
    expect(outcome, JSON.stringify(report.results.map((r) => r.failure ?? r.error ?? r.reason))).toEqual({
      'sequencing.paging-exactly-once': 'failed', 'sequencing.replay-limits': 'passed', 'supersession.live-undelivered-covered': 'passed',
    });
    expect(report.results[0]!.failure!.clause).toBe('4.6.R4');
    const failed = report.coverage.filter((c) => c.status === 'failed').map((c) => c.id);
    expect(failed).toEqual(['4.6.R4']);
    expect(status(report.coverage, '4.6.Q2')).toBe('passed');
    expect(status(report.coverage, '3.3.R2')).toBe('passed');
  });

  const result = (id: string, outcome: CheckResult['outcome'], clauses: string[], clause?: string): CheckResult => ({
    id, title: id, suite: 's', clauses, level: 'normative', outcome, exchanges: [], replay: '', ms: 0,
    ...(outcome === 'failed' ? { failure: { kind: 'K', received: 'r', documented: 'd', clause: clause ?? '' } } : {}),
  });
  const all = catalogue();

  it.each([
    ['the clause the failure names fails', [result('sequencing.paging-exactly-once', 'failed', ['4.6.R4', '4.6.R5'], '4.6.R4')], { '4.6.R4': 'failed', '4.6.R5': 'not_run' }],
    ['a clause another check passed and no failure named is passed', [result('sequencing.paging-exactly-once', 'failed', ['4.6.R4', '4.6.Q2'], '4.6.R4'), result('sequencing.replay-limits', 'passed', ['4.6.Q2'])], { '4.6.R4': 'failed', '4.6.Q2': 'passed' }],
    ['a failure naming no clause of the catalogue stands against every clause its check names', [result('sequencing.paging-exactly-once', 'failed', ['4.6.R4', '4.6.R5'], '')], { '4.6.R4': 'failed', '4.6.R5': 'failed' }],
    ['an errored check judged nothing', [result('sequencing.paging-exactly-once', 'errored', ['4.6.R4'])], { '4.6.R4': 'not_run' }],
  ] as const)('%s', (_name, results, want) => {
    const clauses = coverage(all, [...results]);
    for (const [id, s] of Object.entries(want)) expect([id, status(clauses, id)]).toEqual([id, s]);
  });

  it('a clause its checks ran on without judging says why', () => {
    const clauses = coverage(all, [result('sequencing.paging-exactly-once', 'failed', ['4.6.R4', '4.6.R5'], '4.6.R4')]);
    expect(clauses.find((c) => c.id === '4.6.R5')?.why).toMatch(/^not judged: sequencing\.paging-exactly-once was stopped by a failure under another clause/);
  });
});
