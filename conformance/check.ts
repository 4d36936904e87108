/**
 * Defining checks: each has a stable id, the clause ids it proves (from
 * spec/clauses.yaml), a level, the capabilities it needs, and a run that
 * throws a CheckFailure when the target breaks the contract.
 */
import fc from 'fast-check';
import { ApiClient, ExchangeLog } from './client.ts';
import { ControlClient, ControlError } from './control.ts';
import { credentialVariable } from './credential-variables.ts';
import { asText } from '../reporting/sanitize.ts';
import { createHash } from 'node:crypto';
import { seeded } from './seeded.ts';
import { TargetUnreachable } from './unreachable.ts';
import { StayPlanner } from './stays.ts';
import { SyncAllowance } from './sync-allowance.ts';
import type { Target } from './targets.ts';
import type { Capability, CheckLevel, Failure, PropertyRun, Want } from './types.ts';

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
  fail(kind: string, received: string, documented: string, clause: string, note?: string): never;
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
  /** The first breach this check observed (through `fail` or `forAll`), kept whatever happened after. */
  readonly breach: CheckFailure | null;
}

/** A failing case of a property as it was seen: its value, its breach and its calls. */
interface SeenFailure {
  value: unknown;
  failure: Failure;
  exchanges: ExchangeLog['exchanges'];
  /** Its index among the property's runs (fast-check's path for an unshrunk case). */
  call: number;
}

/** The target cannot run a case or the run's own tooling failed: never a breach, never a pass. */
export function isNotABreach(e: unknown): boolean {
  return e instanceof NotApplicable || e instanceof ControlError || e instanceof TargetUnreachable;
}

export interface CheckDefinition {
  id: string;
  title: string;
  suite: string;
  clauses: string[];
  level: CheckLevel;
  needs: Capability[];
  /** What it may need beyond `needs`, depending on what the platform holds (types.ts `Want`); said in "what to add", never checked before the run. */
  wants?: Want[];
  run(ctx: CheckContext): Promise<void>;
}

export function defineCheck(def: CheckDefinition): CheckDefinition {
  return def;
}

export function makeContext(target: Target, options: { runId: string; runs: number; seed: number; path?: string; live: boolean; checkId?: string; syncAllowance?: SyncAllowance }): CheckContext {
  const log = new ExchangeLog();
  const credentialName = (sent: string) => credentialVariable(target, sent);
  const api = new ApiClient({ baseUrl: target.baseUrl, token: target.apiKey, secrets: target.secrets, credentialName, log, time: target.time, retryAfterBudgetSeconds: options.live ? 60 : 0 });
  const control = target.control ? new ControlClient(target.control, api, log, target.secrets, credentialName) : null;
  // An earlier check may have moved the platform's clock (a day, for a secret's validity): until this check reads the
  // clock itself, the Date headers of the platform's answers say where it stands.
  const now = () => (control?.offers('clock.advance') && control.clockRead ? control.platformNow() : target.time.now());
  let counter = 0;
  const random = seeded(options.seed ^ hash(options.checkId ?? ''));
  // Ids stay unique across the checks of a run (each check counts from 1) and across runs (the run id).
  const checkTag = hash(options.checkId ?? '').toString(36);
  // The first breach the check saw (item 4 of issue 25): the runner reports it whatever the check throws after.
  let breach: CheckFailure | null = null;
  const recorded = (failure: CheckFailure, outcome = false): CheckFailure => {
    // A property's outcome (its shrunk or first failing case, with seed and path) replaces the bare failure it caught.
    if (outcome) breach = failure;
    else breach ??= failure;
    return failure;
  };
  const fail = (kind: string, received: string, documented: string, clause: string, note?: string): never => {
    // A target can answer without the field a check quotes (JSON.stringify(undefined) is undefined): keep text.
    // The call judged is the last one made: a curl of it goes in the report (conformance/curl.ts).
    const judged = log.exchanges.at(-1)?.n;
    throw recorded(new CheckFailure({ kind, received: asText(received), documented: asText(documented), clause, ...(note ? { note } : {}), ...(judged !== undefined ? { exchange: judged } : {}) }));
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
    get breach() {
      return breach;
    },
    async forAll(arbitrary, predicate, how) {
      const numRuns = how?.books && options.live ? Math.min(options.runs, LIVE_BOOKING_RUNS) : options.runs;
      // Item 4 of issue 25: a breach once seen is kept, whatever happens after. `first` is the first failing case,
      // `last` the smallest one shrinking reached (fast-check only moves on to cases that fail).
      let first: SeenFailure | null = null;
      let last: SeenFailure | null = null;
      let calls = 0;
      let details: fc.RunDetails<[unknown]> | null = null;
      let cutShort: unknown = null;
      try {
        details = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
          const call = calls++;
          log.exchanges.length = 0;
          try {
            await predicate(value);
          } catch (e) {
            if (e instanceof CheckFailure) {
              const seen = { value, failure: e.failure, exchanges: [...log.exchanges], call };
              first ??= seen;
              last = seen;
            } else if (first !== null && isNotABreach(e)) {
              // While shrinking a breach, a case the target cannot run (no free night left, a control action
              // refused, no answer in time) proves nothing either way: fast-check must not shrink towards it.
              return;
            }
            throw e;
          }
        }) as fc.IAsyncProperty<[unknown]>, { numRuns, seed: options.seed, path: options.path, endOnFailure: false });
      } catch (e) {
        // An arbitrary that draws from the target (a free stay) throws out of fast-check itself; before any
        // breach that is the check's own outcome (not applicable), after one the breach stands.
        if (first === null) throw e;
        cutShort = e;
      }
      if (details && !details.failed) return;
      if (first !== null && (details === null || isNotABreach(details.errorInstance))) {
        // Shrinking did not finish: the first failing case, as it was seen, and why the rest was cut short.
        const seen: SeenFailure = first;
        const why = cutShort ?? details?.errorInstance;
        const property: PropertyRun = { seed: options.seed, path: options.path ?? String(seen.call), numRuns: seen.call + 1, counterexample: fc.stringify(seen.value) };
        log.exchanges.splice(0, log.exchanges.length, ...seen.exchanges);
        throw recorded(new CheckFailure({ ...seen.failure, note: `shrinking was cut short (${why instanceof Error ? why.message : String(why)}); this is the first failing case` }, property), true);
      }
      const run = details!;
      const counterexample = run.counterexample ? fc.stringify(run.counterexample[0]) : undefined;
      const property: PropertyRun = { seed: run.seed, path: run.counterexamplePath ?? undefined, numRuns: run.numRuns, counterexample };
      const cause = run.errorInstance;
      // Re-run the shrunk counter-example alone so the report shows exactly its calls. A re-run that passes, or
      // cannot be made (nights gone, a refused control action), changes nothing: the failure seen stands.
      log.exchanges.length = 0;
      try {
        if (run.counterexample) await predicate(run.counterexample[0] as never);
      } catch (e) {
        if (e instanceof CheckFailure) throw recorded(new CheckFailure(e.failure, property), true);
      }
      const shrunk = last as SeenFailure | null;
      if (cause instanceof CheckFailure) {
        if (shrunk) log.exchanges.splice(0, log.exchanges.length, ...shrunk.exchanges);
        throw recorded(new CheckFailure(cause.failure, property), true);
      }
      // Not a breach: the run's own tooling failed or the target cannot run the case.
      if (isNotABreach(cause)) throw cause;
      throw recorded(new CheckFailure({ kind: 'PropertyFailed', received: String((cause as Error | undefined)?.message ?? cause), documented: 'the property holds', clause: '' }, property), true);
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
