/**
 * The conformance runner's vocabulary: targets and their capabilities,
 * checks with clause ids and a level, and the report a run produces.
 * Report writers (reporting/) and the CLI depend only on these types.
 */

/**
 * What a target lets checks do: `read` always; `write` creates bookings
 * (live: --allow-writes); `sync` spends the daily full-sync allowance
 * (--allow-sync); `burst` drives the rate limit to a 429 (--allow-burst);
 * `control:<action>` a platform action of the control plane
 * (spec/control-openapi.yaml; live: --control-url, as far as it offers them).
 */
export type Capability = 'read' | 'write' | 'sync' | 'burst' | `control:${string}`;

/**
 * What a check may need from the run's options beyond its capabilities,
 * depending on what the platform already holds (an empty event log needs
 * `write` to make events; a foreign-property check needs `otherApiKey`). Not
 * checked before the check runs: the check decides at run time and is not
 * applicable without it; a run uses it to say what to add
 * (conformance/what-to-add.ts).
 */
export type Want = 'write' | 'property' | 'otherApiKey' | 'disabledApiKey' | 'nonIntegrationToken';

/**
 * One thing to add to a run's options: a capability (`write`, `sync`,
 * `burst`), the control plane (`control`) or one action it does not offer
 * (`control:<action>`), a property (`property`) or a credential.
 */
export type Addition = Exclude<Capability, 'read'> | 'control' | 'property' | 'otherApiKey' | 'disabledApiKey' | 'nonIntegrationToken';

/** Not-applicable checks that the same additions would make applicable. */
export interface AdditionGroup {
  /** What to add (empty: nothing the options can give; the platform held no data they could judge). */
  add: Addition[];
  /** The options or settings to add, in words: `--allow-writes --property ID`. */
  label: string;
  /** The checks it would make applicable. */
  checks: string[];
}

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
  /**
   * The environment variable holding the credential this request's
   * Authorization header carried, when it was one of the run's own
   * (`PARTNER_API_KEY`, `PARTNER_OTHER_API_KEY`, …): the header shows it
   * redacted, and a curl of the request names the variable instead.
   */
  credential?: string;
}

/** What the document says versus what was received (Schemathesis-style failure). */
export interface Failure {
  /** A noun naming the breach: `UndefinedStatusCode`, `ReplayNotByteIdentical`. */
  kind: string;
  received: string;
  documented: string;
  clause: string;
  /** What else the reader should know: shrinking cut short, a credential that may be wrong as well. */
  note?: string;
  /** The call (`Exchange.n`) the breach was judged on: the last one the check had made when it failed. */
  exchange?: number;
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
  /** Why the check was not applicable or skipped (e.g. "needs control actions rates.set (no control plane: --control-url …)"). */
  reason?: string;
  failure?: Failure;
  /** Error text for `errored` (a bug in the check or an unreachable target). */
  error?: string;
  property?: PropertyRun;
  /** The exchanges of the failing run (the last ones, bounded). */
  exchanges: Exchange[];
  /**
   * The exact command that replays this check (with seed and path when it is
   * a property), naming every credential by the environment variable it is read from.
   */
  replay: string;
  /** A failed check's failing request as a curl command, credentials as shell variables (conformance/curl.ts). */
  curl?: string;
  ms: number;
}

/** How a clause's `why` begins when it can be observed only through an x-assumption whose checks did not run. */
export const THROUGH_ASSUMPTION = 'observable only through an assumption: ';

export interface ClauseCoverage {
  id: string;
  title: string;
  section: string;
  /** Check ids proving the clause in this catalogue. */
  checks: string[];
  /**
   * `failed` where a failing check judged this clause broken (its failure
   * names the clause); else `passed` where a check naming it passed; else
   * `not_run` (a check that errored, or failed under another clause, judged
   * nothing about it).
   */
  status: 'passed' | 'failed' | 'not_run' | 'uncovered' | 'untestable';
  /**
   * For `untestable`: why no check against a platform can observe it; for a
   * clause observable only through an x-assumption whose checks did not run
   * (a --normative-only run): through which one (spec/clauses.yaml); for a
   * clause whose checks ran but judged nothing about it: why.
   */
  why?: string;
  /**
   * For a clause with checks: `shown` when a check naming it has caught a
   * deliberate breach under it (a simulator fault or a mutant, committed in
   * conformance/bite-evidence.ts), else `cited`: named, not shown to bite.
   */
  bite?: 'shown' | 'cited';
}

