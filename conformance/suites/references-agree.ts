/**
 * The create's references (spec x-assumption on BookingCreateRequest, where
 * §4.5 lists both references of a property and of a unit and says nothing of
 * both given): property.doorloom_id and property.external_id given together
 * must name the same covered property (else PROPERTY_NOT_MAPPED), a unit's
 * inventory_id and external_unit_id the same unit (else UNIT_NOT_MAPPED); two
 * entries pinning one unit are VALIDATION_FAILED on the later entry. A
 * refusal writes nothing (§7): no booking, no event.
 */
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { allEvents, bookingBody, coveredProperties, createBooking, describe, farStay, listedProperties, recorded } from './support.ts';
import { keyWithin } from './validation.ts';

const suite = 'validation';

/** A refused create: 422 with its code, and nothing under its external_booking_id (§7: a refusal writes nothing). */
async function refused(ctx: CheckContext, body: Record<string, any>, code: string, clause: string, what: string): Promise<any> {
  const res = await createBooking(ctx, body);
  if (res.status === 201) ctx.fail('MismatchedReferencesBooked', `${describe(res)}: booking ${res.body?.data?.id} on property ${res.body?.data?.property?.doorloom_id} for ${what}`, `422 ${code}: the references name two different things (spec x-assumption on BookingCreateRequest)`, clause);
  expectStatus(ctx, res, 422, code, clause, what);
  const written = await ctx.api.get(`/bookings/external/${encodeURIComponent(body.external_booking_id)}`);
  if (written.status !== 404) ctx.fail('RefusalWrote', `${describe(written)} reading the external_booking_id of ${what}`, `404 NOT_FOUND: nothing written on 422 ${code}`, '7.C1');
  return res;
}

/** A create whose two references name the same thing: booked (a 409 is a night taken since the planner read it). */
async function booked(ctx: CheckContext, body: Record<string, any>, clause: string, what: string): Promise<number> {
  const res = await createBooking(ctx, body);
  if (res.status === 409) throw new NotApplicable(`${what} answered 409 UNAVAILABLE: the night was taken, so the agreeing references were not judged`);
  expectStatus(ctx, res, 201, null, clause, `${what} (both references name the same one: spec x-assumption on BookingCreateRequest)`);
  return res.body.data.id;
}

