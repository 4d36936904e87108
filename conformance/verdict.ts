/**
 * The verdict in words, as the console, index.html, junit.xml and
 * report.json (`summary.verdict_detail`) all lead with it: how much the run
 * proved first, the pass rate of what ran never on its own. A read-only live
 * run passes 9 of 82 checks; "passed" alone would read as the whole API
 * proven (issue 27 item 4), so a run that proved less than the catalogue is
 * "passed, partial", with the figure.
 */
import type { CheckResult, RunReport, RunSummary } from './types.ts';

/** What a person is told: `passed` only for a run that proved the whole catalogue. */
export type VerdictLabel = 'passed' | 'passed, partial' | 'failed' | 'insufficient';

type Proof = Pick<RunSummary, 'verdict' | 'applicable' | 'total' | 'clauses_proven' | 'clauses_testable'> & Partial<Pick<RunSummary, 'partial' | 'catalogue_checks'>>;

/** The verdict as people read it. */
export function verdictLabel(s: Pick<RunSummary, 'verdict'> & Partial<Pick<RunSummary, 'partial'>>): VerdictLabel {
  if (s.verdict === 'passed' && s.partial === true) return 'passed, partial';
  return s.verdict;
}

/** The label for a console line or a badge: `PASSED, PARTIAL`. */
export function verdictShout(s: Pick<RunSummary, 'verdict'> & Partial<Pick<RunSummary, 'partial'>>): string {
  return verdictLabel(s).toUpperCase();
}

/**
 * Checks in the catalogue behind the run. A report.json written before the
 * field existed (read back by --merge) knows only its selected checks.
 */
export function catalogueChecks(s: Pick<RunSummary, 'total'> & Partial<Pick<RunSummary, 'catalogue_checks'>>): number {
  return s.catalogue_checks ?? s.total;
}

/**
 * `summary.partial`, or for a report.json written before it existed (read
 * back by --merge), whether fewer checks were applicable than it selected.
 */
export function partialOf(s: Pick<RunSummary, 'applicable' | 'total'> & Partial<Pick<RunSummary, 'partial' | 'catalogue_checks'>>): boolean {
  return s.partial ?? s.applicable < catalogueChecks(s);
}

/** `9 of 82 checks applicable, 12 of 250 testable clauses proven`. */
export function provedPhrase(s: Proof): string {
  return `${s.applicable} of ${catalogueChecks(s)} checks applicable, ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven`;
}

/**
 * Whether a passed run proved less than the whole catalogue: a check left out
 * by selection, not applicable to the target or skipped is a check not proven.
 */
export function isPartial(s: Pick<RunSummary, 'verdict' | 'applicable'> & { catalogue_checks: number }): boolean {
  return s.verdict === 'passed' && s.applicable < s.catalogue_checks;
}

/**
 * The verdict with what it rests on, in one line:
 * `passed, partial: 9 of 82 checks applicable, 12 of 250 testable clauses proven`,
 * `failed (2 failed, 1 errored): …`, `insufficient (<why the gate did not hold>): …`.
 */
export function verdictDetail(s: Proof & Pick<RunSummary, 'failed' | 'errored' | 'gate'>): string {
  const why = s.verdict === 'failed' ? ` (${s.failed} failed, ${s.errored} errored)`
    : s.verdict === 'insufficient' && s.gate.length > 0 ? ` (${s.gate.join('; ')})`
    : '';
  return `${verdictLabel(s)}${why}: ${provedPhrase(s)}`;
}

/**
 * The console's closing lines (issue 41 items 3 and 4): the counts, how much
 * was proven, where the reports went, then what to add for the checks that
 * were not applicable, each failure again with its clause and replay
 * command, and last the verdict naming each failed check: pytest and
 * Schemathesis end with the failures, where a terminal leaves the eye.
 * `reports` are the lines naming the report files, placed after `proved:`.
 */
