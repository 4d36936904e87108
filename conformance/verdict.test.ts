/** The verdict in words (issue 27 item 4): how much was proven leads, and a run short of the catalogue is "passed, partial". */
import { describe, expect, it } from 'vitest';
import type { CheckResult, ClauseCoverage, RunSummary } from './types.ts';
import { verdictDetail, verdictLabel, verdictLines } from './verdict.ts';

const base: RunSummary = {
  total: 82, passed: 82, failed: 0, not_applicable: 0, skipped: 0, errored: 0, ms: 12_300, applicable: 82,
  clauses_proven: 240, clauses_total: 265, clauses_testable: 250, clauses_through_assumption: 0,
  clauses_shown_to_bite: 88, clauses_cited_only: 162, bookings_created: 0, verdict: 'passed', gate: [],
  catalogue_checks: 82, partial: false, verdict_detail: '',
};
/** The README's first live run: read-only, 9 of 82 checks applicable. */
const readOnly: RunSummary = { ...base, passed: 9, not_applicable: 73, applicable: 9, clauses_proven: 22, partial: true };

const cases: Array<[string, { given: RunSummary; label: string; detail: string; verdictLine: string }]> = [
  ['the whole catalogue proven', {
    given: base, label: 'passed', detail: 'passed: 82 of 82 checks applicable, 240 of 250 testable clauses proven',
    verdictLine: 'verdict: PASSED — 82 of 82 checks applicable, 240 of 250 testable clauses proven',
  }],
  ['a read-only live run (9 of 82 checks)', {
    given: readOnly, label: 'passed, partial', detail: 'passed, partial: 9 of 82 checks applicable, 22 of 250 testable clauses proven',
    verdictLine: 'verdict: PASSED, PARTIAL — 9 of 82 checks applicable, 22 of 250 testable clauses proven; no gate asked for more (--require-applicable N, --fail-on-not-applicable)',
  }],
  ['a failed run', {
    given: { ...readOnly, passed: 7, failed: 1, errored: 1, verdict: 'failed', partial: false }, label: 'failed', detail: 'failed (1 failed, 1 errored): 9 of 82 checks applicable, 22 of 250 testable clauses proven',
    verdictLine: 'verdict: FAILED — 1 failed, 1 errored; 9 of 82 checks applicable, 22 of 250 testable clauses proven',
  }],
  ['a run a gate found too thin', {
    given: { ...readOnly, verdict: 'insufficient', partial: false, gate: ['73 check(s) not applicable and --fail-on-not-applicable is set'] }, label: 'insufficient',
    detail: 'insufficient (73 check(s) not applicable and --fail-on-not-applicable is set): 9 of 82 checks applicable, 22 of 250 testable clauses proven',
    verdictLine: 'verdict: INSUFFICIENT (proved too little) — 73 check(s) not applicable and --fail-on-not-applicable is set; 9 of 82 checks applicable, 22 of 250 testable clauses proven',
  }],
];

