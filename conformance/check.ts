/**
 * Defining checks: each has a stable id, the clause ids it proves (from
 * spec/clauses.yaml), a level, the capabilities it needs, and a run that
 * throws a CheckFailure when the target breaks the contract.
 */
import fc from 'fast-check';
import { ApiClient, ExchangeLog } from './client.ts';
import { ControlClient, ControlError } from './control.ts';
import { asText } from '../reports/sanitize.ts';
import { createHash } from 'node:crypto';
import { seeded } from './seeded.ts';
import { StayPlanner } from './stays.ts';
import { SyncAllowance } from './sync-allowance.ts';
import type { Target } from './targets.ts';
import type { Capability, CheckLevel, Failure, PropertyRun } from './types.ts';

/** Cases of a booking property on a live target: partners cannot cancel what a run books (docs/conformance.md "What a live run leaves behind"). */
export const LIVE_BOOKING_RUNS = 5;

export class CheckFailure extends Error {
  constructor(readonly failure: Failure, readonly property?: PropertyRun) {
    super(`${failure.kind}: received ${failure.received}; documented ${failure.documented} (${failure.clause})`);
  }
}

/** The target cannot run this check (a missing precondition found at run time). */
export class NotApplicable extends Error {}

export interface CheckContext {
  target: Target;
  /** The partner API as the target's main integration. */
  api: ApiClient;
  /** The control plane's actions (a check that uses one needs `control:<action>`). */
  control: ControlClient | null;
  log: ExchangeLog;
  runId: string;
  /** fast-check runs per property. */
  runs: number;
  seed: number;
  path?: string;
  /** A fresh identifier, prefixed with the run id so live writes are recognisable (and never repeat across runs). */
  uniqueId(prefix?: string): string;
  /** The platform's time in ms: its clock as the control plane last reported it, else this machine's. */
  now(): number;
  /** The check's own generator, seeded by the run's seed and the check id: a seed repeats every choice. */
  random(): number;
  /** Free stays, read from the availability snapshot before a check that writes (conformance/stays.ts). */
  stays: StayPlanner;
  /** A fresh Idempotency-Key of exactly `length` characters (8 to 128, §4.5), unique to this run. */
  uniqueKey(length: number): string;
  /** Fails the check with what was received and what the document says. */
  fail(kind: string, received: string, documented: string, clause: string): never;
  /** The run's one charged POST /sync, shared by the sync checks of a live run (conformance/sync-allowance.ts). */
  syncAllowance: SyncAllowance;
  /** Run after the check, pass or fail (receivers to close). */
  cleanup: (() => Promise<void>)[];
  /**
   * Runs a fast-check property with the run's seed and size; a failure keeps
   * seed, path and counterexample. With `books`, each case creates bookings:
   * on a live target (where bookings stay for good) it runs at most
   * LIVE_BOOKING_RUNS cases.
   */
  forAll<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options?: { books?: boolean }): Promise<void>;
}

export interface CheckDefinition {
  id: string;
  title: string;
  suite: string;
  clauses: string[];
  level: CheckLevel;
  needs: Capability[];
  run(ctx: CheckContext): Promise<void>;
}

export function defineCheck(def: CheckDefinition): CheckDefinition {
  return def;
}

export function makeContext(target: Target, options: { runId: string; runs: number; seed: number; path?: string; live: boolean; checkId?: string; syncAllowance?: SyncAllowance }): CheckContext {
  const log = new ExchangeLog();
  const api = new ApiClient({ baseUrl: target.baseUrl, token: target.apiKey, secrets: target.secrets, log, time: target.time, retryAfterBudgetSeconds: options.live ? 60 : 0 });
  const control = target.control ? new ControlClient(target.control, api, log, target.secrets) : null;
  // An earlier check may have moved the platform's clock (a day, for a secret's validity): until this check reads the
  // clock itself, the Date headers of the platform's answers say where it stands.
  const now = () => (control?.offers('clock.advance') && control.clockRead ? control.platformNow() : target.time.now());
  let counter = 0;
  const random = seeded(options.seed ^ hash(options.checkId ?? ''));
  // Ids stay unique across the checks of a run (each check counts from 1) and across runs (the run id).
  const checkTag = hash(options.checkId ?? '').toString(36);
  const fail = (kind: string, received: string, documented: string, clause: string): never => {
    // A target can answer without the field a check quotes (JSON.stringify(undefined) is undefined): keep text.
    throw new CheckFailure({ kind, received: asText(received), documented: asText(documented), clause });
  };
  return {
    target, api, control, log, runId: options.runId, runs: options.runs, seed: options.seed, path: options.path, cleanup: [],
    // Live: the runner hands every check the run's one allowance; otherwise each context has its own (a fresh world).
    syncAllowance: options.syncAllowance ?? new SyncAllowance(options.live),
    uniqueId(prefix = 'c') {
      counter += 1;
      return `${options.runId}-${checkTag}-${prefix}-${counter}`;
    },
    random,
    now,
    stays: new StayPlanner(api, target.properties.filter((p) => !p.archived).map((p) => p.doorloom_id), random, now),
    uniqueKey(length) {
      counter += 1;
      let key = '';
      for (let i = 0; key.length < length; i++) key += createHash('sha256').update(`${options.runId}/${checkTag}/${counter}/${i}`).digest('hex');
      return key.slice(0, length);
    },
    fail,
    async forAll(arbitrary, predicate, how) {
      const numRuns = how?.books && options.live ? Math.min(options.runs, LIVE_BOOKING_RUNS) : options.runs;
      const details = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
        log.exchanges.length = 0;
        await predicate(value);
      }), { numRuns, seed: options.seed, path: options.path, endOnFailure: false });
      if (!details.failed) return;
      const counterexample = details.counterexample ? fc.stringify(details.counterexample[0]) : undefined;
      const property: PropertyRun = { seed: details.seed, path: details.counterexamplePath ?? undefined, numRuns: details.numRuns, counterexample };
      // Re-run the shrunk counter-example alone so the report shows exactly its calls.
      log.exchanges.length = 0;
      try {
        if (details.counterexample) await predicate(details.counterexample[0]);
      } catch (e) {
        if (e instanceof CheckFailure) throw new CheckFailure(e.failure, property);
        throw e;
      }
      const cause = details.errorInstance;
      if (cause instanceof CheckFailure) throw new CheckFailure(cause.failure, property);
      // Not a breach: the run's own tooling failed or the target cannot run the case.
      if (cause instanceof ControlError || cause instanceof NotApplicable) throw cause;
      throw new CheckFailure({ kind: 'PropertyFailed', received: String((cause as Error | undefined)?.message ?? cause), documented: 'the property holds', clause: '' }, property);
    },
  };
}

/** Shorthand assertions that name the clause they prove. */
export function expectStatus(ctx: CheckContext, res: { status: number; body: any }, status: number, code: string | null, clause: string, what: string): void {
  const got = `${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
  const want = `${status}${code ? ` ${code}` : ''}`;
  if (res.status !== status || (code !== null && res.body?.code !== code)) ctx.fail('UnexpectedStatus', `${got} for ${what}`, `${want} for ${what}`, clause);
}

/** FNV-1a of a check id, so each check draws its own sequence from the run's seed. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
