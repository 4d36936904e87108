/**
 * Makes whatever a run produced safe for the report writers. A check builds
 * its failure from what a target answered, and a target can answer anything:
 * a missing field (`undefined`), a number where text was expected, an object
 * that refers to itself. The writers must still write all three reports
 * (issue 15: "whatever a target answers, the run writes all three reports"),
 * so every value is turned into plain JSON here, and every field the report
 * types declare as text becomes text.
 */
import type { CheckResult, Exchange, Failure, RunReport } from '../conformance/types.ts';

/** How a value that is not text reads in a report: JSON where it has one, a name where it has none. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(nothing)';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return String(value);
  try {
    return JSON.stringify(plain(value)) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A deep copy of `value` that JSON can hold: cycles cut, bigints and functions as text, undefined dropped from objects. */
export function plain(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value === undefined) return null;
  if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') return asText(value);
  const object = value as object;
  if (seen.has(object)) return '[cyclic]';
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((v) => plain(v, seen));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(object)) if (v !== undefined) out[k] = plain(v, seen);
    return out;
  } finally {
    seen.delete(object);
  }
}

const optionalText = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : asText(v));
const number = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const headers = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(v !== null && typeof v === 'object' ? v : {}).map(([k, h]) => [k, asText(h)]));

function failure(v: unknown): Failure | undefined {
  if (v === undefined || v === null) return undefined;
  const f = v as Record<string, unknown>;
  const note = optionalText(f.note);
  const exchange = typeof f.exchange === 'number' && Number.isInteger(f.exchange) ? f.exchange : undefined;
  return {
    kind: asText(f.kind ?? 'Failure'), received: asText(f.received), documented: asText(f.documented), clause: asText(f.clause ?? ''),
    ...(note !== undefined ? { note } : {}), ...(exchange !== undefined ? { exchange } : {}),
  };
}

function exchange(v: unknown, i: number): Exchange {
  const e = (v ?? {}) as Record<string, unknown>;
  return {
    n: number(e.n, i + 1), method: asText(e.method ?? '?'), url: asText(e.url ?? '?'),
    requestHeaders: headers(e.requestHeaders), requestBody: optionalText(e.requestBody),
    status: number(e.status), responseHeaders: headers(e.responseHeaders), responseBody: asText(e.responseBody ?? ''), ms: number(e.ms),
    ...(typeof e.credential === 'string' ? { credential: e.credential } : {}),
  };
}

function result(v: unknown): CheckResult {
  const r = plain(v) as Record<string, any>;
  return {
    ...r,
    id: asText(r.id ?? '?'), title: asText(r.title ?? ''), suite: asText(r.suite ?? '?'),
    clauses: list(r.clauses).map(asText), level: r.level === 'assumption' ? 'assumption' : 'normative',
    outcome: (['passed', 'failed', 'not_applicable', 'skipped', 'errored'] as const).includes(r.outcome) ? r.outcome : 'errored',
    reason: optionalText(r.reason), failure: failure(r.failure), error: optionalText(r.error),
    property: r.property ? { ...r.property, seed: number(r.property.seed), numRuns: number(r.property.numRuns), path: optionalText(r.property.path), counterexample: optionalText(r.property.counterexample) } : undefined,
    exchanges: list(r.exchanges).map(exchange), replay: asText(r.replay ?? ''), curl: optionalText(r.curl), ms: number(r.ms),
  } as CheckResult;
}

/** The report as plain JSON with every text field text; the writers render this, never the raw report. */
export function sanitizeReport(report: RunReport): RunReport {
  const copy = plain(report) as Record<string, any>;
  return { ...copy, results: list(report.results).map(result) } as RunReport;
}
