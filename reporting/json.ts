/**
 * report.json: the whole RunReport, pretty-printed with a fixed key order, so
 * two runs diff line by line whatever order the runner built objects in.
 */
import type { CheckResult, ClauseCoverage, Exchange, Failure, MergedCoverage, MergedDeployment, MergedReport, MergedResult, PropertyRun, RunReport } from '../conformance/types.ts';

// Every object's keys follow the declaration order of conformance/types.ts.
const REPORT_KEYS = ['runId', 'startedAt', 'finishedAt', 'target', 'options', 'apiVersion', 'specDigest', 'results', 'coverage', 'summary'] as const;
const TARGET_KEYS = ['kind', 'baseUrl', 'capabilities', 'label'] as const;
const OPTIONS_KEYS = ['suites', 'checks', 'runs', 'seed', 'normativeOnly', 'allowWrites'] as const;
const SUMMARY_KEYS = ['total', 'passed', 'failed', 'not_applicable', 'skipped', 'errored', 'ms', 'applicable', 'clauses_proven', 'clauses_total', 'clauses_testable', 'clauses_through_assumption', 'clauses_shown_to_bite', 'clauses_cited_only', 'bookings_created', 'verdict', 'gate', 'catalogue_checks', 'partial', 'verdict_detail', 'what_to_add'] as const;
const RESULT_KEYS = ['id', 'title', 'suite', 'clauses', 'level', 'outcome', 'reason', 'failure', 'error', 'property', 'exchanges', 'replay', 'curl', 'ms'] as const;
const FAILURE_KEYS = ['kind', 'received', 'documented', 'clause', 'note', 'exchange'] as const;
const PROPERTY_KEYS = ['seed', 'path', 'numRuns', 'counterexample'] as const;
const EXCHANGE_KEYS = ['n', 'method', 'url', 'requestHeaders', 'requestBody', 'status', 'responseHeaders', 'responseBody', 'ms', 'credential'] as const;
const COVERAGE_KEYS = ['id', 'title', 'section', 'checks', 'status', 'why', 'bite'] as const;
const MERGED_KEYS = ['kind', 'runId', 'startedAt', 'finishedAt', 'apiVersion', 'specDigest', 'deployments', 'results', 'coverage', 'summary'] as const;
const DEPLOYMENT_KEYS = ['label', 'source', 'runId', 'startedAt', 'finishedAt', 'target', 'options', 'summary'] as const;
const MERGED_RESULT_KEYS = ['id', 'title', 'suite', 'clauses', 'level', 'outcome', 'deployments'] as const;
const MERGED_COVERAGE_KEYS = [...COVERAGE_KEYS, 'deployments'] as const;

/** The fields of T a key list leaves out: `never` when the list is complete. */
type Missing<T, K extends readonly (keyof T)[]> = Exclude<keyof T, K[number]>;
// Compile-time guard: a field added to conformance/types.ts but not to a list above fails typechecking here.
const listsAreComplete: [
  Missing<RunReport, typeof REPORT_KEYS>,
  Missing<RunReport['target'], typeof TARGET_KEYS>,
  Missing<RunReport['options'], typeof OPTIONS_KEYS>,
  Missing<RunReport['summary'], typeof SUMMARY_KEYS>,
  Missing<CheckResult, typeof RESULT_KEYS>,
  Missing<Failure, typeof FAILURE_KEYS>,
  Missing<PropertyRun, typeof PROPERTY_KEYS>,
  Missing<Exchange, typeof EXCHANGE_KEYS>,
  Missing<ClauseCoverage, typeof COVERAGE_KEYS>,
  Missing<MergedReport, typeof MERGED_KEYS>,
  Missing<MergedDeployment, typeof DEPLOYMENT_KEYS>,
  Missing<MergedResult, typeof MERGED_RESULT_KEYS>,
  Missing<MergedCoverage, typeof MERGED_COVERAGE_KEYS>,
] extends never[] ? true : false = true;
void listsAreComplete;

/** Pretty JSON of the report (two-space indent, trailing newline); it parses back to an equal RunReport. */
export function renderJson(report: RunReport): string {
  return `${JSON.stringify(orderReport(report), null, 2)}\n`;
}

function orderReport(r: RunReport): RunReport {
  return ordered({
    ...r,
    target: ordered(r.target, TARGET_KEYS),
    options: ordered(r.options, OPTIONS_KEYS),
    results: r.results.map(orderResult),
    coverage: r.coverage.map((c) => ordered(c, COVERAGE_KEYS)),
    summary: ordered(r.summary, SUMMARY_KEYS),
  }, REPORT_KEYS);
}

/** Pretty JSON of a merged report, keys in the same fixed order as a run's. */
export function renderMergedJson(m: MergedReport): string {
  const merged = ordered({
    ...m,
    deployments: m.deployments.map((d) => ordered({
      ...d,
      target: ordered(d.target, TARGET_KEYS),
      options: ordered(d.options, OPTIONS_KEYS),
      summary: ordered(d.summary, SUMMARY_KEYS),
    }, DEPLOYMENT_KEYS)),
    results: m.results.map((r) => ordered({
      ...r,
      // A deployment's cell is a CheckResult without the shared fields; RESULT_KEYS orders what is left.
      deployments: Object.fromEntries(Object.entries(r.deployments).map(([label, cell]) => [label, orderResult(cell as CheckResult)])),
    }, MERGED_RESULT_KEYS)),
    coverage: m.coverage.map((c) => ordered(c, MERGED_COVERAGE_KEYS)),
    summary: ordered(m.summary, SUMMARY_KEYS),
  }, MERGED_KEYS);
  return `${JSON.stringify(merged, null, 2)}\n`;
}

function orderResult(r: CheckResult): CheckResult {
  return ordered({
    ...r,
    failure: r.failure && ordered(r.failure, FAILURE_KEYS),
    property: r.property && ordered(r.property, PROPERTY_KEYS),
    exchanges: r.exchanges.map((e) => ordered({ ...e, requestHeaders: sortedHeaders(e.requestHeaders), responseHeaders: sortedHeaders(e.responseHeaders) }, EXCHANGE_KEYS)),
  }, RESULT_KEYS);
}

/** Headers sorted by name, case-insensitively, so their order never shows up in a diff. */
function sortedHeaders(headers: Record<string, string>): Record<string, string> {
  const names = Object.keys(headers).sort((a, b) => compareText(a.toLowerCase(), b.toLowerCase()) || compareText(a, b));
  return Object.fromEntries(names.map((name) => [name, headers[name] ?? '']));
}

/**
 * A shallow copy of `obj` with `keys` first, in that order, then any fields
 * the types do not know in code-unit order; undefined fields are left out,
 * as JSON.stringify would.
 */
function ordered<T extends object>(obj: T, keys: readonly (keyof T & string)[]): T {
  const known = new Set<string>(keys);
  const extra = Object.keys(obj).filter((k) => !known.has(k)).sort(compareText);
  const out: Record<string, unknown> = {};
  for (const key of [...keys, ...extra]) {
    const value = (obj as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
