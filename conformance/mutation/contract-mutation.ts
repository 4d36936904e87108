/**
 * The contract mutator's run (issue 40 item 2, `npm run mutation -- --contract`):
 * each mutant of spec/openapi.yaml (contract-mutants.ts) becomes a simulator
 * built from the mutated document (createSimulator's `contract`, never a
 * file written into spec/), and the conformance checks that can see it run
 * against that simulator, one by one, until one fails (the kill rule of
 * kill.ts). The suite itself keeps judging by spec/openapi.yaml.
 *
 * Which checks can see a mutant: those whose run sent the simulator a
 * request of an operation that passes through the mutated node. A baseline
 * run of the whole catalogue on the document as written records, per check,
 * the operations whose parameters or body the simulator validated, and
 * proves each check passes there (a check that does not cannot kill).
 *
 * Incremental: a result is kept in conformance/mutation/contract-incremental.json
 * under the SHA-256 of the mutated document and of the sources of the suite
 * and the simulator; the baseline under the document's and the sources'. A
 * change to either runs again what it may have changed, and nothing else.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { contractDocument, contractFrom, type Contract, type JsonSchema } from '../../spec/contract.ts';
import { catalogue } from '../catalogue.ts';
import type { CheckDefinition } from '../check.ts';
import { runConformance } from '../runner.ts';
import { applyMutant, contractMutants, LIMIT_KEYWORDS, type ContractKeyword, type ContractMutant } from './contract-mutants.ts';
import { killReason } from './kill.ts';
import { MUTATION_DELIVERY_TIMEOUT_MS, MUTATION_RUNS, MUTATION_SEED } from './settings.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CONTRACT_CACHE = 'conformance/mutation/contract-incremental.json';

export type ContractStatus = 'Killed' | 'Survived' | 'NoCoverage';

export interface ContractResult {
  id: string;
  keyword: ContractKeyword;
  operations: string[];
  status: ContractStatus;
  /** The check that failed it (Killed), or the checks that ran and passed (Survived). */
  killedBy?: string;
  reason?: string;
  checksRun: string[];
  /** Taken from the cache, not run now. */
  cached: boolean;
}

export interface ContractRun {
  /** Every mutant of the document, and how many of them this run's filters chose. */
  mutants: number;
  chosen: number;
  filter: string | null;
  results: ContractResult[];
  /** Checks the baseline found failing on the document as written: they cannot kill, and are left out. */
  baselineFailing: string[];
}

interface Cache {
  baselines: Record<string, { operations: Record<string, string[]>; failing: string[] }>;
  results: Record<string, Omit<ContractResult, 'cached'>>;
}

/** One check in-process against a simulator enforcing `contract`; the kill reason, or null when it passed. */
async function runCheck(check: string, contract: Contract): Promise<string | null> {
  const report = await runConformance({ target: 'in-process', checks: [check], runs: MUTATION_RUNS, seed: MUTATION_SEED, deliveryTimeoutMs: MUTATION_DELIVERY_TIMEOUT_MS, simulatorContract: contract });
  return killReason(report.results[0]!);
}

/** `contract`, telling `seen` each operation whose request it validates. */
function recording(contract: Contract, seen: Set<string>): Contract {
  const r = Object.create(contract) as Contract;
  r.checkParameters = (op, input) => (seen.add(op.id), contract.checkParameters(op, input));
  r.checkBody = (op, body) => (seen.add(op.id), contract.checkBody(op, body));
  r.bodyRefusal = (op, body) => (seen.add(op.id), contract.bodyRefusal(op, body));
  return r;
}

