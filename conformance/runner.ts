/**
 * runConformance(): runs the catalogue against a target and returns a
 * report; assertConformance() throws when anything applicable failed.
 * Libraries return data; only the CLI prints and exits.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { didYouMean } from '../cli/nearest-name.ts';
import { loadClauses } from '../spec/clauses.ts';
import { API_VERSION } from '../spec/document-tables.ts';
import { catalogue } from './catalogue.ts';
import { TargetUnreachable } from './unreachable.ts';
import { CheckFailure, makeContext, NotApplicable, type CheckDefinition } from './check.ts';
import { preflight } from './preflight.ts';
import { SyncAllowance } from './sync-allowance.ts';
import { givenCredentials, replayCommand } from './replay.ts';
import { whatToAdd, type RunHas } from './what-to-add.ts';
import { didYouMeanCheck } from './nearest-check.ts';
import { CREDENTIAL_VARIABLES, type CredentialName } from './credential-variables.ts';
import { failingCurl } from './curl.ts';
import { targetFactory, type TargetFactory } from './targets.ts';
import { biteOf, shownToBite } from './bite.ts';
import { isPartial, verdictDetail } from './verdict.ts';
import { THROUGH_ASSUMPTION, type Capability, type CheckResult, type ClauseCoverage, type RunReport, type RunSummary } from './types.ts';

import type { ConformanceOptions } from './conformance-options.ts';

export type { ConformanceOptions } from './conformance-options.ts';

/** The run's target as the options name it; throws when they name none or two. */
export function chosenTarget(options: Pick<ConformanceOptions, 'target' | 'baseUrl' | 'apiKey'>): 'in-process' | 'live' {
  if (options.target !== undefined && options.target !== 'in-process') throw new Error(`target must be 'in-process' (or pass baseUrl for a deployment), got ${JSON.stringify(options.target)}`);
  if (options.target === 'in-process' && options.baseUrl) throw new Error("pass either target: 'in-process' or baseUrl, not both");
  if (options.target === 'in-process') return 'in-process';
  if (typeof options.baseUrl === 'string' && options.baseUrl.trim() !== '') {
    if (!options.apiKey) throw new Error('baseUrl needs apiKey: the integration\'s API key (unset PARTNER_API_KEY?)');
    return 'live';
  }
  throw new Error("no target: pass baseUrl (and apiKey) for a deployment, or target: 'in-process' for the built-in simulator (an unset environment variable is not a target)");
}

const SPEC_URL = new URL('../spec/openapi.yaml', import.meta.url);

export function selectChecks(all: CheckDefinition[], options: Pick<ConformanceOptions, 'suites' | 'checks'>): CheckDefinition[] {
  const unknownSuite = options.suites?.find((s) => !all.some((c) => c.suite === s));
  if (unknownSuite) throw new Error(`unknown suite "${unknownSuite}"${didYouMean(unknownSuite, [...new Set(all.map((c) => c.suite))])} (suites: ${[...new Set(all.map((c) => c.suite))].join(', ')})`);
  const unknownCheck = options.checks?.find((id) => !all.some((c) => c.id === id));
  if (unknownCheck) throw new Error(`unknown check "${unknownCheck}"${didYouMeanCheck(unknownCheck, all.map((c) => c.id))} (--list shows them all)`);
  return all.filter((c) => (!options.suites?.length || options.suites.includes(c.suite)) && (!options.checks?.length || options.checks.includes(c.id)));
}