export const referencesAgreeChecks = [
  defineCheck({
    id: 'validation.references-agree', title: "A property's id and alias, or a unit's, naming two different ones are 422 PROPERTY_NOT_MAPPED or UNIT_NOT_MAPPED and write nothing, naming the same one they book; one unit pinned by two entries is 422 VALIDATION_FAILED keyed on the later entry (spec x-assumption on BookingCreateRequest)", suite,
    clauses: ['4.5.Q4', '4.5.Q32', '7.E11', '4.5.Q6', '4.5.Q7', '4.5.Q34', '7.E13', '4.5.Q5', '7.C1'], level: 'assumption', needs: ['write'],
    async run(ctx) {
      // Written on: the run's own properties (live: those named with --property). Aliases: the target's, else GET /properties.
      const writable = ctx.target.properties.filter((p) => !p.archived);
      const aliased = ctx.target.properties.some((p) => p.external_id !== '') ? ctx.target.properties : await listedProperties(ctx, ctx.target.apiKey);
      const aliasOf = (id: number) => aliased.find((p) => p.doorloom_id === id && p.external_id !== '')?.external_id;
      const own = writable.find((p) => aliasOf(p.doorloom_id) !== undefined);
      const other = own && aliased.find((p) => !p.archived && p.external_id !== '' && p.doorloom_id !== own.doorloom_id);
      const withUnits = (await coveredProperties(ctx)).map((p) => ({ ...p, units: p.units.filter((u) => u.active && typeof u.external_unit_id === 'string' && u.external_unit_id !== '') }))
        .find((p) => !p.archived && p.units.length >= 2 && writable.some((w) => w.doorloom_id === p.doorloom_id));
      if (!own || !other || !withUnits) {
        const missing = [!own || !other ? 'two covered properties with aliases, one the run may write on' : '', withUnits ? '' : 'a property the run may write on with two active units with aliases'];
        throw new NotApplicable(`needs ${missing.filter((m) => m !== '').join(' and ')} (target fixtures or GET /properties)`);
      }
      const mark = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      const [x, y] = withUnits.units as [typeof withUnits.units[number], typeof withUnits.units[number]];
      const onUnits = { property: { doorloom_id: withUnits.doorloom_id } };

      // 1. The id of one covered property and the alias of another: naming nothing (PROPERTY_NOT_MAPPED), keyed under property.
      const propertyBody = bookingBody(ctx, { property: { doorloom_id: own.doorloom_id, external_id: other.external_id }, units: [{ adults: 1 }] });
      const notMapped = await refused(ctx, propertyBody, 'PROPERTY_NOT_MAPPED', '4.5.Q32', `a create naming property ${own.doorloom_id} by id and ${other.external_id}, the alias of property ${other.doorloom_id}`);
      const propertyKeys = Object.keys(notMapped.body?.errors ?? {});
      if (!propertyKeys.some((k) => keyWithin(k, 'property'))) ctx.fail('RefusalNotNamed', `errors ${JSON.stringify(notMapped.body?.errors ?? null)} for a create naming two properties`, 'errors naming property (or a path under it)', '7.C1');

      // 2. A unit's inventory_id and the alias of another unit of the same property: naming no one unit (UNIT_NOT_MAPPED).
      const unitBody = bookingBody(ctx, { ...onUnits, units: [{ adults: 1, inventory_id: x.inventory_id, external_unit_id: y.external_unit_id }] });
      await refused(ctx, unitBody, 'UNIT_NOT_MAPPED', '4.5.Q34', `a create on property ${withUnits.doorloom_id} pinning unit ${x.inventory_id} by id and ${y.external_unit_id}, the alias of unit ${y.inventory_id}`);

      // 3. One unit pinned by two entries (by id, then by its alias): refused on the later entry, units.1 however spelled (§7
      // shows no path syntax), on nights where every unit is free, so no answer can be about availability.
      const free = ctx.stays.take('far', 1, withUnits.units.length) ?? farStay(ctx);
      const twiceBody = bookingBody(ctx, { ...onUnits, ...free, units: [{ adults: 1, inventory_id: x.inventory_id }, { adults: 1, external_unit_id: x.external_unit_id }] });
      const twice = await refused(ctx, twiceBody, 'VALIDATION_FAILED', '4.5.Q5', `a create on property ${withUnits.doorloom_id} pinning unit ${x.inventory_id} in units.0 and again, by its alias ${x.external_unit_id}, in units.1`);
      const twiceKeys = Object.keys(twice.body?.errors ?? {});
      if (!twiceKeys.some((k) => keyWithin(k, 'units.1'))) ctx.fail('WrongErrorField', `errors ${JSON.stringify(twice.body?.errors ?? null)} for one unit pinned by units.0 and units.1`, 'errors naming units.1, the later entry (units.1, units[1] or a path within it: spec x-assumption on BookingCreateRequest)', '7.C1');

      // Both references naming the same one are no refusal: the property by its id and its own alias, a unit likewise.
      const ids = [
        await booked(ctx, bookingBody(ctx, { property: { doorloom_id: own.doorloom_id, external_id: aliasOf(own.doorloom_id) }, units: [{ adults: 1 }] }), '4.5.Q4', `a create naming property ${own.doorloom_id} by id and by its own alias ${aliasOf(own.doorloom_id)}`),
        await booked(ctx, bookingBody(ctx, { ...onUnits, ...(ctx.stays.take('far', 1, withUnits.units.length) ?? farStay(ctx)), units: [{ adults: 1, inventory_id: y.inventory_id, external_unit_id: y.external_unit_id }] }), '4.5.Q7', `a create on property ${withUnits.doorloom_id} pinning unit ${y.inventory_id} by id and by its own alias ${y.external_unit_id}`),
      ];

      // No event of the refusals (§4.5 rule 9 is a create's): an absence, proven once the later bookings' own events are
      // there (events are recorded in sequence order, §6.2). Not judged where the integration does not get booking.changed.
      const types = (await ctx.api.get('/me')).body?.data?.webhook?.event_types;
      if (Array.isArray(types) && !types.includes('booking.changed')) return;
      const mine = (r: any) => r.event.type === 'booking.changed' && ids.includes(r.event.data?.id);
      const rows = await recorded(ctx, `the booking.changed events of bookings ${ids.join(', ')}, made after the refusals, after sequence ${mark}`,
        () => allEvents(ctx, { include_superseded: true }, mark), (rs) => ids.every((id) => rs.some((r) => mine(r) && r.event.data.id === id)), 'the refusals are judged by the events that follow them');
      // booking.changed's data is the booking (spec x-assumption on BookingChangedEvent): one of a refused create's is a write.
      const refusedIds = new Set([propertyBody, unitBody, twiceBody].map((b) => b.external_booking_id as string));
      const stray = rows.filter((r) => r.event.type === 'booking.changed' && refusedIds.has(r.event.data?.external_booking_id));
      if (stray.length > 0) ctx.fail('RefusalEmitted', `events after the refusals: ${stray.map((r) => `${r.sequence} booking.changed of booking ${r.event.data?.id} (${r.event.data?.external_booking_id})`).join(', ')}`, 'no event of a refused create: nothing written on 422', '7.C1');
    },
  }),
];
