/**
 * §1 visibility wherever an integration names something (issue 40 item 4): a property alias in a snapshot path or a
 * create, an Idempotency-Key, an external_booking_id, a sync's property_ids, the events' property_id filter. What
 * another integration named the same way is invisible: the document's 404 or 422, never its data, never a refusal
 * its records caused. Reads by id are auth.ts's visibility checks. Each check names the second integration through
 * its key (otherApiKey in --config, PARTNER_OTHER_API_KEY) and finds what it covers through GET /properties.
 */
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import type { Response } from '../client.ts';
import { control } from '../control.ts';
import { allEvents, bookingBody, createBooking, describe, expectCreated, farStay, freeNightOf, horizonStay, knownProperty, listedProperties, recorded, type ListedProperty } from './support.ts';

const suite = 'auth';
const NEEDS_OTHER = "needs another integration's API key on the same deployment (otherApiKey in --config, or PARTNER_OTHER_API_KEY)";

function otherKey(ctx: CheckContext): string {
  const other = ctx.target.otherApiKey;
  if (!other) throw new NotApplicable(NEEDS_OTHER);
  return other;
}

/**
 * A property the other integration lists and this one cannot name: neither its id nor its alias is one of this
 * integration's (an alias two integrations share would name this one's own property, rightly). Unarchived first.
 */
async function foreignProperty(ctx: CheckContext, other: string): Promise<{ foreign: ListedProperty; mine: ListedProperty[]; theirs: ListedProperty[] }> {
  const mine = await listedProperties(ctx, ctx.target.apiKey);
  const theirs = await listedProperties(ctx, other);
  const ids = new Set([...mine.map((p) => p.doorloom_id), ...ctx.target.properties.map((p) => p.doorloom_id)]);
  const aliases = new Set(mine.map((p) => p.external_id));
  const nameable = (p: ListedProperty) => !ids.has(p.doorloom_id) && p.external_id !== '' && !aliases.has(p.external_id) && !(/^[0-9]+$/.test(p.external_id) && ids.has(Number(p.external_id)));
  const foreign = theirs.filter(nameable).sort((a, b) => Number(a.archived) - Number(b.archived))[0];
  if (!foreign) throw new NotApplicable(`the second integration lists no property this one cannot name by id or alias (GET /properties: ${theirs.length} listed for it, ${mine.length} for this one)`);
  return { foreign, mine, theirs };
}

/** The create a second integration makes with `token`: its own key, its own body. */
function createAs(ctx: CheckContext, token: string, body: unknown, key: string): Promise<Response> {
  return ctx.api.post('/bookings', { token, body, headers: { 'Idempotency-Key': key } });
}

/** A booking the other integration makes on its own property, on a night its snapshot shows free; not applicable when it cannot. */
async function otherCreates(ctx: CheckContext, other: string, property: ListedProperty, overrides: Record<string, unknown>, key: string): Promise<Response> {
  if (property.archived) throw new NotApplicable(`the second integration's property ${property.doorloom_id} is archived: it cannot book there`);
  const stay = await freeNightOf(ctx, other, property.doorloom_id);
  if (!stay) throw new NotApplicable(`no free night on the second integration's property ${property.doorloom_id} in the window read`);
  const res = await createAs(ctx, other, bookingBody(ctx, { property: { doorloom_id: property.doorloom_id }, ...stay, ...overrides }), key);
  if ((res.status === 409 && res.body?.code === 'UNAVAILABLE') || (res.status === 429 && res.body?.code === 'RATE_LIMITED')) {
    throw new NotApplicable(`the second integration's create on property ${property.doorloom_id} answered ${describe(res)}: nothing was judged`);
  }
  return res;
}

/**
 * Where the other integration books its own booking: a property the run may write on with its key (in-process its
 * own; live --other-property, as --property bounds this integration's writes), that it lists and this one does not.
 */
function ownPropertyOfOther(ctx: CheckContext, theirs: ListedProperty[], mine: ListedProperty[]): ListedProperty {
  const mineIds = new Set(mine.map((p) => p.doorloom_id));
  const allowed = new Set(ctx.target.otherProperties);
  const found = theirs.find((p) => allowed.has(p.doorloom_id) && !p.archived && !mineIds.has(p.doorloom_id));
  if (!found) throw new NotApplicable(`needs a property the second integration may book on with its key, listed for it and not for this one (--other-property ID, otherProperties in --config; named: ${ctx.target.otherProperties.join(', ') || 'none'})`);
  return found;
}