export async function runConformance(options: ConformanceOptions = {}): Promise<RunReport> {
  const kind = chosenTarget(options);
  if (options.requireApplicable !== undefined && !(options.requireApplicable > 0)) throw new Error(`requireApplicable must be a count ≥ 1 or a share between 0 and 1, got ${options.requireApplicable}`);
  const started = Date.now();
  const runId = `${new Date(started).toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
  // Non-negative, so the printed `--seed=N` parses everywhere (a leading '-' reads as a flag).
  const seed = options.seed ?? randomBytes(4).readUInt32LE(0) >>> 1;
  const runs = options.runs ?? 25;
  const checks = selectChecks(options.catalogue ?? catalogue(), options);
  // A setup mistake (dead host, wrong key, not this API) ends the run here as a SetupError, before any check is judged.
  const setup = kind === 'live' ? await preflight({ ...options, baseUrl: options.baseUrl!, apiKey: options.apiKey ?? '' }) : null;
  const factory = targetFactory(options, setup);
  const results: CheckResult[] = [];
  const replayBase = options.replayBase ?? replayCommand(options);
  let bookingsCreated = 0;
  // §8 L10: a live partner gets one accepted sync a day, so the checks of a run share it; in-process each check has a fresh world and its own.
  const syncAllowance = factory.kind === 'live' ? new SyncAllowance(true) : undefined;
  try {
    for (const check of checks) {
      const base = { id: check.id, title: check.title, suite: check.suite, clauses: check.clauses, level: check.level, exchanges: [], ms: 0 };
      const replay = `${replayBase} --check ${check.id} --seed=${seed}`;
      let result: CheckResult;
      const missing = check.needs.filter((n) => !factory.capabilities.includes(n));
      if (options.normativeOnly && check.level === 'assumption') {
        result = { ...base, outcome: 'skipped', reason: 'relies on an x-assumption; left out by --normative-only', replay };
      } else if (missing.length > 0) {
        result = { ...base, outcome: 'not_applicable', reason: missingReason(missing, factory.capabilities), replay };
      } else if (options.timeBudgetSeconds !== undefined && Date.now() - started > options.timeBudgetSeconds * 1000) {
        result = { ...base, outcome: 'skipped', reason: `time budget of ${options.timeBudgetSeconds} s spent`, replay };
      } else {
        const ran = await runOne(check, factory, { runId, runs, seed, path: options.path, live: factory.kind === 'live', replay, syncAllowance });
        result = ran.result;
        bookingsCreated += ran.bookingsCreated;
      }
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    await factory.dispose();
  }
  const clauses = coverage(options.catalogue ?? catalogue(), results);
  // In-process the simulator's demo world holds every credential and property a check may want.
  const has: RunHas = factory.kind === 'in-process'
    ? { kind: 'in-process', capabilities: factory.capabilities, properties: true, credentials: Object.keys(CREDENTIAL_VARIABLES) as CredentialName[] }
    : { kind: 'live', capabilities: factory.capabilities, properties: (options.properties?.length ?? 0) > 0, credentials: givenCredentials(options) };
  const summary = {
    ...summarise(results, clauses, { ms: Date.now() - started, bookingsCreated, requireApplicable: options.requireApplicable, failOnNotApplicable: options.failOnNotApplicable ?? false, catalogueChecks: (options.catalogue ?? catalogue()).length }),
    what_to_add: whatToAdd(checks, results, has),
  };
  return {
    runId,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    target: { kind: factory.kind, baseUrl: factory.baseUrl, capabilities: factory.capabilities, ...(options.label !== undefined ? { label: options.label } : {}) },
    options: { suites: options.suites ?? [], checks: options.checks ?? [], runs, seed, normativeOnly: options.normativeOnly ?? false, allowWrites: options.allowWrites ?? false },
    apiVersion: API_VERSION,
    specDigest: createHash('sha256').update(readFileSync(SPEC_URL)).digest('hex'),
    results,
    coverage: clauses,
    summary,
  };
}

/**
 * Counts, how much the run proved, and the verdict. `passed` needs every
 * applicable check to pass AND the gate to hold: a run that proved too little
 * is `insufficient`, never green.
 */
export function summarise(results: CheckResult[], clauses: ClauseCoverage[], o: { ms: number; bookingsCreated: number; requireApplicable?: number; failOnNotApplicable: boolean; catalogueChecks?: number }): RunSummary {
  const count = { passed: 0, failed: 0, not_applicable: 0, skipped: 0, errored: 0 };
  for (const r of results) count[r.outcome] += 1;
  const applicable = count.passed + count.failed + count.errored;
  const gate: string[] = [];
  if (o.requireApplicable !== undefined) {
    const need = o.requireApplicable >= 1 ? Math.ceil(o.requireApplicable) : Math.ceil(o.requireApplicable * results.length);
    const what = o.requireApplicable >= 1 ? `${need}` : `${need} (${Math.round(o.requireApplicable * 100)}% of ${results.length})`;
    if (applicable < need) gate.push(`only ${applicable} of ${results.length} checks were applicable; --require-applicable asks for ${what}`);
  }
  if (o.failOnNotApplicable && count.not_applicable > 0) gate.push(`${count.not_applicable} check(s) not applicable and --fail-on-not-applicable is set`);
  const verdict: RunSummary['verdict'] = count.failed + count.errored > 0 ? 'failed' : gate.length > 0 || applicable === 0 ? 'insufficient' : 'passed';
  if (applicable === 0 && gate.length === 0) gate.push('no check was applicable: the run proved nothing');
  // Never fewer than were selected (a catalogue passed in by a test may be the selection itself).
  const catalogueChecks = Math.max(o.catalogueChecks ?? results.length, results.length);
  const proof = {
    total: results.length, ...count, ms: o.ms,
    applicable,
    clauses_proven: clauses.filter((c) => c.status === 'passed').length,
    clauses_total: clauses.length,
    clauses_testable: clauses.filter((c) => c.status !== 'untestable').length,
    clauses_through_assumption: clauses.filter((c) => c.status === 'not_run' && c.why?.startsWith(THROUGH_ASSUMPTION)).length,
    clauses_shown_to_bite: clauses.filter((c) => c.bite === 'shown').length,
    clauses_cited_only: clauses.filter((c) => c.bite === 'cited').length,
    bookings_created: o.bookingsCreated,
    verdict,
    gate,
    catalogue_checks: catalogueChecks,
  };
  const partial = isPartial(proof);
  return { ...proof, partial, verdict_detail: verdictDetail({ ...proof, partial }) };
}

/** Throws when any applicable check failed or errored (for a platform team's own test file). */
export async function assertConformance(options: ConformanceOptions = {}): Promise<RunReport> {
  const report = await runConformance(options);
  const bad = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored');
  if (bad.length > 0) {
    const lines = bad.map((r) => `${r.id}: ${r.failure ? `received ${r.failure.received}; documented ${r.failure.documented} (${r.failure.clause})` : r.error}\n  replay: ${r.replay}`);
    throw new Error(`${bad.length} conformance check(s) failed:\n${lines.join('\n')}`);
  }
  if (report.summary.verdict !== 'passed') throw new Error(`conformance run proved too little: ${report.summary.gate.join('; ')}`);
  return report;
}

/** One check on a target `factory` opens, judged as a run judges it (tests hand in a target over a simulator they slowed). */
export async function runOne(check: CheckDefinition, factory: Pick<TargetFactory, 'open'>, o: { runId: string; runs: number; seed: number; path?: string; live: boolean; replay: string; syncAllowance?: SyncAllowance }): Promise<{ result: CheckResult; bookingsCreated: number }> {
  const t0 = Date.now();
  const base = { id: check.id, title: check.title, suite: check.suite, clauses: check.clauses, level: check.level };
  let target;
  try {
    target = await factory.open();
  } catch (e) {
    return { result: { ...base, outcome: 'errored', error: `could not open the target: ${(e as Error).message}`, exchanges: [], replay: o.replay, ms: Date.now() - t0 }, bookingsCreated: 0 };
  }
  // What the opened target offers (in-process: the control actions its GET /capabilities lists) decides as the factory's list does.
  const missing = check.needs.filter((n) => !target.capabilities.includes(n));
  if (missing.length > 0) {
    await target.close();
    return { result: { ...base, outcome: 'not_applicable', reason: missingReason(missing, target.capabilities), exchanges: [], replay: o.replay, ms: Date.now() - t0 }, bookingsCreated: 0 };
  }
  const ctx = makeContext(target, { runId: o.runId, runs: o.runs, seed: o.seed, path: o.path, live: o.live, checkId: check.id, syncAllowance: o.syncAllowance });
  const judged = await judge(check, ctx, base, o.replay, t0);
  // A request a person can paste, beside the replay of the whole check (issue 27 item 5).
  const curl = judged.outcome === 'failed' || judged.outcome === 'errored' ? failingCurl(judged) : undefined;
  const result = curl === undefined ? judged : { ...judged, curl };
  return { result, bookingsCreated: ctx.log.bookingsCreated };
}

async function judge(check: CheckDefinition, ctx: ReturnType<typeof makeContext>, base: Pick<CheckResult, 'id' | 'title' | 'suite' | 'clauses' | 'level'>, replay: string, t0: number): Promise<CheckResult> {
  const o = { replay };
  const target = ctx.target;
  try {
    // Dates are the platform's: where its clock can be moved (an earlier check may have), read it first.
    if (ctx.control?.offers('clock.advance')) await ctx.control.advanceClock(0);
    // Free nights are read before a check that books, so its creates ask only for nights that are free now.
    if (check.needs.includes('write')) await ctx.stays.prime();
    await check.run(ctx);
    // A breach the check saw and did not rethrow is still a breach (issue 25 item 4).
    if (ctx.breach) throw ctx.breach;
    const schema = ctx.log.schemaProblems[0];
    if (schema) {
      return {
        ...base, outcome: 'failed', replay: o.replay, ms: Date.now() - t0, exchanges: ctx.log.exchanges.slice(-40),
        failure: { kind: 'ResponseSchemaViolation', received: `${schema.operation} answered ${schema.status}: ${schema.problems.join('; ')} (call #${schema.exchange})`, documented: 'every response matches spec/openapi.yaml for its operation and status', clause: '4.R2', exchange: schema.exchange },
      };
    }
    return { ...base, outcome: 'passed', exchanges: [], replay: o.replay, ms: Date.now() - t0 };
  } catch (e) {
    const exchanges = ctx.log.exchanges.slice(-40);
    // A breach recorded earlier is never turned into "not applicable" or an error by what went wrong after it.
    if (!(e instanceof CheckFailure) && ctx.breach) {
      const after = e instanceof Error ? e.message : String(e);
      const failure = { ...ctx.breach.failure, note: [ctx.breach.failure.note, `after the breach the check stopped: ${after.split('\n')[0]}`].filter(Boolean).join('; ') };
      e = new CheckFailure(failure, ctx.breach.property);
    }
    if (e instanceof CheckFailure) {
      const replay = e.property?.path ? `${o.replay} --path=${e.property.path}` : o.replay;
      return { ...base, outcome: 'failed', failure: e.failure, property: e.property, exchanges, replay, ms: Date.now() - t0 };
    }
    if (e instanceof NotApplicable) return { ...base, outcome: 'not_applicable', reason: e.message, exchanges: [], replay: o.replay, ms: Date.now() - t0 };
    // An unreachable target mid-run is named by its cause, not by a stack trace.
    const error = e instanceof TargetUnreachable ? e.message : (e as Error).stack ?? String(e);
    return { ...base, outcome: 'errored', error, exchanges, replay: o.replay, ms: Date.now() - t0 };
  } finally {
    for (const done of ctx.cleanup) await done().catch(() => undefined);
    await target.close();
  }
}