export interface RunReport {
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** `label`: the deployment's name given with --label (a merged report names its column by it). */
  target: { kind: 'in-process' | 'live'; baseUrl: string; capabilities: Capability[]; label?: string };
  options: { suites: string[]; checks: string[]; runs: number; seed: number | null; normativeOnly: boolean; allowWrites: boolean };
  apiVersion: string;
  specDigest: string;
  results: CheckResult[];
  coverage: ClauseCoverage[];
  summary: RunSummary;
}

/** Counts by outcome, and how much the run proved. */
export interface RunSummary {
  total: number;
  passed: number;
  failed: number;
  not_applicable: number;
  skipped: number;
  errored: number;
  ms: number;
  /** Checks that ran (passed + failed + errored). */
  applicable: number;
  /** Clauses of the catalogue whose every applicable check passed. */
  clauses_proven: number;
  clauses_total: number;
  /** Clauses a check against a platform can observe (the others are `untestable` in the coverage, each with why). */
  clauses_testable: number;
  /** Testable clauses left unproven because they can be observed only through an x-assumption and no check relying on it ran. */
  clauses_through_assumption: number;
  /** Clauses with checks that a check naming them has been shown to bite on (a fault or mutant caught under the clause). */
  clauses_shown_to_bite: number;
  /** Clauses with checks none of which has been shown to bite on them: cited, not shown to bite. */
  clauses_cited_only: number;
  /** Bookings the run created on the target (they stay: partners cannot cancel). */
  bookings_created: number;
  /** `passed` only when every applicable check passed and the gate held; `insufficient` when the run proved too little. */
  verdict: 'passed' | 'failed' | 'insufficient';
  /** Why the gate did not hold (empty when it did). */
  gate: string[];
  /** Checks in the catalogue the run drew from, whatever --suite, --check or the target left out (`total` is the selected ones). */
  catalogue_checks: number;
  /** A passed run that proved less than the whole catalogue: fewer checks applicable than `catalogue_checks`. */
  partial: boolean;
  /** The verdict with how much it proved, as the console, index.html and junit.xml lead with it: `passed, partial: 9 of 82 checks applicable, …` (conformance/verdict.ts). */
  verdict_detail: string;
  /**
   * The not-applicable checks grouped by what to add to the run's options to
   * make them applicable, from their declared needs and wants, largest group
   * first (absent from a merged report and from report.json files written
   * before it existed).
   */
  what_to_add?: AdditionGroup[];
}

/** One deployment's run inside a merged report: where it came from and how it went. */
export interface MergedDeployment {
  /** The column name: the run's --label, else its target URL without scheme and API root. */
  label: string;
  /** The report.json it was read from, as given on the command line. */
  source: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  target: RunReport['target'];
  options: RunReport['options'];
  summary: RunSummary;
}

/** A check's result on one deployment: the run's CheckResult without what every deployment shares. */
export type DeploymentResult = Omit<CheckResult, 'id' | 'title' | 'suite' | 'clauses' | 'level'>;

/** A check across deployments. */
export interface MergedResult extends Pick<CheckResult, 'id' | 'title' | 'suite' | 'clauses' | 'level'> {
  /**
   * The worst outcome where the check ran (failed, then errored, then
   * passed); not_applicable or skipped when it ran on no deployment.
   */
  outcome: Outcome;
  /** Keyed by deployment label; a deployment whose run did not select the check has no entry. */
  deployments: Record<string, DeploymentResult>;
}

/** A clause across deployments. */
export interface MergedCoverage extends ClauseCoverage {
  /**
   * `failed` if it failed on any deployment; `passed` only when proven on
   * every one; `uncovered` or `untestable` as the catalogue says; otherwise
   * `not_run`, with `why` naming where it was proven and where not.
   */
  status: ClauseCoverage['status'];
  /** Keyed by deployment label. */
  deployments: Record<string, ClauseCoverage['status']>;
}

/**
 * Several runs of one API version and suite (`conformance --merge`), a column
 * per deployment. `summary` adds up the deployments' checks and counts a
 * clause proven only when every deployment proved it; the verdict is failed
 * if any run failed, else insufficient if any was, else passed.
 */
export interface MergedReport {
  kind: 'merged';
  /** Names the report directory, like a run id (`merged-<timestamp>-<hex>`). */
  runId: string;
  /** The earliest start and the latest finish of the runs. */
  startedAt: string;
  finishedAt: string;
  apiVersion: string;
  specDigest: string;
  deployments: MergedDeployment[];
  results: MergedResult[];
  coverage: MergedCoverage[];
  summary: RunSummary;
}