export const visibilityChecks = [
  defineCheck({
    id: 'visibility.foreign-alias-names-nothing', title: "Another integration's property alias names nothing: availability, rates and restrictions snapshots by it are 404 NOT_FOUND, a create naming it 422 PROPERTY_NOT_MAPPED", suite,
    clauses: ['1.V1', '4.8.Q1', '4.8.R3', '4.5.Q32', '7.E4', '7.E11'], level: 'normative', needs: ['read'], wants: ['otherApiKey'],
    async run(ctx) {
      const other = otherKey(ctx);
      const { foreign } = await foreignProperty(ctx, other);
      const alias = foreign.external_id;
      const stay = horizonStay(ctx);
      const path = (kind: string) => `/properties/${encodeURIComponent(alias)}/${kind}`;
      // The alias names a property for the integration it belongs to (§4.8: the platform id or the partner alias).
      const own = await ctx.api.get(path('availability'), { token: other, query: { from: stay.check_in, to: stay.check_in } });
      if (own.status !== 200) throw new NotApplicable(`the second integration's own availability snapshot by its alias ${alias} answered ${describe(own)}: the alias names nothing to hide`);
      for (const kind of ['availability', 'rates', 'restrictions']) {
        const res = await ctx.api.get(path(kind), { query: { from: stay.check_in, to: stay.check_in } });
        if (res.status === 200) {
          ctx.fail('ForeignAliasResolved', `200 with the ${kind} snapshot of property ${res.body?.data?.property?.doorloom_id} for GET ${path(kind)}, another integration's alias`, "404 NOT_FOUND: an unknown or uncovered property (§4.8); another integration's property is 404 (§1)", '1.V1');
        }
        expectStatus(ctx, res, 404, 'NOT_FOUND', '4.8.R3', `a ${kind} snapshot by another integration's alias ${alias}`);
      }
      if (ctx.target.capabilities.includes('write')) {
        // A refused create writes nothing, so this costs the platform nothing.
        const res = await createBooking(ctx, bookingBody(ctx, { property: { external_id: alias }, ...farStay(ctx) }));
        if (res.status === 200 || res.status === 201) {
          ctx.fail('ForeignAliasBooked', `${describe(res)}: booking ${res.body?.data?.id} on property ${res.body?.data?.property?.doorloom_id} for a create naming property.external_id ${alias}, another integration's alias`, "422 PROPERTY_NOT_MAPPED: a property reference outside coverage (§4.5, §7)", '1.V1');
        }
        expectStatus(ctx, res, 422, 'PROPERTY_NOT_MAPPED', '4.5.Q32', `a create naming another integration's alias ${alias} as property.external_id`);
      }
    },
  }),
  defineCheck({
    id: 'visibility.idempotency-key-per-integration', title: "Another integration's Idempotency-Key is not this one's: the same key is a fresh create, never a replay of its answer nor IDEMPOTENCY_KEY_REUSED", suite,
    clauses: ['1.V1', '4.5.R1', '4.5.Q32'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const other = otherKey(ctx);
      const { mine, theirs } = await foreignProperty(ctx, other);
      // Where the other integration may book (live: --other-property), before anything is written for it.
      let bookable: ListedProperty | NotApplicable;
      try {
        bookable = ownPropertyOfOther(ctx, theirs, mine);
      } catch (e) {
        if (!(e instanceof NotApplicable)) throw e;
        bookable = e;
      }
      // Two creates, each under its own key: a key the other integration has used once is then its own, so each of its
      // probes below takes a key of this integration's that it never used.
      const made: { key: string; body: Record<string, any>; res: Response }[] = [];
      for (let i = 0; i < (bookable instanceof NotApplicable ? 1 : 2); i++) {
        const key = ctx.uniqueKey(40);
        const body = bookingBody(ctx);
        const res = await createBooking(ctx, body, key);
        expectCreated(ctx, res, 'a valid create');
        made.push({ key, body, res });
      }
      const [replayed, reused] = made as [typeof made[0], typeof made[0] | undefined];
      const theirIds = new Set(theirs.map((p) => p.doorloom_id));
      const judge = (res: Response, mineAnswer: Response, what: string) => {
        if (res.text === mineAnswer.text || res.body?.data?.id === mineAnswer.body.data.id) {
          ctx.fail('ForeignKeyReplayed', `${describe(res)} with booking ${res.body?.data?.id} for ${what}: the first integration's answer under the key`, "the key's first use by this integration, answered on its own body (§4.5 rule 1 replays an integration's own answer; §1 never another's data)", '1.V1');
        }
        if (['IDEMPOTENCY_KEY_REUSED', 'IN_PROGRESS'].includes(res.body?.code)) {
          ctx.fail('ForeignKeyRefused', `${describe(res)} for ${what}`, "the key's first use by this integration: another integration's use of it is invisible (§1), so neither 422 IDEMPOTENCY_KEY_REUSED nor 409 IN_PROGRESS", '1.V1');
        }
      };
      // The same key and the same body from the other integration: its own first use of the key, judged as its own
      // create. Where it does not cover this integration's property (§4.5, §7: 422 PROPERTY_NOT_MAPPED) nothing is written.
      if (!theirIds.has(replayed.body.property.doorloom_id)) {
        const res = await createAs(ctx, other, replayed.body, replayed.key);
        judge(res, replayed.res, 'the same Idempotency-Key and body sent by another integration');
        if (theirIds.size > 0) expectStatus(ctx, res, 422, 'PROPERTY_NOT_MAPPED', '4.5.Q32', `the same Idempotency-Key and body sent by another integration (it does not cover property ${replayed.body.property.doorloom_id})`);
      }
      // The other key on the other integration's own valid body: a fresh create (§4.5 rule 8: 201), its own booking.
      if (bookable instanceof NotApplicable || !reused) throw bookable;
      const fresh = await otherCreates(ctx, other, bookable, {}, reused.key);
      judge(fresh, reused.res, "the same Idempotency-Key on another integration's own valid create");
      if (fresh.status !== 201) ctx.fail('ValidCreateRefused', `${describe(fresh)} for another integration's own valid create under an Idempotency-Key the first integration used`, "201: the key's first use by that integration (§4.5 rule 8)", '4.5.R1');
      // And each key still replays this integration's own answer byte for byte (§4.5 rule 1), not the other's.
      for (const { key, body, res } of made) {
        const again = await createBooking(ctx, body, key);
        if (again.text !== res.text) ctx.fail('ReplayChanged', `${describe(again)} with booking ${again.body?.data?.id} replaying the key after another integration used it`, `the original answer byte for byte (booking ${res.body.data.id})`, '4.5.R1');
      }
    },
  }),
  defineCheck({
    id: 'visibility.external-id-per-integration', title: "external_booking_id is unique within the integration: another integration's id is a fresh create, never a 200 duplicate of its booking", suite,
    clauses: ['1.V1', '4.5.Q3', '4.5.R4', '2.3.R5', '4.3.R1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const other = otherKey(ctx);
      const { mine, theirs } = await foreignProperty(ctx, other);
      const bookable = ownPropertyOfOther(ctx, theirs, mine);
      const body = bookingBody(ctx);
      const created = await createBooking(ctx, body);
      expectCreated(ctx, created, 'a valid create');
      const id = created.body.data.id;
      const external = body.external_booking_id as string;
      // The other integration's create under the same external_booking_id, on its own property, with its own key.
      const res = await otherCreates(ctx, other, bookable, { external_booking_id: external }, ctx.uniqueKey(40));
      if (res.body?.data?.id === id || res.body?.data?.duplicate === true) {
        ctx.fail('ForeignDuplicate', `${describe(res)} with booking ${res.body?.data?.id}${res.body?.data?.duplicate === true ? ' and duplicate true' : ''} for another integration's create reusing external_booking_id ${external}`, "201, a booking of its own: external_booking_id is unique within the integration (§2.3, §4.5), and §4.5 rule 4's duplicate is an integration's own booking", '1.V1');
      }
      expectStatus(ctx, res, 201, null, '4.5.Q3', `another integration's valid create reusing external_booking_id ${external}`);
      // Each reads its own booking by the id (§4.3).
      const theirsRead = await ctx.api.get(`/bookings/external/${encodeURIComponent(external)}`, { token: other });
      expectStatus(ctx, theirsRead, 200, null, '4.3.R1', `the second integration reading external_booking_id ${external}`);
      if (theirsRead.body?.data?.id !== res.body.data.id) ctx.fail('ForeignBookingRead', `booking ${theirsRead.body?.data?.id} for the second integration's GET /bookings/external/${external}`, `its own booking ${res.body.data.id}`, '1.V1');
      const mineRead = await ctx.api.get(`/bookings/external/${encodeURIComponent(external)}`);
      expectStatus(ctx, mineRead, 200, null, '4.3.R1', `reading external_booking_id ${external}`);
      if (mineRead.body?.data?.id !== id) ctx.fail('ForeignBookingRead', `booking ${mineRead.body?.data?.id} for GET /bookings/external/${external}`, `this integration's own booking ${id}`, '1.V1');
    },
  }),
  defineCheck({
    id: 'visibility.sync-foreign-property-422', title: "A sync naming another integration's property is 422 PROPERTY_NOT_MAPPED, alone or beside a covered one", suite,
    clauses: ['1.V1', '4.7.Q2', '4.7.Q2a', '7.E11'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const other = otherKey(ctx);
      const { foreign } = await foreignProperty(ctx, other);
      // Never retried on 429: a retry is one more call toward the day's six (§8).
      const api = ctx.api.withOptions({ retryAfterBudgetSeconds: 0 });
      const own = knownProperty(ctx);
      const bodies: [string, number[]][] = [[`property_ids [${foreign.doorloom_id}]`, [foreign.doorloom_id]], ...(own === null ? [] : [[`property_ids [${own}, ${foreign.doorloom_id}]`, [own, foreign.doorloom_id]] as [string, number[]]])];
      for (const [what, ids] of bodies) {
        const res = await api.post('/sync', { body: { property_ids: ids, types: ['property'] } });
        // §4.7: validation runs before the interval is charged; a platform may still answer a spent window or cap first.
        if (res.status === 429) throw new NotApplicable(`a sync naming another integration's property answered ${describe(res)}: the day's window or calls were spent before, nothing was judged`);
        if (res.status === 202) ctx.fail('ForeignPropertySynced', `202 (queued_properties ${res.body?.data?.queued_properties}) for a sync of ${what}, ${foreign.doorloom_id} another integration's property`, '422 PROPERTY_NOT_MAPPED: each property id covered by the integration (§4.7); outside coverage (§7)', '4.7.Q2a');
        expectStatus(ctx, res, 422, 'PROPERTY_NOT_MAPPED', '4.7.Q2a', `a sync of ${what}, ${foreign.doorloom_id} another integration's property`);
      }
    },
  }),
  defineCheck({
    id: 'visibility.foreign-property-events-hidden', title: "The events of another integration's property never reach this one: GET /events?property_id= of it shows none, and neither does the replay", suite,
    clauses: ['1.V1', '1.V2', '4.6.Q3'], level: 'normative', needs: ['read'], wants: ['otherApiKey', 'write'],
    async run(ctx) {
      const other = otherKey(ctx);
      const { foreign, mine, theirs } = await foreignProperty(ctx, other);
      const property = foreign.doorloom_id;
      const before = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence;
      if (!Number.isInteger(before)) throw new NotApplicable('GET /events answered no cursor.latest_sequence: the replay cannot be bounded');
      const theirRows = () => ctx.api.get('/events', { token: other, query: { property_id: property, include_superseded: true, limit: 200 } }).then((r) => (r.status === 200 && Array.isArray(r.body?.data) ? r.body.data : []));
      // The other integration must hold events of the property, or hiding them proves nothing: made where the run can.
      if ((await theirRows()).length === 0) {
        const night = horizonStay(ctx);
        if (ctx.control?.offers('rates.set')) await ctx.control.setRates(property, night.check_in, night.check_in, 4321);
        else if (ctx.target.capabilities.includes('write')) expectCreated(ctx, await otherCreates(ctx, other, ownPropertyOfOther(ctx, theirs, mine), {}, ctx.uniqueKey(40)), "the second integration's create");
        else throw new NotApplicable(`the second integration holds no event of its property ${property}, and the run can make none (${control('rates.set')} or write)`);
        await recorded(ctx, `an event of property ${property} in the second integration's replay`, theirRows, (rows) => rows.length > 0);
      }
      // §1: another integration's property is 404; §7 maps no 404 to /events. Either reading shows none of its events.
      const res = await ctx.api.get('/events', { query: { property_id: property, include_superseded: true, limit: 200 } });
      const rows = res.status === 200 && Array.isArray(res.body?.data) ? res.body.data : [];
      if (rows.length > 0) {
        ctx.fail('ForeignEventsShown', `${rows.length} event(s) of another integration's property ${property} (sequences ${rows.slice(0, 5).map((r: any) => r.sequence).join(', ')}) for GET /events?property_id=${property}`, "none: every endpoint sees only the calling integration's data (§1); a page with no rows, or 404 NOT_FOUND", '1.V2');
      }
      if (!(res.status === 404 && res.body?.code === 'NOT_FOUND') && res.status !== 200) ctx.fail('UnexpectedStatus', `${describe(res)} for GET /events?property_id=${property}`, '200 with no rows, or 404 NOT_FOUND (§1)', '1.V1');
      const leaked = (await allEvents(ctx, { include_superseded: true }, before)).filter((r) => r.event?.property?.doorloom_id === property);
      if (leaked.length > 0) ctx.fail('ForeignEventsShown', `${leaked.length} event(s) of another integration's property ${property} in this integration's replay after sequence ${before}`, "only the calling integration's events (§1)", '1.V2');
    },
  }),
];