export function verdictLines(report: Pick<RunReport, 'summary' | 'results' | 'options'> & Partial<Pick<RunReport, 'coverage'>>, reports: string[] = []): string[] {
  const s = report.summary;
  const lines = [
    `${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped in ${(s.ms / 1000).toFixed(1)} s (seed ${report.options.seed})`,
    ...biteLine(report),
  ];
  const catalogue = catalogueChecks(s);
  const unproven = [
    `${s.not_applicable} not applicable`,
    `${s.skipped} skipped`,
    ...(catalogue > s.total ? [`${catalogue - s.total} not selected`] : []),
    ...(s.failed + s.errored > 0 ? [`${s.failed + s.errored} failed or errored`] : []),
  ];
  // Only a --normative-only run left assumptions out: on any other run the clauses behind them are simply not run.
  const leftOut = report.options.normativeOnly && s.clauses_through_assumption > 0 ? `; ${s.clauses_through_assumption} only through an assumption this run left out` : '';
  lines.push(
    `proved: ${s.applicable} of ${catalogue} checks of the catalogue applicable (${unproven.join(', ')}); ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven (${s.clauses_total - s.clauses_testable} of the ${s.clauses_total} cannot be observed on a platform${leftOut}); ${s.bookings_created} booking(s) created on the target`,
    ...reports,
    ...toAddLines(s),
    ...failureLines(report.results),
    `verdict: ${verdictShout(s)}${s.verdict === 'insufficient' ? ' (proved too little)' : ''} — ${verdictReason(s, report.results)}`,
  );
  return lines;
}

/** Checks a group names by id when it is this small; a larger one is listed in the report. */
const NAMED_UP_TO = 3;

/** The not-applicable checks grouped by what to add to the run's options (summary.what_to_add). */
function toAddLines(s: RunSummary): string[] {
  const groups = s.what_to_add ?? [];
  if (groups.length === 0) return [];
  const width = String(Math.max(...groups.map((g) => g.checks.length))).length;
  return [
    `not applicable: what to add to the run to make them applicable (${s.not_applicable} in all):`,
    ...groups.map((g) => `  ${g.add.length > 0 ? '+' : ' '}${String(g.checks.length).padStart(width)}  ${g.label}${g.checks.length <= NAMED_UP_TO ? ` (${g.checks.join(', ')})` : ''}`),
  ];
}

/** Each failed or errored check again, with the clause its failure names and the command that replays it. */
function failureLines(results: Pick<CheckResult, 'id' | 'outcome' | 'failure' | 'error' | 'replay'>[]): string[] {
  const bad = results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored');
  if (bad.length === 0) return [];
  return [
    `failures (${bad.length}), each replayed by its command:`,
    ...bad.flatMap((r) => [
      r.outcome === 'failed'
        ? `  ✗ ${r.id}  ${r.failure?.clause ? `§${r.failure.clause} ` : ''}${r.failure?.kind ?? 'failed'}`
        : `  ! ${r.id}  errored: ${(r.error ?? '').split('\n')[0]!.slice(0, 120)}`,
      `      ${r.replay}`,
    ]),
  ];
}

/**
 * The bite of the clauses this run proved, when some rest only on checks not
 * shown to bite: the suite's bite over the whole catalogue says nothing about
 * the run, so it is not printed (issue 41 item 3).
 */
function biteLine(report: Partial<Pick<RunReport, 'coverage'>>): string[] {
  const proven = (report.coverage ?? []).filter((c) => c.status === 'passed');
  const cited = proven.filter((c) => c.bite === 'cited').length;
  if (proven.length === 0 || cited === 0) return [];
  return [`bite: ${proven.length - cited} of the ${proven.length} clauses this run proved have a check shown to bite on them; ${cited} are cited only (no fault or mutant under them caught yet)`];
}

/** The failed and errored checks by id, for the verdict line (the first few, then how many more). */
function failedNames(results: Pick<CheckResult, 'id' | 'outcome'>[]): string {
  const bad = results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored').map((r) => r.id);
  if (bad.length === 0) return '';
  const shown = bad.slice(0, 5);
  return ` (${shown.join(', ')}${bad.length > shown.length ? `, and ${bad.length - shown.length} more` : ''})`;
}

/** What the verdict rests on, after the dash of the console's verdict line. */
function verdictReason(s: Proof & Pick<RunSummary, 'failed' | 'errored' | 'gate'>, results: Pick<CheckResult, 'id' | 'outcome'>[]): string {
  const proof = provedPhrase(s);
  if (s.verdict === 'failed') return `${s.failed} failed, ${s.errored} errored${failedNames(results)}; ${proof}`;
  if (s.verdict === 'insufficient') return `${s.gate.join('; ')}; ${proof}`;
  if (s.partial === true) return `${proof}; no gate asked for more (--require-applicable N, --fail-on-not-applicable)`;
  return proof;
}