/**
 * Each clause of the catalogue: the checks that name it, what the run showed
 * of it, and whether it is shown to bite. A clause fails only where a failing
 * check judged that clause broken (its failure names it): one breach under
 * §4.6.R4 does not fail the six other clauses its check names, which another
 * check may have passed in the same run (issue 41 item 5).
 */
export function coverage(checks: CheckDefinition[], results: CheckResult[]): ClauseCoverage[] {
  const known = loadClauses();
  const ids = new Set(known.map((c) => c.id));
  const judgedBroken = new Map<string, string[]>();
  for (const r of results) {
    if (r.outcome !== 'failed') continue;
    for (const id of brokenClauses(r, ids)) judgedBroken.set(id, [...(judgedBroken.get(id) ?? []), r.id]);
  }
  return known.map((clause) => {
    const proving = checks.filter((c) => c.clauses.includes(clause.id)).map((c) => c.id);
    const ran = results.filter((r) => r.clauses.includes(clause.id) && (r.outcome === 'passed' || r.outcome === 'failed' || r.outcome === 'errored'));
    // A clause no check against a platform can observe is shown as such, with why, never as a gap.
    if (clause.untestable !== undefined && proving.length === 0 && !judgedBroken.has(clause.id)) return { id: clause.id, title: clause.title, section: clause.section, checks: [], status: 'untestable' as const, why: clause.untestable };
    const status: ClauseCoverage['status'] = judgedBroken.has(clause.id) ? 'failed'
      : proving.length === 0 ? 'uncovered'
      : ran.some((r) => r.outcome === 'passed') ? 'passed'
      : 'not_run';
    const why = status === 'not_run' && ran.length > 0 ? { why: `not judged: ${ran.map((r) => r.id).join(', ')} ${ran.length > 1 ? 'were' : 'was'} stopped by ${ran.every((r) => r.outcome === 'errored') ? 'an error' : 'a failure under another clause or an error'} before judging it` }
      : status === 'not_run' && clause.observedThrough !== undefined ? { why: `${THROUGH_ASSUMPTION}${clause.observedThrough}` } : {};
    const bite = proving.length === 0 ? {} : { bite: shownToBite(biteOf(clause.id, proving)) ? 'shown' as const : 'cited' as const };
    return { id: clause.id, title: clause.title, section: clause.section, checks: proving, status, ...why, ...bite };
  });
}

