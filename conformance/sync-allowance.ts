/**
 * The run's one charged `POST /sync` (§4.7; §8 L10: one full sync per 24
 * hours). A live deployment gives a partner a single accepted sync a day, so
 * the sync checks of a run share it: the first check that needs it sends the
 * validation refusals (422, which charge nothing, §4.7), then the run's first
 * valid sync, and every later check reads that answer. In-process each check
 * gets a fresh world, so each gets its own allowance (full strength).
 *
 * The valid sync has one of two bodies (§4.7). `named`: the run's property
 * and all five types in mixed spellings, so the answer shows normalisation.
 * `everything`: no body at all ("an empty body means everything"), which
 * queues every covered property. Live, a run sends the empty body only when
 * the integration covers at most SYNC_EVERYTHING_MAX_PROPERTIES properties
 * (`covered_properties` of GET /me), so a run never queues a large estate;
 * in-process each check asks for the body it judges.
 */
import type { ApiClient, Response } from './client.ts';
import type { Target } from './targets.ts';
import { loadContract } from '../spec/contract.ts';

/** §4.7: all five types, the `.changed` spelling and the short one mixed, so the answer shows normalisation. */
export const ALLOWANCE_TYPES = ['rates', 'availability.changed', 'restrictions', 'inventory.changed', 'property'] as const;
/** What a correct deployment answers for ALLOWANCE_TYPES, and for types omitted (§4.7: `.changed` names, all five). */
export const ALLOWANCE_TYPES_NORMALISED = ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed'];
/**
 * The unknown-type refusal: every spelling §4.7 accepts that ALLOWANCE_TYPES does not use, then an unknown one, so
 * the run sends each of the ten spellings once and the refusal's errors show that only the unknown entry was refused.
 */
export const INVALID_TYPES = ['rates.changed', 'availability', 'restrictions.changed', 'inventory', 'property.changed', 'bookings'] as const;
/** Where the unknown type stands in INVALID_TYPES (the one entry its refusal may name). */
export const UNKNOWN_TYPE_INDEX = INVALID_TYPES.indexOf('bookings');
/** Live, the run's sync has an empty body only for an integration covering at most this many properties. */
export const SYNC_EVERYTHING_MAX_PROPERTIES = 5;

/** The body of the run's valid sync: a named property and mixed spellings, or none at all (everything). */
export type SyncBodyMode = 'named' | 'everything';
/** A platform property id no integration covers (a 422 PROPERTY_NOT_MAPPED). */
export const UNCOVERED_PROPERTY = 2_000_000_000;
/**
 * The lowest property id the contract allows in `property_ids` (spec/openapi.yaml, SyncRequest): the first refusal
 * names it before the uncovered one, so it is refused for coverage (PROPERTY_NOT_MAPPED), never as invalid.
 */
export const LOWEST_PROPERTY_ID = ((loadContract().schema('SyncRequest').properties as any).property_ids.items.minimum ?? 1) as number;
/** §8 L12: up to 500 properties per sync. */
export const SYNC_PROPERTY_CAP = 500;

function overCapIds(property: number | null): number[] {
  const filler = Array.from({ length: SYNC_PROPERTY_CAP + 1 }, (_, i) => UNCOVERED_PROPERTY - i);
  return property === null ? filler : [property, ...filler.slice(0, SYNC_PROPERTY_CAP)];
}
/** §8 L10: the full-sync interval. */
export const SYNC_INTERVAL_SECONDS = 86_400;

/** What the allowance reads of a check's context (the check context holds the allowance, so it is not named here). */
export interface AllowanceContext {
  api: ApiClient;
  target: Pick<Target, 'properties'>;
}

/**
 * Where the run's allowance stands after its first valid sync:
 * `accepted` (202, this run holds the window), `spent-before` (429
 * SYNC_TOO_SOON for a window opened before this run's refusals),
 * `spent-by-refusals` (429 SYNC_TOO_SOON for a window opened by this run's
 * own 422s: the §4.7 breach), `capped` (429 RATE_LIMITED: the day's calls were
 * spent before), `other` (anything else: the checks judge it).
 */
export type AllowanceState = 'accepted' | 'spent-before' | 'spent-by-refusals' | 'capped' | 'other';

export interface AllowanceAnswer {
  mode: SyncBodyMode;
  /** The property the sync names, or null when it names none (then it covers everything). */
  property: number | null;
  /** The body sent, or null when none was (`everything`). */
  body: { property_ids?: number[]; types: string[] } | null;
  /** `covered_properties` of GET /me before the sync. */
  covered: number;
  /** How many 422 refusals the allowance sent before its valid sync (8.L11 note: a reading counts them). */
  refusals: number;
  /** The refusals sent first: an uncovered property, an unknown type, one property over the cap (§8 L12), exactly the cap. */
  notMapped: Response;
  invalid: Response;
  overCap: Response;
  /** 500 ids, uncovered ones among them: refused for coverage (422 PROPERTY_NOT_MAPPED), never for the count. */
  atCap: Response;
  /** Client clock (ms) when the first refusal was sent. */
  refusalsSentAt: number;
  /** The run's first valid sync and when it was sent and answered (client clock, ms). */
  sync: Response;
  sentAt: number;
  receivedAt: number;
  /** `cursor.latest_sequence` read just before the valid sync: its events come after it. */
  before: number;
  state: AllowanceState;
  /** When a spent window or cap reopens (ISO 8601), from `errors.retry_after` or `Retry-After`. */
  reopensAt: string | null;
}

