/**
 * The conformance runner's vocabulary: targets and their capabilities,
 * checks with clause ids and a level, and the report a run produces.
 * Report writers (reports/) and the CLI depend only on these types.
 */

/** What a target lets checks do (issue: read, write, staff; burst: drive the partner rate limit to a 429, opt-in live). */
export type Capability = 'read' | 'write' | 'staff' | 'burst';

/** `normative`: the API document says so; `assumption`: relies on an x-assumption of spec/openapi.yaml. */
export type CheckLevel = 'normative' | 'assumption';

export type Outcome = 'passed' | 'failed' | 'not_applicable' | 'skipped' | 'errored';

/** One HTTP exchange as a check saw it, secrets redacted. */
export interface Exchange {
  n: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  ms: number;
}

/** What the document says versus what was received (Schemathesis-style failure). */
export interface Failure {
  /** A noun naming the breach: `UndefinedStatusCode`, `ReplayNotByteIdentical`. */
  kind: string;
  received: string;
  documented: string;
  clause: string;
}

export interface PropertyRun {
  seed: number;
  path?: string;
  numRuns: number;
  /** The shrunk counter-example as text, when the property failed. */
  counterexample?: string;
}

export interface CheckResult {
  id: string;
  title: string;
  suite: string;
  clauses: string[];
  level: CheckLevel;
  outcome: Outcome;
  /** Why the check was not applicable or skipped (e.g. "needs staff; the live target has read, write"). */
  reason?: string;
  failure?: Failure;
  /** Error text for `errored` (a bug in the check or an unreachable target). */
  error?: string;
  property?: PropertyRun;
  /** The exchanges of the failing run (the last ones, bounded). */
  exchanges: Exchange[];
  /** The exact command that replays this check (with seed and path when it is a property). */
  replay: string;
  ms: number;
}

export interface ClauseCoverage {
  id: string;
  title: string;
  section: string;
  /** Check ids proving the clause in this catalogue. */
  checks: string[];
  /** Outcome over the checks that ran: failed if any failed, passed if all applicable passed. */
  status: 'passed' | 'failed' | 'not_run' | 'uncovered';
}

export interface RunReport {
  runId: string;
  startedAt: string;
  finishedAt: string;
  target: { kind: 'in-process' | 'live'; baseUrl: string; capabilities: Capability[] };
  options: { suites: string[]; checks: string[]; runs: number; seed: number | null; normativeOnly: boolean; allowWrites: boolean };
  apiVersion: string;
  specDigest: string;
  results: CheckResult[];
  coverage: ClauseCoverage[];
  summary: { total: number; passed: number; failed: number; not_applicable: number; skipped: number; errored: number; ms: number };
}
