/**
 * runConformance(): runs the catalogue against a target and returns a
 * report; assertConformance() throws when anything applicable failed.
 * Libraries return data; only the CLI prints and exits.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadClauses } from '../spec/clauses.ts';
import { catalogue } from './catalogue.ts';
import { CheckFailure, makeContext, NotApplicable, type CheckDefinition } from './check.ts';
import { targetFactory, type TargetConfig } from './targets.ts';
import type { CheckResult, ClauseCoverage, RunReport } from './types.ts';

export interface ConformanceOptions extends TargetConfig {
  suites?: string[];
  checks?: string[];
  /** fast-check runs per property (default 25). */
  runs?: number;
  seed?: number;
  path?: string;
  normativeOnly?: boolean;
  timeBudgetSeconds?: number;
  onResult?: (result: CheckResult) => void;
  /** The checks to run instead of the built-in catalogue (tests). */
  catalogue?: CheckDefinition[];
}

const SPEC_URL = new URL('../spec/openapi.yaml', import.meta.url);

export function selectChecks(all: CheckDefinition[], options: Pick<ConformanceOptions, 'suites' | 'checks'>): CheckDefinition[] {
  const unknownSuite = options.suites?.find((s) => !all.some((c) => c.suite === s));
  if (unknownSuite) throw new Error(`unknown suite "${unknownSuite}" (suites: ${[...new Set(all.map((c) => c.suite))].join(', ')})`);
  const unknownCheck = options.checks?.find((id) => !all.some((c) => c.id === id));
  if (unknownCheck) throw new Error(`unknown check "${unknownCheck}"`);
  return all.filter((c) => (!options.suites?.length || options.suites.includes(c.suite)) && (!options.checks?.length || options.checks.includes(c.id)));
}

