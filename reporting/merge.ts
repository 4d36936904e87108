/**
 * `conformance --merge`: several runs of one API version and suite, each
 * against its own deployment, as one report with a column per deployment.
 * Pure: the runs come in as data (reporting/merge-sources.ts reads them), the
 * merged report goes out as data (reporting/write.ts writes it).
 */
import { catalogueChecks, isPartial, verdictDetail } from '../conformance/verdict.ts';
import {
  THROUGH_ASSUMPTION,
  type ClauseCoverage,
  type MergedCoverage,
  type MergedDeployment,
  type MergedReport,
  type MergedResult,
  type Outcome,
  type RunReport,
  type RunSummary,
} from '../conformance/types.ts';
import { listOf } from './format.ts';

/** A run that cannot be merged with the others; the CLI prints it as a usage error (exit 2). */
export class MergeError extends Error {}

export interface MergeInput {
  report: RunReport;
  /** Where the report was read from, as the user named it (shown in messages and recorded in the merged report). */
  source: string;
}

/** The name of a run's column: its --label, else its target URL without the scheme and the API root. */
export function deploymentLabel(report: RunReport): string {
  const label = report.target.label?.trim();
  if (label) return label;
  if (report.target.kind === 'in-process') return 'in-process';
  return report.target.baseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/api\/integrations\/v1\/?$/, '');
}

/** Worst first: a check's merged outcome is the first of these any deployment had. */
const OUTCOME_RANK: readonly Outcome[] = ['failed', 'errored', 'passed', 'not_applicable', 'skipped'];

/**
 * One report of the runs, deployments in the order given. Throws MergeError
 * when the runs cannot stand side by side: none, different API versions or
 * suite versions (spec digests), or two with the same label.
 */
export function mergeReports(inputs: readonly MergeInput[], mergeId: string): MergedReport {
  if (inputs.length === 0) throw new MergeError('--merge needs at least one run directory');
  const first = inputs[0]!.report;
  const versions = new Set(inputs.map((i) => i.report.apiVersion));
  if (versions.size > 1) {
    throw new MergeError(`--merge: the runs test different API versions (${inputs.map((i) => `${i.source}: ${i.report.apiVersion}`).join(', ')}); merge runs of one version`);
  }
  const digests = new Set(inputs.map((i) => i.report.specDigest));
  if (digests.size > 1) {
    throw new MergeError(`--merge: the runs come from different versions of the suite (spec digests ${inputs.map((i) => `${i.source}: ${i.report.specDigest.slice(0, 12)}`).join(', ')}); their clauses cannot be compared, so run every deployment with one version`);
  }
  const deployments: MergedDeployment[] = [];
  const bySource = new Map<string, string>();
  for (const { report, source } of inputs) {
    const label = deploymentLabel(report);
    // Labels key the per-deployment maps of the merged report.
    if (label === '__proto__') throw new MergeError(`--merge ${source}: "__proto__" cannot name a deployment; run it with another --label`);
    const earlier = bySource.get(label);
    if (earlier !== undefined) {
      throw new MergeError(`--merge: ${earlier} and ${source} both name the deployment "${label}"${report.runId === deployments.find((d) => d.label === label)?.runId ? ' (the same run given twice)' : ''}; merge one run per deployment, or give each run its own --label`);
    }
    bySource.set(label, source);
    deployments.push({ label, source, runId: report.runId, startedAt: report.startedAt, finishedAt: report.finishedAt, target: report.target, options: report.options, summary: report.summary });
  }
  const results = mergeResults(inputs.map((i) => i.report), deployments);
  const coverage = mergeCoverage(inputs.map((i) => i.report), deployments);
  const times = inputs.map((i) => i.report);
  return {
    kind: 'merged',
    runId: mergeId,
    startedAt: times.map((r) => r.startedAt).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a)),
    finishedAt: times.map((r) => r.finishedAt).reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a)),
    apiVersion: first.apiVersion,
    specDigest: first.specDigest,
    deployments,
    results,
    coverage,
    summary: mergeSummary(deployments, coverage),
  };
}

/** Checks in the order of the first run that has them (runs may select different suites). */
function mergeResults(reports: RunReport[], deployments: MergedDeployment[]): MergedResult[] {
  const merged = new Map<string, MergedResult>();
  reports.forEach((report, i) => {
    const label = deployments[i]!.label;
    for (const r of report.results) {
      const { id, title, suite, clauses, level, ...cell } = r;
      let entry = merged.get(id);
      if (!entry) {
        entry = { id, title, suite, clauses, level, outcome: r.outcome, deployments: {} };
        merged.set(id, entry);
      }
      entry.deployments[label] = cell;
    }
  });
  for (const entry of merged.values()) {
    const outcomes = Object.values(entry.deployments).map((c) => c.outcome);
    entry.outcome = OUTCOME_RANK.find((o) => outcomes.includes(o)) ?? entry.outcome;
  }
  return [...merged.values()];
}

