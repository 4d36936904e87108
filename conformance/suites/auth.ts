/** Auth and visibility (§1, §5, §7): 401/403 variants, the switch, cross-integration 404s. */
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control, type RateLimit } from '../control.ts';
import { ExchangeLog, retryAfterSeconds, type Response } from '../client.ts';
import { bookingBody, createBooking, describe, everyOperation, farStay, horizonStay, listedProperties } from './support.ts';

const suite = 'auth';

/**
 * Safety caps of a burst at a limit the run did not set (§7; its numbers are not shown, §8): whichever runs out
 * first ends the check "not applicable", naming the rate the client reached; never a pass, never a failure.
 */
const BURST_CALLS = 20_000;
const BURST_SECONDS = 120;
const BURST_PARALLEL = 16;
/** Whole windows (§7 X-RateLimit-Reset) a burst at a limit it did not set goes on without a 429 before it is out of reach. */
const WINDOWS_WITHOUT_429 = 3;
/**
 * The limit the burst lowers the integration to where the control plane sets it (rate-limit.set, issue 38): five
 * calls an hour. The first wave of 16 parallel calls passes it on any client however slow, and the hour keeps
 * the whole burst in one window, so LOWERED.limit + 2 × BURST_PARALLEL calls with no 429 is a breach, never a
 * limit out of reach: the outcome rests on a count of calls, not on how fast this machine makes them.
 */
const LOWERED: RateLimit = { limit: 5, window_seconds: 3600 };

interface Burst {
  res: Response | null;
  calls: number;
  seconds: number;
  log: ExchangeLog;
  /** Why it stopped without a 429 (null when it met one). */
  stopped: string | null;
  /** The limit and the longest X-RateLimit-Reset the accepted calls showed (at least the window once one rolled over). */
  limit: string | null;
  longestReset: number;
}

/**
 * Cheap partner calls (a one-row replay page), 16 at a time, until one answers 429 RATE_LIMITED: the event the
 * check waits for. Without it the burst ends at `most` calls; at a limit it did not set, also once
 * WINDOWS_WITHOUT_429 whole windows passed with no 429 (§7 X-RateLimit-Reset, x-assumption: seconds to the
 * window's end) or at the safety cap of BURST_SECONDS. Exchanges go to a log of their own; only the 429 joins the
 * check's exchanges. Anything but 200 or 429 stops the burst as an error.
 */
async function burst(ctx: CheckContext, most: number, lowered: boolean): Promise<Burst> {
  const log = new ExchangeLog();
  const api = ctx.api.withOptions({ log, retryAfterBudgetSeconds: 0 });
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let calls = 0;
  let limited: Response | null = null;
  let limit: string | null = null;
  let longestReset = 0;
  let stopped: string | null = null;
  const goOn = (): boolean => {
    if (limited || stopped) return false;
    if (calls >= most) stopped = `its cap of ${most} calls`;
    // A limit the run set is decided by the count alone: a slow machine makes the burst slower, never its verdict.
    // Otherwise, once a window rolled over, the longest Reset seen is the window: WINDOWS_WITHOUT_429 whole windows
    // passed with no 429 means this client's rate does not reach the limit (a faster window, by luck, does not count).
    else if (!lowered && longestReset > 0 && elapsed() >= ((WINDOWS_WITHOUT_429 + 1) * longestReset + 1) * 1000) stopped = `${WINDOWS_WITHOUT_429} whole windows without one`;
    else if (!lowered && elapsed() >= BURST_SECONDS * 1000) stopped = `its safety cap of ${BURST_SECONDS} s`;
    return stopped === null;
  };
  const worker = async () => {
    while (goOn()) {
      calls += 1;
      const res = await api.get('/events', { query: { limit: 1 } });
      if (res.status === 429 && res.body?.code === 'RATE_LIMITED') limited ??= res;
      // 408: the server gave up reading this call before it was whole (a loaded machine, many calls at once); a GET is
      // sent again by the next turn of the burst (RFC 9110 §15.5.9), and the count of calls still caps it.
      else if (res.status === 408) continue;
      else if (res.status !== 200) throw new Error(`a burst call answered ${describe(res)}`);
      else {
        limit = res.headers['x-ratelimit-limit'] ?? limit;
        const reset = Number(res.headers['x-ratelimit-reset']);
        if (Number.isInteger(reset) && reset > longestReset) longestReset = reset;
      }
    }
  };
  await Promise.all(Array.from({ length: BURST_PARALLEL }, worker));
  const exchange = log.exchanges.find((e) => e.status === 429);
  if (exchange) ctx.log.exchanges.push({ ...exchange, n: ctx.log.exchanges.length + 1 });
  return { res: limited, calls, seconds: elapsed() / 1000, log, stopped: limited ? null : stopped, limit, longestReset };
}

