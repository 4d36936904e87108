/** Auth and visibility (§1, §5, §7): 401/403 variants, the switch, cross-integration 404s. */
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { ExchangeLog, retryAfterSeconds, type Response } from '../client.ts';
import { bookingBody, createBooking, describe, everyOperation, farStay, horizonStay } from './support.ts';

const suite = 'auth';

/** At most this many calls (or this long) to reach the partner rate limit. */
const BURST_CALLS = 20_000;
const BURST_SECONDS = 120;
const BURST_PARALLEL = 16;
/** The partner limit the control plane sets in-process (calls a minute), so the burst stays small. */
const IN_PROCESS_LIMIT = 5;

/**
 * Cheap partner calls (a one-row replay page), 16 at a time, until one answers
 * 429 RATE_LIMITED. Exchanges go to a log of their own; only the 429 joins the
 * check's exchanges. Anything but 200 or 429 stops the burst as an error.
 */
async function burst(ctx: CheckContext, most = BURST_CALLS): Promise<{ res: Response | null; calls: number; seconds: number; log: ExchangeLog }> {
  const log = new ExchangeLog();
  const api = ctx.api.withOptions({ log, retryAfterBudgetSeconds: 0 });
  const started = Date.now();
  let calls = 0;
  let limited: Response | null = null;
  const worker = async () => {
    while (!limited && calls < most && Date.now() - started < BURST_SECONDS * 1000) {
      calls += 1;
      const res = await api.get('/events', { query: { limit: 1 } });
      if (res.status === 429 && res.body?.code === 'RATE_LIMITED') limited ??= res;
      else if (res.status !== 200) throw new Error(`a burst call answered ${describe(res)}`);
    }
  };
  await Promise.all(Array.from({ length: BURST_PARALLEL }, worker));
  const exchange = log.exchanges.find((e) => e.status === 429);
  if (exchange) ctx.log.exchanges.push({ ...exchange, n: ctx.log.exchanges.length + 1 });
  return { res: limited, calls, seconds: Math.round((Date.now() - started) / 1000), log };
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
    clauses: ['5.R5', '7.E2'], level: 'normative', needs: ['read'],
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
    clauses: ['5.R5a', '7.E3', '3.1.T5'], level: 'normative', needs: ['read'],
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
    id: 'auth.switched-off-is-bare-404', title: 'With the API switched off every route is a bare 404 with an empty body', suite,
    clauses: ['5.R6', '7.E5'], level: 'normative', needs: ['read', control('api.switch')],
    async run(ctx) {
      await ctx.control!.setApiEnabled(false);
      ctx.cleanup.unshift(async () => void (await ctx.control!.setApiEnabled(true)));
      for (const op of everyOperation(ctx)) {
        const res = await ctx.api.request(op.method, op.path, { body: op.body });
        if (res.status !== 404 || res.text !== '') ctx.fail('NotBare404', `${describe(res)} with ${res.text.length} body bytes for ${op.name}`, 'a bare 404 with an empty body', '5.R6');
      }
    },
  }),
  defineCheck({
    id: 'auth.rate-limited-headers', title: 'Partner calls past the rate limit get 429 RATE_LIMITED with Retry-After and X-RateLimit-* set', suite,
    clauses: ['7.E16'], level: 'normative', needs: ['burst'],
    async run(ctx) {
      // In-process the control plane shrinks the limit so the burst stays small; live, the deployment's own limit is driven.
      const set = ctx.target.kind === 'in-process' ? IN_PROCESS_LIMIT : null;
      if (set) await ctx.control!.setRateLimit(set, 60);
      // Where the limit is known, a burst well past it decides at once: no 429 is then a breach, not a limit out of reach.
      const { res, calls, seconds, log } = await burst(ctx, set ? set + 2 * BURST_PARALLEL : BURST_CALLS);
      if (!res && set) return ctx.fail('NeverRateLimited', `${calls} calls in ${seconds} s, none answered 429 RATE_LIMITED, with the limit set to ${set} calls a minute`, 'a rate limit exceeded: 429 RATE_LIMITED with Retry-After and X-RateLimit-*', '7.E16');
      if (!res) throw new NotApplicable(`no 429 RATE_LIMITED within ${calls} calls in ${seconds} s: the limit is higher than a burst reaches`);
      const retryAfter = res.headers['retry-after'];
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
      // Retry-After holds: once that many seconds have passed, the call goes through (in-process the clock moves; the
      // control plane set a 60-second window, so the wait is never longer).
      const wait = retryAfterSeconds(retryAfter);
      if (ctx.target.kind === 'in-process' && ctx.control?.offers('clock.advance') && wait !== null) {
        if (wait > 60) ctx.fail('RetryAfterTooLong', `Retry-After: ${retryAfter} with a 60-second window`, 'Retry-After: the seconds to wait, no longer than the window', '7.E16');
        await ctx.control.advanceClock(Math.min(wait, 60));
        const again = await ctx.api.withOptions({ retryAfterBudgetSeconds: 0 }).get('/events', { query: { limit: 1 } });
        if (again.status !== 200) ctx.fail('RetryAfterDoesNotHold', `${describe(again)} ${wait} s after a 429 answered Retry-After: ${retryAfter}`, 'Retry-After: the seconds to wait before the call goes through', '7.E16');
      }
      // Live, the key stays throttled until the window resets: wait it out (bounded) so later checks are not refused.
      if (ctx.target.kind === 'live') await new Promise((r) => setTimeout(r, Math.min(120, retryAfterSeconds(retryAfter) ?? 0) * 1000 + 250));
    },
  }),
  defineCheck({
    id: 'visibility.foreign-booking-is-404', title: "Another integration's booking is 404 NOT_FOUND, never 403, by id, by external id and in lists", suite,
    clauses: ['1.V1', '1.V2', '4.2.R2', '4.3.R2', '7.E4'], level: 'normative', needs: ['write'],
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
    clauses: ['1.V1', '4.8.R3', '7.E4'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const other = ctx.target.otherApiKey;
      if (!other) throw new NotApplicable("needs another integration's API key on the same deployment (otherApiKey in --config)");
      // Found through both integrations' property lists: what the other covers and this one does not.
      const mine = new Set(await coveredProperties(ctx, ctx.target.apiKey));
      const foreign = (await coveredProperties(ctx, other)).find((id) => !mine.has(id));
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

/** Every property id a key's GET /properties lists (paged); none when the route is not there. */
async function coveredProperties(ctx: CheckContext, token: string): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1, last = 1; page <= last && page <= 50; page++) {
    const res = await ctx.api.get('/properties', { token, query: { page, per_page: 200 } });
    if (res.status !== 200 || !Array.isArray(res.body?.data)) return ids;
    ids.push(...res.body.data.map((p: any) => p.doorloom_id));
    last = res.body.pagination?.last_page ?? 1;
  }
  return ids;
}
