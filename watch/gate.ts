/**
 * What a watch must have judged before its silence means anything (issue 41
 * item 1): a run that judged nothing, or far less than it saw, is a setup
 * problem (exit 2), never a pass; and `--require-observed N`, as
 * conformance's `--require-applicable`, fails a run that observed fewer rules
 * than its user asked for. Pure: it reads the judge's counts.
 */
import type { Judge } from './judge.ts';

/** The share of API calls that must be judgeable (answered, at a path of the contract) for the run to count. */
export const JUDGED_SHARE = 0.5;

/** `--require-observed`: a count of rules (1, 2, …) or a share of the judged sides' rules (0 < N < 1). */
export function requireObservedOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || (n > 1 && !Number.isInteger(n))) {
    throw new RangeError(`--require-observed must be a count of rules (1, 2, …) or a share between 0 and 1, got "${value}"`);
  }
  return n;
}

/**
 * Why the run cannot be taken as judged, or null when it can: no rule observed, or fewer than half of its API
 * calls answered at a path of the contract. `where` says what to check (the upstream, or a HAR's API root).
 */
export function judgedTooLittle(judge: Judge, where: string): string | null {
  const { api, delivery, unanswered, unmatched } = judge.seen;
  const examples = judge.unmatchedFirst.length > 0 ? ` (${judge.unmatchedFirst.slice(0, 3).join(', ')}${unmatched > 3 ? ', …' : ''})` : '';
  const counts = `${api} API call${api === 1 ? '' : 's'}: ${unmatched} matching no operation of the contract${examples}, ${unanswered} without an answer; ${delivery} deliver${delivery === 1 ? 'y' : 'ies'}`;
  if (judge.observedRules() === 0) {
    return `watch judged nothing: no rule observed over ${counts}. ${api + delivery === 0 ? 'No traffic reached watch' : where}`;
  }
  if (api > 0 && judge.judgedApi < api * JUDGED_SHARE) {
    return `watch judged only ${judge.judgedApi} of ${counts}. ${where}`;
  }
  return null;
}