/** §7 "not applicable" without a 429: the rate this client reached, and the limit where the headers said it. */
function outOfReach(b: Burst, note: string): string {
  const perSecond = b.calls / Math.max(b.seconds, 0.001);
  const limit = b.limit === null ? '' : ` (X-RateLimit-Limit ${b.limit}${b.longestReset > 0 ? `, X-RateLimit-Reset up to ${b.longestReset} s` : ''})`;
  return `no 429 RATE_LIMITED: this client reached ${perSecond.toFixed(1)} calls/s (about ${Math.round(perSecond * 60)} calls/min; ${b.calls} calls in ${b.seconds.toFixed(1)} s, ${BURST_PARALLEL} at a time), short of the limit${limit}; the burst ended after ${b.stopped}. ${note}`.trim();
}

/** What the check did to the limit in force: lowered it (and how to put it back), or left it alone and why. */
type Lowering = { lowered: true; putBack: () => Promise<void> } | { lowered: false; note: string };

/**
 * Where the control plane sets the limit (rate-limit.set) and says the one in force, lowers it to LOWERED for the
 * burst; the check puts back what it found once it is done, pass or fail. Putting it back starts a fresh window
 * too (control-openapi rate-limit.set), so later checks are not refused. Otherwise the limit in force is left
 * alone, with a note saying why: a limit the run could not put back is never changed.
 */
async function lowerRateLimit(ctx: CheckContext): Promise<Lowering> {
  const control = ctx.control;
  if (!control?.offers('rate-limit.set')) return { lowered: false, note: 'A control plane offering rate-limit.set would lower the limit for the burst (spec/control-openapi.yaml).' };
  const before = await control.rateLimit();
  if (before === null) return { lowered: false, note: 'The control plane offers rate-limit.set but does not say the limit in force (GET …/rate-limit), so the run did not lower a limit it could not put back.' };
  const putBack = async () => void (await control.setRateLimit(before.limit, before.window_seconds));
  try {
    await control.setRateLimit(LOWERED.limit, LOWERED.window_seconds);
  } catch (e) {
    // A refused or failed PUT may still have changed the limit: put back what was found, then report the failure.
    await putBack().catch(() => undefined);
    throw e;
  }
  return { lowered: true, putBack };
}

/**
 * The burst and its judgement (§7 7.E16). Where the limit was lowered, the outcome rests on a count of calls;
 * elsewhere the deployment's own limit is driven, and a client too slow to reach it is not applicable.
 */