export class SyncAllowance {
  private answer: Promise<AllowanceAnswer> | null = null;
  /** Valid sync calls this run made (202 or 429): §8 L11 counts them toward the daily cap. */
  validCalls = 0;

  constructor(readonly live: boolean) {}

  /**
   * The run's first valid sync, spent by the first check that asks (its
   * exchanges go to that check's log). `prefer` is the body the check judges:
   * honoured in-process (its own fresh allowance); live the run's body is
   * decided by the coverage (see the module comment).
   */
  take(ctx: AllowanceContext, prefer: SyncBodyMode = 'named'): Promise<AllowanceAnswer> {
    this.answer ??= this.spend(syncClient(ctx), knownProperty(ctx), prefer);
    return this.answer;
  }

  /** A further valid sync call of the run (counted toward the daily cap). */
  async call(ctx: AllowanceContext, body: unknown = { types: ['property'] }): Promise<Response> {
    this.validCalls += 1;
    return syncClient(ctx).post('/sync', { body });
  }

  private async spend(api: ApiClient, property: number | null, prefer: SyncBodyMode): Promise<AllowanceAnswer> {
    const me = await api.get('/me');
    if (me.status !== 200) throw new Error(`GET /me answered ${me.status} before the sync: cannot read the coverage`);
    const covered = me.body.data.covered_properties as number;
    const mode: SyncBodyMode = this.live ? (covered <= SYNC_EVERYTHING_MAX_PROPERTIES ? 'everything' : 'named') : prefer;
    const refusalsSentAt = Date.now();
    const notMapped = await api.post('/sync', { body: { property_ids: [LOWEST_PROPERTY_ID, UNCOVERED_PROPERTY] } });
    const invalid = await api.post('/sync', { body: { types: [...INVALID_TYPES] } });
    // 501 distinct ids, the run's own property first: past the cap whatever the integration covers.
    const overCap = await api.post('/sync', { body: { property_ids: overCapIds(property) } });
    const atCap = await api.post('/sync', { body: { property_ids: overCapIds(property).slice(0, SYNC_PROPERTY_CAP) } });
    const events = await api.get('/events', { query: { limit: 1 } });
    if (events.status !== 200) throw new Error(`GET /events answered ${events.status} before the sync: cannot read the cursor`);
    const before = events.body.cursor.latest_sequence as number;
    const named = mode === 'named' ? property : null;
    const body = mode === 'everything' ? null : { ...(named === null ? {} : { property_ids: [named] }), types: [...ALLOWANCE_TYPES] };
    const sentAt = Date.now();
    this.validCalls += 1;
    // §4.7 "empty body": nothing at all, no Content-Type either.
    const sync = await api.post('/sync', body === null ? {} : { body });
    const receivedAt = Date.now();
    const { state, reopensAt } = this.judge(sync, { refusalsSentAt, sentAt, receivedAt });
    return { mode, property: named, body, covered, refusals: [notMapped, invalid, overCap, atCap].filter((r) => r.status === 422).length, notMapped, invalid, overCap, atCap, refusalsSentAt, sync, sentAt, receivedAt, before, state, reopensAt };
  }

  private judge(sync: Response, t: { refusalsSentAt: number; sentAt: number; receivedAt: number }): { state: AllowanceState; reopensAt: string | null } {
    if (sync.status === 202) return { state: 'accepted', reopensAt: null };
    const retry = Number(sync.body?.errors?.retry_after);
    const header = Number(sync.headers['retry-after']);
    if (sync.status === 429 && sync.body?.code === 'RATE_LIMITED') {
      return { state: 'capped', reopensAt: Number.isFinite(header) ? new Date(t.receivedAt + header * 1000).toISOString() : null };
    }
    if (sync.status !== 429 || sync.body?.code !== 'SYNC_TOO_SOON' || !Number.isFinite(retry)) return { state: 'other', reopensAt: null };
    const reopensAt = new Date(t.receivedAt + retry * 1000).toISOString();
    // In-process the world is fresh: nothing but this run's refusals can have opened the window.
    if (!this.live) return { state: 'spent-by-refusals', reopensAt };
    // §7 E15: retry_after counts whole seconds to the end of the window, so the
    // window opened no later than receivedAt + retry_after - 24 h. Opened before
    // the refusals were sent: it was spent before this run. (A sync accepted in
    // the very second before the refusals cannot be told apart from one the
    // refusals charged: whole seconds are all the document gives.)
    const openedBy = t.receivedAt + retry * 1000 - SYNC_INTERVAL_SECONDS * 1000;
    return { state: openedBy < t.refusalsSentAt ? 'spent-before' : 'spent-by-refusals', reopensAt };
  }
}

/** Sync calls are never retried on 429: a retry would be one more call toward the daily cap (§8 L11). */
function syncClient(ctx: AllowanceContext): ApiClient {
  return ctx.api.withOptions({ retryAfterBudgetSeconds: 0 });
}

function knownProperty(ctx: AllowanceContext): number | null {
  return ctx.target.properties.find((p) => !p.archived)?.doorloom_id ?? null;
}