/** The SHA-256 of the sources a result depends on: the suite, the simulator, protocol/ and the loader (tests apart). */
export function sourcesDigest(): string {
  const hash = createHash('sha256');
  for (const dir of ['conformance', 'simulator', 'protocol', 'spec']) {
    const files = (readdirSync(`${ROOT}${dir}`, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.startsWith('mutation/'))
      .sort();
    for (const f of files) hash.update(`${dir}/${f}\0`).update(readFileSync(`${ROOT}${dir}/${f}`)).update('\0');
  }
  return hash.digest('hex');
}

const digestOf = (document: JsonSchema) => createHash('sha256').update(JSON.stringify(document)).digest('hex');

export interface ContractRunOptions {
  /** Only these keywords. */
  keywords?: ContractKeyword[];
  /** Only mutants whose id contains this text. */
  only?: string;
  /** Told of each result as it comes. */
  onResult?: (r: ContractResult, index: number, of: number) => void;
  checks?: CheckDefinition[];
}

export async function runContractMutation(options: ContractRunOptions = {}): Promise<ContractRun> {
  const file = `${ROOT}${CONTRACT_CACHE}`;
  const cache: Cache = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Cache : { baselines: {}, results: {} };
  const sources = sourcesDigest();
  // Results of other sources describe code that is gone: only this run's sources' are kept.
  const save = () => {
    cache.results = Object.fromEntries(Object.entries(cache.results).filter(([key]) => key.endsWith(`:${sources}`)));
    writeFileSync(file, `${JSON.stringify(cache, null, 1)}\n`);
  };
  const document = contractDocument();
  const checks = options.checks ?? catalogue();
  const baselineKey = `${digestOf(document)}:${sources}`;
  let baseline = cache.baselines[baselineKey];
  if (!baseline) {
    const operations: Record<string, string[]> = {};
    const failing: string[] = [];
    for (const check of checks) {
      const seen = new Set<string>();
      // A fresh contract per check: what one check compiled never stands in for another's.
      if (await runCheck(check.id, recording(contractFrom(contractDocument()), seen)) !== null) failing.push(check.id);
      operations[check.id] = [...seen].sort();
    }
    baseline = { operations, failing };
    // One baseline per document and sources: older ones describe code that is gone.
    cache.baselines = { [baselineKey]: baseline };
    save();
  }
  const all = contractMutants(document);
  const chosen = all.filter((m) => (!options.keywords || options.keywords.includes(m.keyword)) && (!options.only || m.id.includes(options.only)));
  const results: ContractResult[] = [];
  for (const [i, mutant] of chosen.entries()) {
    const mutated = applyMutant(document, mutant);
    const key = `${digestOf(mutated)}:${sources}`;
    const known = cache.results[key];
    const result: ContractResult = known ? { ...known, cached: true } : { ...(await judge(mutant, mutated, checks, baseline)), cached: false };
    if (!known) {
      const { cached: _, ...kept } = result;
      cache.results[key] = kept;
      save();
    }
    results.push(result);
    options.onResult?.(result, i + 1, chosen.length);
  }
  save();
  const filter = [options.keywords ? `keywords ${options.keywords.join(',')}` : '', options.only ? `ids containing "${options.only}"` : ''].filter(Boolean).join('; ');
  return { mutants: all.length, chosen: chosen.length, filter: filter || null, results, baselineFailing: baseline.failing };
}

/** Runs the checks that can see the mutant, those naming its field first, until one fails. */
async function judge(mutant: ContractMutant, mutated: JsonSchema, checks: CheckDefinition[], baseline: Cache['baselines'][string]): Promise<Omit<ContractResult, 'cached'>> {
  const base = { id: mutant.id, keyword: mutant.keyword, operations: mutant.operations };
  const seeing = checks.filter((c) => !baseline.failing.includes(c.id) && (baseline.operations[c.id] ?? []).some((op) => mutant.operations.includes(op)));
  const names = (c: CheckDefinition) => (mutant.field !== '' && c.run.toString().includes(mutant.field) ? 0 : 1);
  const order = [...seeing].sort((a, b) => names(a) - names(b));
  if (order.length === 0) return { ...base, status: 'NoCoverage', checksRun: [] };
  const ran: string[] = [];
  for (const check of order) {
    ran.push(check.id);
    const reason = await runCheck(check.id, contractFrom(mutated));
    if (reason !== null) return { ...base, status: 'Killed', killedBy: check.id, reason, checksRun: ran };
  }
  return { ...base, status: 'Survived', checksRun: ran };
}

/** A keyword of a limit or a default: the lines the done-when of issue 40 holds at 100% (the others are enum values and required entries). */
export const isLimitOrDefault = (keyword: string) => keyword === 'default' || (LIMIT_KEYWORDS as readonly string[]).includes(keyword);

/**
 * Per keyword: mutants, killed, survived, not reached, recorded equivalent (contract-equivalents.ts) and the score,
 * killed over killed, survived and not reached (equivalents out of it, as for Stryker's); then the limits and defaults
 * together, then all.
 */
export function contractScores(results: { keyword: string; status: string }[]): { keyword: string; mutants: number; killed: number; survived: number; noCoverage: number; equivalent: number; score: number | null }[] {
  const keywords = [...new Set(results.map((r) => r.keyword))].sort();
  const row = (keyword: string, rs: { status: string }[]) => {
    const killed = rs.filter((r) => r.status === 'Killed').length;
    const survived = rs.filter((r) => r.status === 'Survived').length;
    const noCoverage = rs.filter((r) => r.status === 'NoCoverage').length;
    const equivalent = rs.filter((r) => r.status === 'Equivalent').length;
    const scored = killed + survived + noCoverage;
    return { keyword, mutants: rs.length, killed, survived, noCoverage, equivalent, score: scored === 0 ? null : Math.round((killed / scored) * 10000) / 100 };
  };
  return [...keywords.map((k) => row(k, results.filter((r) => r.keyword === k))), row('limits and defaults', results.filter((r) => isLimitOrDefault(r.keyword))), row('all', results)];
}