async function judgeRateLimited(ctx: CheckContext, how: Lowering): Promise<void> {
  const b = await burst(ctx, how.lowered ? LOWERED.limit + 2 * BURST_PARALLEL : BURST_CALLS, how.lowered);
  const { res, calls, log } = b;
  if (!res && how.lowered) return ctx.fail('NeverRateLimited', `${calls} calls, none answered 429 RATE_LIMITED, with the limit set to ${LOWERED.limit} calls in ${LOWERED.window_seconds} s`, 'a rate limit exceeded: 429 RATE_LIMITED with Retry-After and X-RateLimit-*', '7.E16');
  if (!res) throw new NotApplicable(outOfReach(b, how.lowered ? '' : how.note));
  const retryAfter = res.headers['retry-after'];
  // Live at a limit the run did not set, the key stays throttled until the window resets: wait it out after the
  // check, pass or fail (a failure below used to skip the wait), so the checks after it are not refused.
  if (!how.lowered && ctx.target.kind === 'live') {
    const seconds = retryAfterSeconds(retryAfter) ?? (Number(res.headers['x-ratelimit-reset']) || 60);
    ctx.cleanup.push(() => new Promise((r) => setTimeout(r, Math.min(120, seconds) * 1000 + 250)));
  }
  if (retryAfter === undefined) ctx.fail('RetryAfterMissing', 'no Retry-After header on the 429 RATE_LIMITED', 'Retry-After and X-RateLimit-* are set on 429 RATE_LIMITED', '7.E16');
  if (retryAfterSeconds(retryAfter) === null) ctx.fail('RetryAfterUnreadable', `Retry-After: ${retryAfter}`, 'Retry-After in seconds (or an HTTP date)', '7.E16');
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (res.headers[h] === undefined) ctx.fail('MissingRateLimitHeader', `no ${h} header on the 429`, 'Retry-After and X-RateLimit-* are set on 429 RATE_LIMITED', '7.E16');
    // Counts of requests and seconds (spec components.headers): whole numbers, never negative.
    else if (!/^\d+$/.test(res.headers[h]!)) ctx.fail('RateLimitHeaderUnreadable', `${h}: ${JSON.stringify(res.headers[h])} on the 429`, `${h} set on 429 RATE_LIMITED as a whole number of requests or seconds`, '7.E16');
  }
  // Where the burst's accepted calls carry them too, the requests left in the window lie between none and the limit.
  for (const e of log.exchanges.filter((x) => x.status === 200 && x.responseHeaders['x-ratelimit-remaining'] !== undefined)) {
    const left = e.responseHeaders['x-ratelimit-remaining']!;
    const limit = e.responseHeaders['x-ratelimit-limit'];
    if (!/^\d+$/.test(left) || (limit !== undefined && Number(left) > Number(limit))) {
      ctx.fail('RateLimitHeaderUnreadable', `X-RateLimit-Remaining ${JSON.stringify(left)} with X-RateLimit-Limit ${JSON.stringify(limit)} on an accepted call`, 'X-RateLimit-Remaining: the requests left in the window, a whole number from 0 to the limit', '7.E16');
      break;
    }
  }
  // Retry-After holds: once that many seconds have passed, the call goes through. Where the run set the window and
  // the platform's clock moves, the clock is moved instead of waited on (the window bounds the wait).
  const wait = retryAfterSeconds(retryAfter);
  if (how.lowered && ctx.control?.offers('clock.advance') && wait !== null) {
    if (wait > LOWERED.window_seconds) ctx.fail('RetryAfterTooLong', `Retry-After: ${retryAfter} with a ${LOWERED.window_seconds}-second window`, 'Retry-After: the seconds to wait, no longer than the window', '7.E16');
    await ctx.control.advanceClock(Math.min(wait, LOWERED.window_seconds));
    const again = await ctx.api.withOptions({ retryAfterBudgetSeconds: 0 }).get('/events', { query: { limit: 1 } });
    if (again.status !== 200) ctx.fail('RetryAfterDoesNotHold', `${describe(again)} ${wait} s after a 429 answered Retry-After: ${retryAfter}`, 'Retry-After: the seconds to wait before the call goes through', '7.E16');
  }
}

/**
 * A role credential's 403 (§5.5). Anything else is a breach the check reports; since the run cannot tell a
 * platform that answers the role wrongly from a credential that is not what the configuration says (preflight
 * lets both through, issue 25 item 5), the failure says so.
 */
function expectRole(ctx: CheckContext, res: Response, code: 'INTEGRATION_DISABLED' | 'NOT_INTEGRATION_TOKEN', clause: string, what: string, role: 'disabledApiKey' | 'nonIntegrationToken'): void {
  if (res.status === 403 && res.body?.code === code) return;
  const should = role === 'disabledApiKey' ? 'the key of a disabled integration' : 'a valid bearer token that is not an integration key';
  ctx.fail('UnexpectedStatus', `${describe(res)} for ${what}`, `403 ${code} for ${what}`, clause, `the credential given as ${role} may also be wrong: it must be ${should}`);
}

