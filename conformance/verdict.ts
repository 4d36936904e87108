/**
 * The verdict in words, as the console, index.html, junit.xml and
 * report.json (`summary.verdict_detail`) all lead with it: how much the run
 * proved first, the pass rate of what ran never on its own. A read-only live
 * run passes 9 of 82 checks; "passed" alone would read as the whole API
 * proven (issue 27 item 4), so a run that proved less than the catalogue is
 * "passed, partial", with the figure.
 */
import type { RunReport, RunSummary } from './types.ts';

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
 * The console's closing lines: what ran, the bite, why checks were not
 * applicable, then how much was proven and the verdict that rests on it
 * (last, where a terminal leaves the eye).
 */
export function verdictLines(report: Pick<RunReport, 'summary' | 'results' | 'options'>): string[] {
  const s = report.summary;
  const lines = [
    `${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped in ${(s.ms / 1000).toFixed(1)} s (seed ${report.options.seed})`,
    // Older report.json files (--merge) have no bite counts: say nothing rather than 0.
    ...(s.clauses_shown_to_bite === undefined ? [] : [`bite: ${s.clauses_shown_to_bite} of ${s.clauses_shown_to_bite + s.clauses_cited_only} clauses with checks shown to bite (a check naming the clause caught a fault or mutant under it); ${s.clauses_cited_only} cited, not shown to bite`]),
  ];
  const why = new Map<string, number>();
  for (const r of report.results) if (r.outcome === 'not_applicable' && r.reason) why.set(r.reason, (why.get(r.reason) ?? 0) + 1);
  if (why.size > 0) lines.push('not applicable:', ...[...why].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `  ${String(n).padStart(3)} × ${reason}`));
  const catalogue = catalogueChecks(s);
  const unproven = [
    `${s.not_applicable} not applicable`,
    `${s.skipped} skipped`,
    ...(catalogue > s.total ? [`${catalogue - s.total} not selected`] : []),
    ...(s.failed + s.errored > 0 ? [`${s.failed + s.errored} failed or errored`] : []),
  ];
  lines.push(
    `proved: ${s.applicable} of ${catalogue} checks of the catalogue applicable (${unproven.join(', ')}); ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven (${s.clauses_total - s.clauses_testable} of the ${s.clauses_total} cannot be observed on a platform${s.clauses_through_assumption > 0 ? `; ${s.clauses_through_assumption} only through an assumption this run left out` : ''}); ${s.bookings_created} booking(s) created on the target`,
    `verdict: ${verdictShout(s)}${s.verdict === 'insufficient' ? ' (proved too little)' : ''} — ${verdictReason(s)}`,
  );
  return lines;
}

/** What the verdict rests on, after the dash of the console's verdict line. */
function verdictReason(s: Proof & Pick<RunSummary, 'failed' | 'errored' | 'gate'>): string {
  const proof = provedPhrase(s);
  if (s.verdict === 'failed') return `${s.failed} failed, ${s.errored} errored; ${proof}`;
  if (s.verdict === 'insufficient') return `${s.gate.join('; ')}; ${proof}`;
  if (s.partial === true) return `${proof}; no gate asked for more (--require-applicable N, --fail-on-not-applicable)`;
  return proof;
}
