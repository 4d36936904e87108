/**
 * Formatting shared by the report writers: outcome labels and order, suite
 * grouping, durations, truncation. Pure functions of the report; no I/O.
 */
import type { CheckResult, Outcome, RunReport } from '../conformance/types.ts';

/** Outcomes in the order people read them: what broke first. */
export const OUTCOMES: readonly Outcome[] = ['failed', 'errored', 'passed', 'not_applicable', 'skipped'];

export const OUTCOME_LABEL: Record<Outcome, string> = {
  passed: 'Passed',
  failed: 'Failed',
  errored: 'Errored',
  not_applicable: 'Not applicable',
  skipped: 'Skipped',
};

export type OutcomeCounts = Record<Outcome, number>;

/** Counts by outcome, computed from the results themselves (so they always match what is listed). */
export function countOutcomes(results: readonly CheckResult[]): OutcomeCounts {
  const counts: OutcomeCounts = { passed: 0, failed: 0, errored: 0, not_applicable: 0, skipped: 0 };
  for (const r of results) counts[r.outcome] += 1;
  return counts;
}

/** Passed over the checks that ran (passed + failed + errored); null when none ran. */
export function passRate(counts: OutcomeCounts): number | null {
  const ran = counts.passed + counts.failed + counts.errored;
  return ran === 0 ? null : counts.passed / ran;
}

/** The run's verdict as the runner decided it: an insufficient run (a gate not met, nothing applicable) is never shown as passed. */
export function verdict(report: RunReport): RunReport['summary']['verdict'] {
  if (report.results.some((r) => r.outcome === 'failed' || r.outcome === 'errored')) return 'failed';
  return report.summary?.verdict === 'insufficient' ? 'insufficient' : 'passed';
}

/** Results grouped by suite, suites in order of first appearance, results in report order. */
export function groupBySuite<T extends Pick<CheckResult, 'suite'>>(results: readonly T[]): Array<{ suite: string; results: T[] }> {
  const groups = new Map<string, T[]>();
  for (const r of results) {
    const group = groups.get(r.suite);
    if (group) group.push(r);
    else groups.set(r.suite, [r]);
  }
  return [...groups].map(([suite, rs]) => ({ suite, results: rs }));
}

/** Milliseconds as JUnit seconds: `1234` → `"1.234"`. Negative or non-finite values count as 0. */
export function seconds(ms: number): string {
  return (Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0).toFixed(3);
}

/** A duration for people: `850 ms`, `4.2 s`, `3 min 07 s`. */
export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const rest = String(totalSeconds % 60).padStart(2, '0');
  if (minutes < 60) return `${minutes} min ${rest} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** An ISO timestamp for people (`2026-09-14 10:22:05 UTC`); the input unchanged when it does not parse. */
export function humanTimestamp(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return `${new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '')} UTC`;
}

/** Cuts text to `max` characters (code points), saying how much was left out. */
export function truncate(text: string, max: number): { text: string; omitted: number; total: number } {
  const chars = Array.from(text);
  if (chars.length <= max) return { text, omitted: 0, total: chars.length };
  return { text: chars.slice(0, max).join(''), omitted: chars.length - max, total: chars.length };
}

/** Section ids in reading order: `1` < `2` < `4.5` < `4.10` < `10`. */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = Number(x);
    const ny = Number(y);
    const byNumber = Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : 0;
    if (byNumber !== 0) return byNumber;
    const byText = x.localeCompare(y);
    if (byText !== 0) return byText;
  }
  return 0;
}

/** `a, b and c`. */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