export const authChecks = [
  defineCheck({
    id: 'auth.missing-key-is-401', title: 'Every operation without a key answers 401 UNAUTHENTICATED', suite,
    clauses: ['5.R1', '5.R5b', '7.E1', '4.R1'], level: 'normative', needs: ['read'],
    async run(ctx) {
      for (const op of everyOperation(ctx)) {
        const res = await ctx.api.request(op.method, op.path, { token: null, body: op.body });
        expectStatus(ctx, res, 401, 'UNAUTHENTICATED', '5.R5b', `${op.name} without Authorization`);
      }
    },
  }),
  defineCheck({
    id: 'auth.no-other-scheme', title: 'Only Bearer API keys authenticate: garbage, Basic and query-string keys are 401', suite,
    clauses: ['5.R1a', '5.R5b', '7.E1'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const key = ctx.target.apiKey;
      const attempts: [string, Parameters<typeof ctx.api.get>[1]][] = [
        ['a garbage bearer token', { token: 'not-a-key' }],
        ['Basic auth with the key', { token: null, headers: { Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }],
        ['the key in the query string', { token: null, query: { api_key: key } }],
        ['the key without the Bearer scheme', { token: null, headers: { Authorization: key } }],
        // The scheme is Bearer itself and the credential the key alone: a scheme merely ending in "Bearer", or the key with more after it, is not it.
        ['the key under a scheme named XBearer', { token: null, headers: { Authorization: `XBearer ${key}` } }],
        ['the key followed by another word', { token: null, headers: { Authorization: `Bearer ${key} extra` } }],
      ];
      for (const [what, options] of attempts) {
        const res = await ctx.api.get('/me', options);
        expectStatus(ctx, res, 401, 'UNAUTHENTICATED', '5.R1a', `GET /me with ${what}`);
      }
    },
  }),
  defineCheck({
    id: 'auth.staff-token-is-403', title: 'A valid token that is not an integration key is 403 NOT_INTEGRATION_TOKEN', suite,
    clauses: ['5.R5', '7.E2'], level: 'normative', needs: ['read'], wants: ['nonIntegrationToken'],
    async run(ctx) {
      const token = ctx.target.nonIntegrationToken;
      if (!token) throw new NotApplicable('needs a valid bearer token that is not an integration key (nonIntegrationToken in --config, or PARTNER_NON_INTEGRATION_TOKEN)');
      for (const op of everyOperation(ctx)) {
        const res = await ctx.api.request(op.method, op.path, { token, body: op.body });
        expectRole(ctx, res, 'NOT_INTEGRATION_TOKEN', '5.R5', `${op.name} with a valid token that is not an integration key`, 'nonIntegrationToken');
      }
    },
  }),
  defineCheck({
    id: 'auth.disabled-is-403', title: 'A disabled integration gets 403 INTEGRATION_DISABLED on every operation', suite,
    clauses: ['5.R5a', '7.E3', '3.1.T5'], level: 'normative', needs: ['read'], wants: ['disabledApiKey'],
    async run(ctx) {
      const token = ctx.target.disabledApiKey;
      if (!token) throw new NotApplicable("needs a disabled integration's API key on the same deployment (disabledApiKey in --config, or PARTNER_DISABLED_API_KEY)");
      for (const op of everyOperation(ctx)) {
        const res = await ctx.api.request(op.method, op.path, { token, body: op.body });
        expectRole(ctx, res, 'INTEGRATION_DISABLED', '3.1.T5', `${op.name} as a disabled integration`, 'disabledApiKey');
      }
    },
  }),
  defineCheck({
    id: 'auth.rotated-key-stops-at-once', title: 'Issuing a key rotates it: the previous key is 401 at once', suite,
    clauses: ['5.R3', '5.R2b', '7.E1'], level: 'normative', needs: ['read', control('api-key.rotate')],
    async run(ctx) {
      const fresh = await ctx.control!.rotateApiKey();
      // The rest of the run (and the partner, told by the runner) goes on with the new key.
      ctx.target.credentialRotated('apiKey', fresh);
      expectStatus(ctx, await ctx.api.get('/me'), 401, 'UNAUTHENTICATED', '5.R3', 'GET /me with the rotated-out key');
      expectStatus(ctx, await ctx.api.get('/me', { token: fresh }), 200, null, '5.R3', 'GET /me with the new key');
    },
  }),
  defineCheck({
    id: 'auth.switched-off-is-bare-404', title: 'With the API switched off every route is a bare 404 with an empty body; switched on again, it answers', suite,
    clauses: ['5.R6', '7.E5'], level: 'normative', needs: ['read', control('api.switch')],
    async run(ctx) {
      await ctx.control!.setApiEnabled(false);
      ctx.cleanup.unshift(async () => void (await ctx.control!.setApiEnabled(true)));
      for (const op of everyOperation(ctx)) {
        const res = await ctx.api.request(op.method, op.path, { body: op.body });
        if (res.status !== 404 || res.text !== '') ctx.fail('NotBare404', `${describe(res)} with ${res.text.length} body bytes for ${op.name}`, 'a bare 404 with an empty body', '5.R6');
      }
      // A flag (§5 rule 6): switched on again, the API answers as before the check.
      await ctx.control!.setApiEnabled(true);
      expectStatus(ctx, await ctx.api.get('/me'), 200, null, '5.R6', 'GET /me with the API switched on again');
    },
  }),
  defineCheck({
    id: 'auth.rate-limited-headers', title: 'Partner calls past the rate limit get 429 RATE_LIMITED with Retry-After and X-RateLimit-* set', suite,
    clauses: ['7.E16'], level: 'normative', needs: ['burst'],
    async run(ctx) {
      // Issue 38: where the control plane can set the limit, the burst is tens of calls on any machine.
      const how = await lowerRateLimit(ctx);
      try {
        await judgeRateLimited(ctx, how);
      } finally {
        // Put back pass or fail; a put-back that fails is the run's own error (ControlError), never silent: the
        // deployment would stay throttled. A breach seen before it stands (runner: a breach survives what follows).
        if (how.lowered) await how.putBack();
      }
    },
  }),
  defineCheck({
    id: 'visibility.foreign-booking-is-404', title: "Another integration's booking is 404 NOT_FOUND, never 403, by id, by external id and in lists", suite,
    clauses: ['1.V1', '1.V2', '4.2.R2', '4.3.R2', '7.E4'], level: 'normative', needs: ['write'], wants: ['otherApiKey'],
    async run(ctx) {
      const other = ctx.target.otherApiKey;
      if (!other) throw new NotApplicable("needs another integration's API key on the same deployment (otherApiKey in --config)");
      const body = bookingBody(ctx);
      const created = await createBooking(ctx, body);
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      const id = created.body.data.id;
      const reads: [string, string][] = [[`/bookings/${id}`, 'by id'], [`/bookings/external/${encodeURIComponent(body.external_booking_id)}`, 'by external id']];
      for (const [path, what] of reads) {
        const res = await ctx.api.get(path, { token: other });
        expectStatus(ctx, res, 404, 'NOT_FOUND', '1.V1', `another integration reading the booking ${what}`);
      }
      const list = await ctx.api.get('/bookings', { token: other, query: { per_page: 200, check_in_from: body.check_in, check_in_to: body.check_in } });
      if ((list.body?.data ?? []).some((b: any) => b.id === id)) ctx.fail('ForeignBookingListed', `booking ${id} in another integration's list`, 'collections hold only own data', '1.V2');
    },
  }),
  defineCheck({
    id: 'visibility.foreign-property-is-404', title: "Another integration's property is 404 on snapshots and 422 PROPERTY_NOT_MAPPED on create", suite,
    clauses: ['1.V1', '4.8.R3', '7.E4'], level: 'normative', needs: ['read'], wants: ['otherApiKey'],
    async run(ctx) {
      const other = ctx.target.otherApiKey;
      if (!other) throw new NotApplicable("needs another integration's API key on the same deployment (otherApiKey in --config)");
      // Found through both integrations' property lists: what the other covers and this one does not.
      const mine = new Set((await listedProperties(ctx, ctx.target.apiKey)).map((p) => p.doorloom_id));
      const foreign = (await listedProperties(ctx, other)).map((p) => p.doorloom_id).find((id) => !mine.has(id));
      if (foreign === undefined) throw new NotApplicable('the second integration covers no property this one does not (GET /properties of both)');
      const stay = horizonStay(ctx);
      for (const kind of ['availability', 'rates', 'restrictions']) {
        const res = await ctx.api.get(`/properties/${foreign}/${kind}`, { query: { from: stay.check_in, to: stay.check_in } });
        expectStatus(ctx, res, 404, 'NOT_FOUND', '4.8.R3', `a ${kind} snapshot of another integration's property`);
      }
      expectStatus(ctx, await ctx.api.get('/bookings', { query: { property_id: foreign } }), 404, 'NOT_FOUND', '1.V1', "GET /bookings filtered by another integration's property");
      // 1.V1 note: §1 says 404, §7's /events mapping has none; either reading reveals nothing of the other integration.
      const events = await ctx.api.get('/events', { query: { property_id: foreign, include_superseded: true } });
      const revealed = events.status === 200 && Array.isArray(events.body?.data) && events.body.data.length > 0;
      if (!(events.status === 404 && events.body?.code === 'NOT_FOUND') && !(events.status === 200 && !revealed)) {
        ctx.fail('ForeignPropertyRevealed', `${describe(events)}${revealed ? ` with ${events.body.data.length} event(s)` : ''} for GET /events?property_id=${foreign}`, "no event of another integration's property: a page with no rows, or 404 NOT_FOUND", '1.V1');
      }
      if (ctx.target.capabilities.includes('write')) {
        // A refused create writes nothing, so this costs the platform nothing.
        const res = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: foreign }, ...farStay(ctx) }));
        expectStatus(ctx, res, 422, 'PROPERTY_NOT_MAPPED', '7.E12', "a create on another integration's property");
      }
    },
  }),
];
