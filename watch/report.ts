/**
 * What watch saw, as a conformance run's report (conformance/types.ts
 * RunReport), so the suite's writers (reporting/write.ts) give the same three
 * files: report.json, junit.xml, index.html. Each watch rule is a result
 * (suite `watch-platform` or `watch-partner`): `passed` when it was observed
 * and held, `failed` with its first finding when observed and broken,
 * `not_applicable` when the traffic gave it nothing to judge. Each clause's
 * coverage says the same in words (`why`): observed and held, observed and
 * broken, not observed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { summarise } from '../conformance/runner.ts';
import type { CheckResult, ClauseCoverage, Exchange, RunReport, RunSummary } from '../conformance/types.ts';
import { isPartial, verdictDetail } from '../conformance/verdict.ts';
import { loadClauses } from '../spec/clauses.ts';
import { API_VERSION } from '../spec/document-tables.ts';
import type { WatchedExchange } from './exchange.ts';
import type { Judge } from './judge.ts';

const SPEC_URL = new URL('../spec/openapi.yaml', import.meta.url);

export interface WatchRunInfo {
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** The upstream URL, or `recording:` and the files judged. */
  source: string;
  /** The command that repeats the watch (a recording's, or the live flags without secrets). */
  replay: string;
  /** `--require-observed`: a count of rules (≥ 1) or a share of the judged sides' rules (0 < N < 1). */
  requireObserved?: number;
  /** Why the run cannot be taken as judged (watch/gate.ts): the verdict is insufficient, whatever held. */
  setupProblem?: string;
}

/** The exchange in the report's form (numbered within the finding). */
function asExchange(e: WatchedExchange, n: number): Exchange {
  return { n, method: e.kind === 'delivery' ? `${e.method} (delivery)` : e.method, url: e.path, requestHeaders: e.requestHeaders, requestBody: e.requestBody, status: e.status ?? 0, responseHeaders: e.responseHeaders, responseBody: e.responseBody, ms: e.ms };
}

/** The report of a watch: one result per rule of the sides judged, coverage per clause. */
export function watchReport(judge: Judge, info: WatchRunInfo): RunReport {
  const rules = judge.rules();
  const results: CheckResult[] = rules.map((rule) => {
    const tally = judge.tallies.get(rule.id)!;
    const base = { id: `watch.${rule.id}`, title: rule.title, suite: `watch-${rule.side}`, clauses: [...rule.clauses], level: 'normative' as const, replay: info.replay, ms: 0 };
    if (tally.broken > 0 && tally.first) {
      const f = tally.first;
      const more = tally.broken > 1 ? `${tally.broken} findings of this rule; the first is shown` : undefined;
      return { ...base, outcome: 'failed' as const, failure: { kind: f.kind, received: `${f.received} [${f.integration}]`, documented: f.documented, clause: f.clause, ...(more ? { note: more } : {}) }, exchanges: [asExchange(f.exchange, 1)] };
    }
    if (tally.observed > 0) return { ...base, outcome: 'passed' as const, exchanges: [] };
    return { ...base, outcome: 'not_applicable' as const, reason: 'not observed: the traffic held nothing this rule judges', exchanges: [] };
  });
  const coverage: ClauseCoverage[] = loadClauses().map((clause) => {
    const naming = rules.filter((r) => (r.clauses as readonly string[]).includes(clause.id));
    const checks = naming.map((r) => `watch.${r.id}`);
    if (naming.length === 0) {
      return clause.untestable !== undefined
        ? { id: clause.id, title: clause.title, section: clause.section, checks, status: 'untestable' as const, why: clause.untestable }
        : { id: clause.id, title: clause.title, section: clause.section, checks, status: 'uncovered' as const, why: 'watch has no rule for it' };
    }
    const broken = naming.reduce((n, r) => n + (judge.perClause.get(`${r.side} ${clause.id}`) ?? 0), 0);
    const observed = naming.some((r) => judge.tallies.get(r.id)!.observed > 0);
    if (broken > 0) return { id: clause.id, title: clause.title, section: clause.section, checks, status: 'failed' as const, why: `observed and broken (${broken} finding${broken === 1 ? '' : 's'})` };
    if (observed) return { id: clause.id, title: clause.title, section: clause.section, checks, status: 'passed' as const, why: 'observed and held' };
    return { id: clause.id, title: clause.title, section: clause.section, checks, status: 'not_run' as const, why: 'not observed' };
  });
  const ms = Date.parse(info.finishedAt) - Date.parse(info.startedAt);
  return {
    runId: info.runId,
    startedAt: info.startedAt,
    finishedAt: info.finishedAt,
    target: { kind: 'live', baseUrl: info.source, capabilities: ['read'], label: 'watch' },
    options: { suites: [...new Set(rules.map((r) => `watch-${r.side}`))], checks: [], runs: 0, seed: null, normativeOnly: false, allowWrites: false },
    apiVersion: API_VERSION,
    specDigest: createHash('sha256').update(readFileSync(SPEC_URL)).digest('hex'),
    results,
    coverage,
    summary: gated(summarise(results, coverage, { ms: Number.isFinite(ms) ? ms : 0, bookingsCreated: 0, failOnNotApplicable: false }), info),
  };
}

/** The summary with watch's own gates: `--require-observed` (in rules, as `--require-applicable` is in checks) and a setup problem. */
function gated(summary: RunSummary, info: WatchRunInfo): RunSummary {
  const gate = [...summary.gate.filter((g) => !g.startsWith('no check was applicable'))];
  if (info.setupProblem !== undefined) gate.unshift(info.setupProblem);
  const n = info.requireObserved;
  if (n !== undefined) {
    const need = n >= 1 ? Math.ceil(n) : Math.ceil(n * summary.total);
    if (summary.applicable < need) gate.push(`only ${summary.applicable} of ${summary.total} rules were observed; --require-observed asks for ${n >= 1 ? need : `${need} (${Math.round(n * 100)}% of ${summary.total})`}`);
  }
  if (summary.applicable === 0 && gate.length === 0) gate.push('no rule was observed: the traffic proved nothing');
  const verdict: RunSummary['verdict'] = summary.verdict === 'failed' ? 'failed' : gate.length > 0 ? 'insufficient' : summary.verdict;
  const proof = { ...summary, verdict, gate };
  const partial = isPartial(proof);
  return { ...proof, partial, verdict_detail: verdictDetail({ ...proof, partial }) };
}