function mergeCoverage(reports: RunReport[], deployments: MergedDeployment[]): MergedCoverage[] {
  const byId = new Map<string, { clause: ClauseCoverage; cells: Map<string, ClauseCoverage> }>();
  reports.forEach((report, i) => {
    for (const c of report.coverage) {
      const entry = byId.get(c.id) ?? { clause: c, cells: new Map<string, ClauseCoverage>() };
      entry.cells.set(deployments[i]!.label, c);
      byId.set(c.id, entry);
    }
  });
  return [...byId.values()].map(({ clause, cells }) => {
    const statuses: Record<string, ClauseCoverage['status']> = {};
    for (const d of deployments) {
      const cell = cells.get(d.label);
      if (cell) statuses[d.label] = cell.status;
    }
    const { status, why } = overallStatus(deployments.map((d) => d.label), cells);
    const { why: _ignored, ...rest } = clause;
    return { ...rest, status, ...(why !== undefined ? { why } : {}), deployments: statuses };
  });
}

/** The clause across deployments: failed anywhere, proven everywhere, or in between (not_run, saying where). */
function overallStatus(labels: string[], cells: Map<string, ClauseCoverage>): { status: ClauseCoverage['status']; why?: string } {
  const present = labels.filter((l) => cells.has(l));
  const status = (l: string) => cells.get(l)?.status;
  if (present.some((l) => status(l) === 'failed')) return { status: 'failed' };
  const all = (s: ClauseCoverage['status']) => present.length === labels.length && present.every((l) => status(l) === s);
  if (all('passed')) return { status: 'passed' };
  for (const s of ['untestable', 'uncovered'] as const) {
    if (all(s)) {
      const whys = new Set(present.map((l) => cells.get(l)?.why));
      return { status: s, ...(whys.size === 1 && [...whys][0] !== undefined ? { why: [...whys][0] } : {}) };
    }
  }
  const proven = labels.filter((l) => status(l) === 'passed');
  if (proven.length > 0) return { status: 'not_run', why: `proven on ${listOf(proven)} only; not on ${listOf(labels.filter((l) => status(l) !== 'passed'))}` };
  // Unproven everywhere: keep the runs' reason when they agree (a --normative-only run's "through an assumption").
  const whys = new Set(labels.map((l) => cells.get(l)?.why));
  const why = whys.size === 1 ? [...whys][0] : undefined;
  return { status: 'not_run', ...(why !== undefined ? { why } : {}) };
}

/**
 * Checks add up over deployments (a check run on three deployments counts
 * three times); a clause counts as proven only when every deployment proved
 * it. Failed if any run failed, else insufficient if any run was, else passed.
 */
function mergeSummary(deployments: MergedDeployment[], coverage: MergedCoverage[]): RunSummary {
  const sum = (pick: (s: RunSummary) => number) => deployments.reduce((n, d) => n + pick(d.summary), 0);
  const verdicts = deployments.map((d) => d.summary.verdict);
  const verdict: RunSummary['verdict'] = verdicts.includes('failed') ? 'failed' : verdicts.includes('insufficient') ? 'insufficient' : 'passed';
  const proof = {
    total: sum((s) => s.total),
    passed: sum((s) => s.passed),
    failed: sum((s) => s.failed),
    not_applicable: sum((s) => s.not_applicable),
    skipped: sum((s) => s.skipped),
    errored: sum((s) => s.errored),
    ms: sum((s) => s.ms),
    applicable: sum((s) => s.applicable),
    clauses_proven: coverage.filter((c) => c.status === 'passed').length,
    clauses_total: coverage.length,
    clauses_testable: coverage.filter((c) => c.status !== 'untestable').length,
    clauses_through_assumption: coverage.filter((c) => c.status === 'not_run' && c.why?.startsWith(THROUGH_ASSUMPTION)).length,
    clauses_shown_to_bite: coverage.filter((c) => c.bite === 'shown').length,
    clauses_cited_only: coverage.filter((c) => c.bite === 'cited').length,
    bookings_created: sum((s) => s.bookings_created),
    verdict,
    gate: deployments.flatMap((d) => d.summary.gate.map((g) => `${d.label}: ${g}`)),
    // Checks add up over deployments, so the catalogue does too: each deployment could have run all of it.
    catalogue_checks: sum((s) => catalogueChecks(s)),
  };
  const partial = isPartial(proof);
  return { ...proof, partial, verdict_detail: verdictDetail({ ...proof, partial }) };
}

/** One deployment's run as a RunReport again (for the writers that render a run: JUnit suites, failure details). */
export function deploymentReport(merged: MergedReport, label: string): RunReport {
  const d = merged.deployments.find((x) => x.label === label);
  if (!d) throw new Error(`no deployment "${label}" in the merged report`);
  return {
    runId: d.runId,
    startedAt: d.startedAt,
    finishedAt: d.finishedAt,
    target: d.target,
    options: d.options,
    apiVersion: merged.apiVersion,
    specDigest: merged.specDigest,
    results: merged.results.flatMap(({ id, title, suite, clauses, level, deployments }) => {
      const cell = deployments[label];
      return cell ? [{ id, title, suite, clauses, level, ...cell }] : [];
    }),
    coverage: merged.coverage.flatMap(({ deployments, status: _overall, why: _why, ...clause }) => {
      const status = deployments[label];
      return status ? [{ ...clause, status }] : [];
    }),
    summary: d.summary,
  };
}
