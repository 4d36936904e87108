/** Request builders shared by the suites: safe far-future stays on the target's own properties. */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import type { CheckContext } from '../check.ts';
import { NotApplicable } from '../check.ts';
import type { Response } from '../client.ts';
import { awaitObserved } from '../not-observed.ts';

/** A property the check may read, or null when a live run named none. */
export function knownProperty(ctx: CheckContext): number | null {
  return ctx.target.properties.find((p) => !p.archived)?.doorloom_id ?? null;
}

/** A property the check may book on: live runs name them; the simulator's demo world has several. */
export function writableProperty(ctx: CheckContext, index = 0): number {
  const usable = ctx.target.properties.filter((p) => !p.archived);
  const property = usable[index % Math.max(1, usable.length)];
  if (!property) throw new NotApplicable('no property to write on: name one with --property ID');
  return property.doorloom_id;
}

/**
 * A far stay (about 400 to 720 days ahead) free now on the check's
 * properties (conformance/stays.ts). Without writes nothing is booked, so a
 * seeded date is enough (a snapshot window, a refused request).
 */
export function farStay(ctx: CheckContext, nights = 1, _slot?: number): { check_in: string; check_out: string } {
  return ctx.stays.take('far', nights) ?? seededStay(ctx, 400, 300, nights);
}

/** A stay inside a 365-day event horizon (250 to 350 days), free now, for checks that need its events. */
export function horizonStay(ctx: CheckContext, nights = 1, _slot?: number): { check_in: string; check_out: string } {
  return ctx.stays.take('horizon', nights) ?? seededStay(ctx, 250, 90, nights);
}

function seededStay(ctx: CheckContext, from: number, spread: number, nights: number): { check_in: string; check_out: string } {
  if (ctx.stays.ready) throw new NotApplicable(`no ${nights} free night(s) left in the windows read from the availability snapshot: the named properties are full there`);
  const start = addDays(dateAt(ctx.now()), from + Math.floor(ctx.random() * spread));
  return { check_in: start, check_out: addDays(start, nights) };
}

export function bookingBody(ctx: CheckContext, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    external_booking_id: ctx.uniqueId('bk'),
    property: { doorloom_id: writableProperty(ctx) },
    units: [{ adults: 2 }],
    // A stay is taken from the planner only when the caller brings none: each one taken is a night held back.
    ...('check_in' in overrides || 'check_out' in overrides ? {} : farStay(ctx)),
    guest: { name: 'Conformance Check', mobile: '9000000000' },
    pricing: { total: 1000 },
    notes: `conformance run ${ctx.runId}`,
    ...overrides,
  };
}

export function createBooking(ctx: CheckContext, body: unknown, key: string | null = ctx.uniqueId('key')) {
  return ctx.api.post('/bookings', { body, headers: key === null ? {} : { 'Idempotency-Key': key } });
}

/**
 * A create the check needs made. A live world may have filled the nights since they were read (409 UNAVAILABLE) or
 * throttled the key past the client's one wait (429): then nothing is judged. Any other answer to a valid create on
 * nights read free is the breach (§4.5: success is 201), never "not applicable".
 */
export function expectCreated(ctx: CheckContext, res: Response, what: string): void {
  if (res.status === 201) return;
  if ((res.status === 409 && res.body?.code === 'UNAVAILABLE') || (res.status === 429 && res.body?.code === 'RATE_LIMITED')) {
    throw new NotApplicable(`${what} answered ${describe(res)}: nothing was judged`);
  }
  ctx.fail('ValidCreateRefused', `${describe(res)} for ${what}`, `201 for ${what}: a valid create on nights read free succeeds`, '4.5.R8');
}