export async function runConformance(options: ConformanceOptions = {}): Promise<RunReport> {
  const started = Date.now();
  const runId = `${new Date(started).toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
  const seed = options.seed ?? randomBytes(4).readInt32LE(0);
  const runs = options.runs ?? 25;
  const factory = targetFactory(options);
  const checks = selectChecks(options.catalogue ?? catalogue(), options);
  const results: CheckResult[] = [];
  const replayBase = replayCommand(options);
  try {
    for (const check of checks) {
      const base = { id: check.id, title: check.title, suite: check.suite, clauses: check.clauses, level: check.level, exchanges: [], ms: 0 };
      const replay = `${replayBase} --check ${check.id} --seed ${seed}`;
      let result: CheckResult;
      const missing = check.needs.filter((n) => !factory.capabilities.includes(n));
      if (options.normativeOnly && check.level === 'assumption') {
        result = { ...base, outcome: 'skipped', reason: 'relies on an x-assumption; left out by --normative-only', replay };
      } else if (missing.length > 0) {
        result = { ...base, outcome: 'not_applicable', reason: `needs ${missing.join(', ')}; the ${factory.kind} target has ${factory.capabilities.join(', ')}${missing.includes('write') && factory.kind === 'live' ? ' (pass --allow-writes)' : ''}`, replay };
      } else if (options.timeBudgetSeconds !== undefined && Date.now() - started > options.timeBudgetSeconds * 1000) {
        result = { ...base, outcome: 'skipped', reason: `time budget of ${options.timeBudgetSeconds} s spent`, replay };
      } else {
        result = await runOne(check, factory, { runId, runs, seed, path: options.path, live: factory.kind === 'live', replay });
      }
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    await factory.dispose();
  }
  const summary = { total: results.length, passed: 0, failed: 0, not_applicable: 0, skipped: 0, errored: 0, ms: Date.now() - started };
  for (const r of results) summary[r.outcome] += 1;
  return {
    runId,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    target: { kind: factory.kind, baseUrl: factory.baseUrl, capabilities: factory.capabilities },
    options: { suites: options.suites ?? [], checks: options.checks ?? [], runs, seed, normativeOnly: options.normativeOnly ?? false, allowWrites: options.allowWrites ?? false },
    apiVersion: '2026-09',
    specDigest: createHash('sha256').update(readFileSync(SPEC_URL)).digest('hex'),
    results,
    coverage: coverage(options.catalogue ?? catalogue(), results),
    summary,
  };
}

/** Throws when any applicable check failed or errored (for a platform team's own test file). */
export async function assertConformance(options: ConformanceOptions = {}): Promise<RunReport> {
  const report = await runConformance(options);
  const bad = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored');
  if (bad.length > 0) {
    const lines = bad.map((r) => `${r.id}: ${r.failure ? `received ${r.failure.received}; documented ${r.failure.documented} (${r.failure.clause})` : r.error}\n  replay: ${r.replay}`);
    throw new Error(`${bad.length} conformance check(s) failed:\n${lines.join('\n')}`);
  }
  return report;
}

async function runOne(check: CheckDefinition, factory: ReturnType<typeof targetFactory>, o: { runId: string; runs: number; seed: number; path?: string; live: boolean; replay: string }): Promise<CheckResult> {
  const t0 = Date.now();
  const base = { id: check.id, title: check.title, suite: check.suite, clauses: check.clauses, level: check.level };
  let target;
  try {
    target = await factory.open();
  } catch (e) {
    return { ...base, outcome: 'errored', error: `could not open the target: ${(e as Error).message}`, exchanges: [], replay: o.replay, ms: Date.now() - t0 };
  }
  const ctx = makeContext(target, { runId: o.runId, runs: o.runs, seed: o.seed, path: o.path, live: o.live });
  try {
    await check.run(ctx);
    const schema = ctx.log.schemaProblems[0];
    if (schema) {
      return {
        ...base, outcome: 'failed', replay: o.replay, ms: Date.now() - t0, exchanges: ctx.log.exchanges.slice(-40),
        failure: { kind: 'ResponseSchemaViolation', received: `${schema.operation} answered ${schema.status}: ${schema.problems.join('; ')} (call #${schema.exchange})`, documented: 'every response matches spec/openapi.yaml for its operation and status', clause: '4.R2' },
      };
    }
    return { ...base, outcome: 'passed', exchanges: [], replay: o.replay, ms: Date.now() - t0 };
  } catch (e) {
    const exchanges = ctx.log.exchanges.slice(-40);
    if (e instanceof CheckFailure) {
      const replay = e.property?.path ? `${o.replay} --path ${e.property.path}` : o.replay;
      return { ...base, outcome: 'failed', failure: e.failure, property: e.property, exchanges, replay, ms: Date.now() - t0 };
    }
    if (e instanceof NotApplicable) return { ...base, outcome: 'not_applicable', reason: e.message, exchanges: [], replay: o.replay, ms: Date.now() - t0 };
    return { ...base, outcome: 'errored', error: (e as Error).stack ?? String(e), exchanges, replay: o.replay, ms: Date.now() - t0 };
  } finally {
    for (const done of ctx.cleanup) await done().catch(() => undefined);
    await target.close();
  }
}

function coverage(checks: CheckDefinition[], results: CheckResult[]): ClauseCoverage[] {
  return loadClauses().map((clause) => {
    const proving = checks.filter((c) => c.clauses.includes(clause.id)).map((c) => c.id);
    const ran = results.filter((r) => r.clauses.includes(clause.id) && (r.outcome === 'passed' || r.outcome === 'failed' || r.outcome === 'errored'));
    const status: ClauseCoverage['status'] = proving.length === 0 ? 'uncovered'
      : ran.length === 0 ? 'not_run'
      : ran.some((r) => r.outcome !== 'passed') ? 'failed' : 'passed';
    return { id: clause.id, title: clause.title, section: clause.section, checks: proving, status };
  });
}

function replayCommand(o: ConformanceOptions): string {
  const parts = ['npm run conformance --'];
  if (o.baseUrl) parts.push(`--target ${o.baseUrl} --api-key <API_KEY>`);
  if (o.allowWrites) parts.push('--allow-writes');
  if (o.runs) parts.push(`--runs ${o.runs}`);
  if (o.fault) parts.push(`--fault ${o.fault} --enable-faults`);
  return parts.join(' ');
}
