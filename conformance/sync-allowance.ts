/**
 * The run's one charged `POST /sync` (§4.7; §8 L10: one full sync per 24
 * hours). A live deployment gives a partner a single accepted sync a day, so
 * the sync checks of a run share it: the first check that needs it sends the
 * validation refusals (422, which charge nothing, §4.7), then the run's first
 * valid sync, and every later check reads that answer. In-process each check
 * gets a fresh world, so each gets its own allowance (full strength).
 */
import type { ApiClient, Response } from './client.ts';
import { NotApplicable, type CheckContext } from './check.ts';

/** §4.7: the `.changed` spelling and the short one, mixed, so the answer shows normalisation and document order. */
export const ALLOWANCE_TYPES = ['rates', 'availability.changed', 'restrictions'] as const;
/** What a correct deployment answers for ALLOWANCE_TYPES (§4.7: `.changed` names). */
export const ALLOWANCE_TYPES_NORMALISED = ['availability.changed', 'rates.changed', 'restrictions.changed'];
/** A platform property id no integration covers (a 422 PROPERTY_NOT_MAPPED). */
export const UNCOVERED_PROPERTY = 2_000_000_000;
/** §8 L12: up to 500 properties per sync. */
export const SYNC_PROPERTY_CAP = 500;

function overCapIds(property: number | null): number[] {
  const filler = Array.from({ length: SYNC_PROPERTY_CAP + 1 }, (_, i) => UNCOVERED_PROPERTY - i);
  return property === null ? filler : [property, ...filler.slice(0, SYNC_PROPERTY_CAP)];
}
/** §8 L10: the full-sync interval. */
export const SYNC_INTERVAL_SECONDS = 86_400;

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
  /** The property the sync names, or null when the run named none (then it covers everything). */
  property: number | null;
  body: { property_ids?: number[]; types: string[] };
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

  /** The run's first valid sync, spent by the first check that asks (its exchanges go to that check's log). */
  take(ctx: CheckContext): Promise<AllowanceAnswer> {
    this.answer ??= this.spend(syncClient(ctx), knownProperty(ctx));
    return this.answer;
  }

  /** A further valid sync call of the run (counted toward the daily cap). */
  async call(ctx: CheckContext, body: unknown = { types: ['property'] }): Promise<Response> {
    this.validCalls += 1;
    return syncClient(ctx).post('/sync', { body });
  }

  private async spend(api: ApiClient, property: number | null): Promise<AllowanceAnswer> {
    const refusalsSentAt = Date.now();
    const notMapped = await api.post('/sync', { body: { property_ids: [UNCOVERED_PROPERTY] } });
    const invalid = await api.post('/sync', { body: { types: ['bookings'] } });
    // 501 distinct ids, the run's own property first: past the cap whatever the integration covers.
    const overCap = await api.post('/sync', { body: { property_ids: overCapIds(property) } });
    const atCap = await api.post('/sync', { body: { property_ids: overCapIds(property).slice(0, SYNC_PROPERTY_CAP) } });
    const events = await api.get('/events', { query: { limit: 1 } });
    if (events.status !== 200) throw new Error(`GET /events answered ${events.status} before the sync: cannot read the cursor`);
    const before = events.body.cursor.latest_sequence as number;
    const body = { ...(property === null ? {} : { property_ids: [property] }), types: [...ALLOWANCE_TYPES] };
    const sentAt = Date.now();
    this.validCalls += 1;
    const sync = await api.post('/sync', { body });
    const receivedAt = Date.now();
    const { state, reopensAt } = this.judge(sync, { refusalsSentAt, sentAt, receivedAt });
    return { property, body, notMapped, invalid, overCap, atCap, refusalsSentAt, sync, sentAt, receivedAt, before, state, reopensAt };
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

/** The run's sync answer, or NotApplicable when the allowance was spent before this run (a 202-needing check). */
export async function acceptedSync(ctx: CheckContext): Promise<AllowanceAnswer> {
  const answer = await ctx.syncAllowance.take(ctx);
  if (answer.state === 'spent-before') throw new NotApplicable(`the 24-hour full-sync window was spent before this run (429 SYNC_TOO_SOON, errors.retry_after ${answer.sync.body.errors.retry_after} s): the sync checks that need a 202 can run again after ${answer.reopensAt} (§8 L10)`);
  if (answer.state === 'capped') throw new NotApplicable(`the day's six sync calls were spent before this run (429 RATE_LIMITED${answer.reopensAt ? `, Retry-After until ${answer.reopensAt}` : ''}): the sync checks that need a 202 can run again ${answer.reopensAt ? `after ${answer.reopensAt}` : 'tomorrow'} (§8 L11)`);
  if (answer.state === 'spent-by-refusals') throw new NotApplicable(`this run's 422 refusals consumed the full-sync window (see sync.validation-before-charge), so no sync was accepted; it reopens after ${answer.reopensAt}`);
  return answer;
}

/** Sync calls are never retried on 429: a retry would be one more call toward the daily cap (§8 L11). */
function syncClient(ctx: CheckContext): ApiClient {
  return ctx.api.withOptions({ retryAfterBudgetSeconds: 0 });
}

function knownProperty(ctx: CheckContext): number | null {
  return ctx.target.properties.find((p) => !p.archived)?.doorloom_id ?? null;
}