describe('the verdict in words', () => {
  it.each(cases)('%s', (_name, { given, label, detail, verdictLine }) => {
    expect(verdictLabel(given)).toBe(label);
    expect(verdictDetail(given)).toBe(detail);
    const lines = verdictLines({ summary: given, results: [], options: { suites: [], checks: [], runs: 25, seed: 7, normativeOnly: false, allowWrites: false } });
    // The console's last two lines: how much was proven, then the verdict that rests on it.
    expect(lines.at(-1)).toBe(verdictLine);
    expect(lines.at(-2)).toMatch(new RegExp(`^proved: ${given.applicable} of 82 checks of the catalogue applicable \\(${given.not_applicable} not applicable, 0 skipped`));
  });

  it('says how many checks were not selected when --suite or --check ran part of the catalogue', () => {
    const auth: RunSummary = { ...base, total: 8, passed: 8, applicable: 8, partial: true };
    const lines = verdictLines({ summary: auth, results: [], options: { suites: ['auth'], checks: [], runs: 25, seed: 7, normativeOnly: false, allowWrites: false } });
    expect(lines.at(-2)).toMatch(/^proved: 8 of 82 checks of the catalogue applicable \(0 not applicable, 0 skipped, 74 not selected\)/);
    expect(lines.at(-1)).toMatch(/^verdict: PASSED, PARTIAL — 8 of 82 checks applicable/);
  });

  it('reads a report.json from before catalogue_checks and partial (--merge) by its selected checks', () => {
    const { catalogue_checks: _c, partial: _p, ...old } = readOnly;
    expect(verdictDetail(old as RunSummary)).toBe('passed: 9 of 82 checks applicable, 22 of 250 testable clauses proven');
  });

  const opts = { suites: [], checks: [], runs: 25, seed: 7, normativeOnly: false, allowWrites: false };
  const result = (id: string, outcome: CheckResult['outcome'], more: Partial<CheckResult> = {}): CheckResult => ({ id, title: id, suite: 's', clauses: ['4.6.R4'], level: 'normative', outcome, exchanges: [], replay: `npm run conformance -- --check ${id} --seed=7`, ms: 1, ...more });

  it('a failing run ends with each failure (check, clause, replay command), then the verdict naming each failed check', () => {
    const results = [
      result('auth.missing-key-is-401', 'passed'),
      result('sequencing.paging-exactly-once', 'failed', { failure: { kind: 'EventSkipped', received: 'r', documented: 'd', clause: '4.6.R4' } }),
      result('webhooks.signed', 'errored', { error: 'TypeError: boom\n    at x' }),
    ];
    const lines = verdictLines({ summary: { ...readOnly, passed: 7, failed: 1, errored: 1, verdict: 'failed', partial: false }, results, options: opts }, ['reports: a', '         b', '         c']);
    expect(lines.slice(-6)).toEqual([
      'failures (2), each replayed by its command:',
      '  ✗ sequencing.paging-exactly-once  §4.6.R4 EventSkipped',
      '      npm run conformance -- --check sequencing.paging-exactly-once --seed=7',
      '  ! webhooks.signed  errored: TypeError: boom',
      '      npm run conformance -- --check webhooks.signed --seed=7',
      'verdict: FAILED — 1 failed, 1 errored (sequencing.paging-exactly-once, webhooks.signed); 9 of 82 checks applicable, 22 of 250 testable clauses proven',
    ]);
    // The report files come right after how much was proven, before what to add and the failures.
    expect(lines.indexOf('reports: a')).toBe(lines.findIndex((l) => l.startsWith('proved: ')) + 1);
  });

  it('lists the not-applicable checks by what to add, naming the checks of a small group', () => {
    const what_to_add = [
      { add: ['write' as const, 'property' as const], label: '--allow-writes --property ID', checks: ['a', 'b', 'c', 'd'] },
      { add: ['burst' as const], label: '--allow-burst', checks: ['auth.rate-limited-headers'] },
    ];
    const lines = verdictLines({ summary: { ...readOnly, not_applicable: 5, what_to_add }, results: [], options: opts });
    expect(lines.slice(-4, -1)).toEqual([
      'not applicable: what to add to the run to make them applicable (5 in all):',
      '  +4  --allow-writes --property ID',
      '  +1  --allow-burst (auth.rate-limited-headers)',
    ]);
  });

  it('says clauses are only observable through a left-out assumption only on a run that left assumptions out', () => {
    const summary = { ...readOnly, clauses_through_assumption: 9 };
    const proved = (normativeOnly: boolean) => verdictLines({ summary, results: [], options: { ...opts, normativeOnly } }).find((l) => l.startsWith('proved: '))!;
    expect(proved(false)).not.toContain('assumption');
    expect(proved(true)).toContain('9 only through an assumption this run left out');
  });

  it('prints a bite line only about the clauses this run proved, and only when some of them are cited only', () => {
    const clause = (id: string, status: ClauseCoverage['status'], bite: 'shown' | 'cited'): ClauseCoverage => ({ id, title: id, section: '1', checks: ['x'], status, bite });
    const bite = (coverage: ClauseCoverage[]) => verdictLines({ summary: readOnly, results: [], options: opts, coverage }).filter((l) => l.startsWith('bite: '));
    expect(bite([clause('1.R1', 'passed', 'shown'), clause('1.R2', 'passed', 'cited'), clause('1.R3', 'not_run', 'cited')])).toEqual([
      'bite: 1 of the 2 clauses this run proved have a check shown to bite on them; 1 are cited only (no fault or mutant under them caught yet)',
    ]);
    expect(bite([clause('1.R1', 'passed', 'shown'), clause('1.R3', 'not_run', 'cited')])).toEqual([]);
    expect(bite([])).toEqual([]);
  });
});