export function describe(res: Response): string {
  return `${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
}

/** Every partner operation with a request that is valid apart from authentication. */
export function everyOperation(ctx: CheckContext): { name: string; method: 'GET' | 'POST'; path: string; body?: unknown }[] {
  const property = ctx.target.properties[0]?.doorloom_id ?? 1;
  const stay = horizonStay(ctx);
  return [
    { name: 'GET /me', method: 'GET', path: '/me' },
    { name: 'GET /bookings/{doorloom_id}', method: 'GET', path: '/bookings/1' },
    { name: 'GET /bookings/external/{external_booking_id}', method: 'GET', path: '/bookings/external/x' },
    { name: 'GET /bookings', method: 'GET', path: '/bookings' },
    { name: 'POST /bookings', method: 'POST', path: '/bookings', body: {} },
    { name: 'GET /events', method: 'GET', path: '/events' },
    { name: 'POST /sync', method: 'POST', path: '/sync', body: { types: ['nope'] } },
    { name: 'GET /properties/{property}/availability', method: 'GET', path: `/properties/${property}/availability?from=${stay.check_in}&to=${stay.check_in}` },
  ];
}

/** Every retained event row from a cursor, by walking next_after_sequence (pages of 200). */
export async function allEvents(ctx: CheckContext, query: Record<string, string | number | boolean | string[]> = {}, after = 0): Promise<any[]> {
  const rows: any[] = [];
  for (let cursor = after, more = true, guard = 0; more && guard < 10_000; guard++) {
    const res = await ctx.api.get('/events', { query: { ...query, after_sequence: cursor, limit: 200 } });
    if (res.status !== 200) ctx.fail('ReplayRefused', describe(res), '200 for a valid replay query', '4.6.R1');
    rows.push(...res.body.data);
    // §4.6: next_after_sequence is the next after_sequence; one that does not move while has_more holds would page forever.
    if (res.body.cursor.has_more && !(res.body.cursor.next_after_sequence > cursor)) {
      ctx.fail('CursorStuck', `after_sequence ${cursor} answered has_more true with next_after_sequence ${res.body.cursor.next_after_sequence}`, 'next_after_sequence, the next after_sequence, moves forward while more events follow', '4.6.R4');
    }
    cursor = res.body.cursor.next_after_sequence;
    more = res.body.cursor.has_more;
  }
  return rows;
}

/** Control `clock.advance`: moves the platform's clock; every delivery, retry and expiry due on the way happens. */
export async function advance(ctx: CheckContext, seconds: number): Promise<void> {
  await ctx.control!.advanceClock(seconds);
}

/** Control `rates.set`: a change that records one rates.changed event per call for the property and window. */
export async function changeRates(ctx: CheckContext, property: number, from: string, to: string, rate: number): Promise<void> {
  await ctx.control!.setRates(property, from, to, rate);
}

/** A property and an inclusive window of nights (from..to) a change was made over. */
export interface ChangeWindow {
  property: number;
  from: string;
  to: string;
}

/** The rows of `type` for the property whose window is exactly from..to, recorded after `after`. */
export async function rowsFor(ctx: CheckContext, type: string, w: ChangeWindow, after: number): Promise<any[]> {
  const rows = await allEvents(ctx, { include_superseded: true, property_id: w.property, 'types[]': [type] }, after);
  return rows.filter((r) => r.event.type === type && r.event.window.from === w.from && r.event.window.to === w.to);
}

/**
 * The rows `read` gives once `enough(rows)` holds: a platform may record a
 * change's events a moment after the change (§1: changes are pushed as
 * events; nothing says at once). The wait ends on the rows and its cap is
 * generous (conformance/not-observed.ts); a cap that runs out is
 * NotObserved naming `awaited` (and `why` the check needs it), never a
 * failure and never a pass (issue 38).
 */
export async function recorded(ctx: CheckContext, awaited: string, read: () => Promise<any[]>, enough: (rows: any[]) => boolean, why?: string): Promise<any[]> {
  return awaitObserved(awaited, async () => {
    const rows = await read();
    return enough(rows) ? rows : undefined;
  }, { why });
}

/** What a check awaits after a change: "the rates.changed event of control rates.set on property 101, 2027-01-02..2027-01-03, after sequence 7". */
export function changeEvent(type: string, w: ChangeWindow, before: number, change: string): string {
  return `the ${type} event of ${change} on property ${w.property}, ${w.from}..${w.to}, after sequence ${before}`;
}

/**
 * Control `rates.set` over `w`, and the event it recorded: the one
 * `rates.changed` row for exactly that property and window after the latest
 * sequence read just before the change. A check judges its own events by
 * the sequences they got, never by picking among everything the integration
 * holds. Not applicable when the integration is not subscribed to
 * rates.changed, or when the event is not observed within `recorded`'s cap.
 */
export async function ratesEvent(ctx: CheckContext, w: ChangeWindow, rate: number): Promise<any> {
  const me = (await ctx.api.get('/me')).body?.data;
  if (Array.isArray(me?.webhook?.event_types) && !me.webhook.event_types.includes('rates.changed')) throw new NotApplicable(`the integration is not subscribed to rates.changed (webhook.event_types ${JSON.stringify(me.webhook.event_types)})`);
  const before = me?.webhook?.last_sequence as number;
  await changeRates(ctx, w.property, w.from, w.to, rate);
  const [row] = await recorded(ctx, changeEvent('rates.changed', w, before, 'control rates.set'), () => rowsFor(ctx, 'rates.changed', w, before), (r) => r.length > 0);
  return row;
}

/** §3.3: the newer row of the same type and property (and booking, for booking.changed) whose window covers `old`'s, if any. */
export function coveringRow(rows: any[], old: any): any | undefined {
  return rows.find((r) => r.sequence > old.sequence && r.event.type === old.event.type
    && r.event.property.doorloom_id === old.event.property.doorloom_id
    && (old.event.type !== 'booking.changed' || r.event.data?.id === old.event.data?.id)
    && r.event.window.from <= old.event.window.from && r.event.window.to >= old.event.window.to);
}

/** A property as a key's GET /properties lists it: the platform id and the partner alias, archived or not. */
export interface ListedProperty {
  doorloom_id: number;
  external_id: string;
  archived: boolean;
}

/**
 * The covered properties with their units: the target's own list where it
 * has units (in-process), else GET /properties (an x-assumption route; absent
 * on a deployment that does not serve it, then the list is the named ones).
 */
export type CoveredUnit = { inventory_id: number; external_unit_id?: string | null; active: boolean };

export async function coveredProperties(ctx: CheckContext): Promise<{ doorloom_id: number; archived: boolean; units: CoveredUnit[] }[]> {
  if (ctx.target.properties.some((p) => p.units.length > 0)) return ctx.target.properties;
  const found: { doorloom_id: number; archived: boolean; units: CoveredUnit[] }[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await ctx.api.get('/properties', { query: { page, per_page: 200 } });
    if (res.status !== 200 || !Array.isArray(res.body?.data)) break;
    for (const r of res.body.data) {
      found.push({ doorloom_id: r.doorloom_id, archived: r.property?.archived === true, units: (r.inventory?.units ?? []).map((u: any) => ({ inventory_id: u.inventory_id, external_unit_id: typeof u.external_unit_id === 'string' ? u.external_unit_id : null, active: u.active !== false })) });
    }
    if (!res.body.pagination || page >= res.body.pagination.last_page) break;
  }
  return found;
}

/**
 * Every property a key's GET /properties lists (paged; spec x-assumption on listProperties: the route and its
 * shape are not shown), none when the route is not there. Checks use it to find what another integration covers,
 * never to judge: what it lists is setup.
 */
export async function listedProperties(ctx: CheckContext, token: string): Promise<ListedProperty[]> {
  const found: ListedProperty[] = [];
  for (let page = 1, last = 1; page <= last && page <= 50; page++) {
    const res = await ctx.api.get('/properties', { token, query: { page, per_page: 200 } });
    if (res.status !== 200 || !Array.isArray(res.body?.data)) return found;
    for (const p of res.body.data) {
      if (Number.isInteger(p?.doorloom_id)) found.push({ doorloom_id: p.doorloom_id, external_id: typeof p.external_id === 'string' ? p.external_id : '', archived: p.property?.archived === true });
    }
    last = res.body.pagination?.last_page ?? 1;
  }
  return found;
}

/**
 * A night free on `property` as `token` reads its availability snapshot (§4.8), in a far window the check's seed
 * picks (about 400 to 720 days ahead): a stay for a create made with another integration's key, whose properties
 * the run's StayPlanner does not read. Null when the window shows no free night.
 */
export async function freeNightOf(ctx: CheckContext, token: string, property: number): Promise<{ check_in: string; check_out: string } | null> {
  const from = addDays(dateAt(ctx.now()), 400 + Math.floor(ctx.random() * 229));
  const res = await ctx.api.get(`/properties/${property}/availability`, { token, query: { from, to: addDays(from, 91) } });
  const dates: any[] = res.status === 200 && Array.isArray(res.body?.data?.data?.dates) ? res.body.data.data.dates : [];
  const night = dates.find((d) => typeof d?.date === 'string' && d.is_blocked !== true && Number.isInteger(d.available_units) && d.available_units > 0);
  return night ? { check_in: night.date, check_out: addDays(night.date, 1) } : null;
}