/**
 * The clauses a failed check judged broken: those its failure names; a
 * failure naming no clause of the catalogue (a property that failed without
 * one) stands against every clause its check names.
 */
function brokenClauses(r: CheckResult, ids: Set<string>): string[] {
  const named = (r.failure?.clause ?? '').split(/[\s,;]+/).filter((id) => ids.has(id));
  return named.length > 0 ? named : r.clauses;
}

/** Why a check cannot run here, naming each missing capability and the option or control action that grants it. */
export function missingReason(missing: Capability[], has: Capability[]): string {
  const HOW: Record<string, string> = { write: '--allow-writes', sync: '--allow-sync', burst: '--allow-burst' };
  const plain = missing.filter((n) => !n.startsWith('control:'));
  const actions = missing.filter((n) => n.startsWith('control:')).map((n) => n.slice('control:'.length));
  const offered = has.filter((n) => n.startsWith('control:')).length;
  const parts = plain.map((n) => HOW[n] ? `${n} (${HOW[n]})` : n);
  if (actions.length > 0) {
    parts.push(`control actions ${actions.join(', ')} (${offered === 0 ? 'no control plane: --control-url and --control-token, spec/control-openapi.yaml' : 'not offered by the control plane'})`);
  }
  return `needs ${parts.join('; ')}`;
}
