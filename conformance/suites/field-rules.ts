/**
 * The §4.5 body table and the §8 string and guest limits, field by field:
 * one create with every field that has a documented maximum exactly at it
 * (and every other optional field given) is accepted, each field credited to
 * its own clause; every single-field violation the contract implies for
 * those fields (one past a maximum, one under a minimum, a wrong type) is
 * refused naming the field. The create asks for status pending (§3.2): it
 * must hold inventory and emit availability.changed and booking.changed.
 * Deterministic: every violation, every run; one booking written.
 */
import { addDays } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { bodyViolations } from '../arbitraries/requests.ts';
import { allEvents, bookingBody, createBooking, describe, horizonStay, writableProperty } from './support.ts';
import { singleFieldRefusal } from './single-field-refusal.ts';

const suite = 'validation';

/** Field path → the clause of the §4.5 body table that states its rule. */
export const FIELD_CLAUSES: Record<string, string> = {
  external_booking_id: '4.5.Q3',
  'property.external_id': '4.5.Q4a',
  'units.0.inventory_id': '4.5.Q6',
  'units.0.external_unit_id': '4.5.Q7',
  'units.0.adults': '4.5.Q8',
  'units.0.children': '4.5.Q9',
  'units.0.meal_plan': '4.5.Q10',
  'units.0.stay_price': '4.5.Q11',
  'guest.name': '4.5.Q15',
  'guest.phone_code': '4.5.Q16',
  'guest.mobile': '4.5.Q17',
  'guest.email': '4.5.Q18',
  'guest.country': '4.5.Q19',
  'pricing.currency': '4.5.Q21',
  'pricing.includes_gst': '4.5.Q22',
  'pricing.breakdown': '4.5.Q23',
  'payment.status': '4.5.Q24',
  'payment.amount_collected': '4.5.Q25',
  'payment.collected_by': '4.5.Q26',
  'payment.reference': '4.5.Q27',
  'source.channel': '4.5.Q28',
  'source.reference': '4.5.Q29',
  status: '4.5.Q30',
  notes: '4.5.Q31',
  // Last: a missing or malformed reference (the alias's own length rule is matched first, above).
  property: '4.5.Q4',
};

/** A valid email of exactly 255 characters, each part within RFC 5321 limits (64-character local part, 63-character labels). */
const EMAIL_255 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.in`;
/** One character more, still a valid address: refused for its length alone (the generated `xxx…` is not an email at all). */
const EMAIL_256 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.in`;

/** `id` made exactly `length` characters long, still unique (the run's id comes first). */
export function padId(id: string, length: number): string {
  return id.length >= length ? id.slice(0, length) : `${id}-${'x'.repeat(length - id.length - 1)}`;
}

function clauseOf(path: string): { field: string; clause: string } | undefined {
  const field = Object.keys(FIELD_CLAUSES).find((p) => path === p || path.startsWith(`${p}.`));
  return field === undefined ? undefined : { field, clause: FIELD_CLAUSES[field]! };
}

/** The availability date entry of one night (§2.4), as a snapshot shows it now. */
async function night(ctx: CheckContext, property: number, date: string): Promise<any> {
  const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from: date, to: date } });
  expectStatus(ctx, res, 200, null, '4.8.R1', 'an availability snapshot of one night');
  return res.body.data.data.dates[0];
}

export const fieldRuleChecks = [
  defineCheck({
    id: 'validation.field-rules', title: 'Every field of the create body at its documented maximum is accepted in one pending create that holds inventory and emits its events; each violation is 422 naming the field', suite,
    clauses: [...new Set(Object.values(FIELD_CLAUSES)), '8.L7', '8.L8', '3.2.T2', '3.2.R1', '4.3.R1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const property = writableProperty(ctx);
      // Inside the event horizon (§2.1), on a night without a cap, so the hold and the events of §3.2 show.
      let stay = horizonStay(ctx, 1);
      let free = await night(ctx, property, stay.check_in);
      for (let tries = 0; tries < 3 && (free?.units_cap !== null || free?.is_blocked === true || !(free?.available_units >= 1)); tries++) {
        stay = horizonStay(ctx, 1);
        free = await night(ctx, property, stay.check_in);
      }
      // §8 string lengths and guest counts at their maxima; every other optional field of the §4.5 table given once.
      const full = bookingBody(ctx, {
        external_booking_id: padId(ctx.uniqueId('bk'), 128),
        property: { doorloom_id: property },
        // One unit priced at the whole total: its stay_price is the room money as sent (§4.5 rule 5).
        units: [{ adults: 50, children: 50, meal_plan: 'AP', stay_price: 1000 }],
        ...stay,
        guest: { name: padId('Conformance Field Rules', 255), phone_code: '+9112345', mobile: '9'.repeat(20), email: EMAIL_255, country: 'C'.repeat(64) },
        pricing: { total: 1000, currency: 'INR', includes_gst: true, breakdown: { room: 900, tax: 100 } },
        payment: { status: 'partial', amount_collected: 100, collected_by: 'host', reference: 'R'.repeat(128) },
        source: { channel: 'S'.repeat(64), reference: 'F'.repeat(128) },
        status: 'pending',
        notes: 'N'.repeat(2000),
      });
      const violations = [
        ...bodyViolations('createBooking', full).filter((v) => clauseOf(v.path) !== undefined),
        // Aliases: a valid one cannot be made up, an over-long one is refused by the field rule before any lookup.
        { path: 'property.external_id', description: 'property.external_id: 129 characters, above maxLength 128', apply: (b: any) => ({ ...b, property: { external_id: 'P'.repeat(129) } }) },
        { path: 'units.0.external_unit_id', description: 'units.0.external_unit_id: 129 characters, above maxLength 128', apply: (b: any) => ({ ...b, units: [{ ...b.units[0], external_unit_id: 'U'.repeat(129) }] }) },
        // One past the maximum in a value the field would otherwise take, so only the length can be the reason.
        { path: 'guest.email', description: 'guest.email: a valid address of 256 characters, above maxLength 255', apply: (b: any) => ({ ...b, guest: { ...b.guest, email: EMAIL_256 } }) },
        { path: 'guest.mobile', description: 'guest.mobile: 21 digits, above maxLength 20', apply: (b: any) => ({ ...b, guest: { ...b.guest, mobile: '9'.repeat(21) } }) },
      ];
      const proven = new Set<string>();
      for (const v of violations) {
        const applied = v.apply(full) as Record<string, unknown>;
        // A fresh external id per request, unless the violation is of that field (then one still unique to the run).
        const invalid = v.path !== 'external_booking_id' ? { ...applied, external_booking_id: ctx.uniqueId('bk') }
          : typeof applied.external_booking_id === 'string' && applied.external_booking_id.length > 128 ? { ...applied, external_booking_id: padId(ctx.uniqueId('bk'), applied.external_booking_id.length) } : applied;
        const { clause } = clauseOf(v.path)!;
        const res = await createBooking(ctx, invalid);
        const code = singleFieldRefusal('createBooking', invalid);
        expectStatus(ctx, res, 422, code, clause, `a body with ${v.description}`);
        if (code === 'VALIDATION_FAILED' && !res.body?.errors?.[v.path]) ctx.fail('WrongErrorField', `errors ${JSON.stringify(res.body?.errors)} for ${v.description}`, `the refusal names ${v.path}`, clause);
        proven.add(clause);
      }
      const missing = [...new Set(Object.values(FIELD_CLAUSES))].filter((c) => !proven.has(c));
      if (missing.length > 0) throw new Error(`the contract implies no violation for the fields of ${missing.join(', ')}: spec/openapi.yaml lost a field rule`);
      // Aliases of exactly 128 characters pass the length rule and are then unknown (§7): refused as unmapped, not as invalid.
      // Plain bodies otherwise, so no other field's maximum is blamed on the alias.
      for (const [alias, body, want, clause] of [
        ['property.external_id', bookingBody(ctx, { ...stay, property: { external_id: 'P'.repeat(128) } }), 'PROPERTY_NOT_MAPPED', '4.5.Q4a'],
        ['units.0.external_unit_id', bookingBody(ctx, { ...stay, property: { doorloom_id: property }, units: [{ adults: 1, external_unit_id: 'U'.repeat(128) }] }), 'UNIT_NOT_MAPPED', '4.5.Q7'],
      ] as const) {
        const res = await createBooking(ctx, body);
        expectStatus(ctx, res, 422, want, clause, `an unknown ${alias} of exactly 128 characters (the maximum)`);
      }

      const mark = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      const created = await createBooking(ctx, full);
      if (created.status === 409) throw new NotApplicable(`the night ${stay.check_in} on property ${property} was taken before the create (409 UNAVAILABLE), so the maxima were not judged`);
      if (created.status !== 201) {
        // Credit the refusal to the field it names: each field at its maximum is its own clause.
        const named = Object.keys(created.body?.errors ?? {}).map(clauseOf).find((c) => c !== undefined);
        ctx.fail('MaximumRefused', `${describe(created)} ${JSON.stringify(created.body?.errors ?? {})}`, named ? `${named.field} at its documented maximum accepted (201)` : 'every field at its documented maximum accepted (201)', named?.clause ?? '4.5.Q36');
      }
      const b = created.body.data;
      if (b.external_booking_id !== full.external_booking_id) ctx.fail('ExternalIdChanged', `external_booking_id ${JSON.stringify(b.external_booking_id)}`, `the 128-character id as sent (${full.external_booking_id})`, '4.5.Q3');
      // §4.3: the lookup takes any id a create accepted, the longest included.
      const found = await ctx.api.get(`/bookings/external/${encodeURIComponent(full.external_booking_id)}`);
      expectStatus(ctx, found, 200, null, '4.3.R1', 'GET /bookings/external/{the 128-character external_booking_id}');
      if (found.body?.data?.id !== b.id) ctx.fail('LookupMissed', `booking ${JSON.stringify(found.body?.data?.id)} for the 128-character external id`, `booking ${b.id}, created under it`, '4.3.R1');
      if (b.guests?.adults !== 50 || b.guests?.children !== 50) ctx.fail('GuestsNotKept', `guests ${JSON.stringify(b.guests)}`, '50 adults and 50 children (one unit at both maxima)', '8.L7');
      if (b.status !== 'pending') ctx.fail('StatusNotKept', `status ${b.status}`, 'status pending as sent', '3.2.T2');
      // Each guest field at its maximum is kept as sent (a default applied over a value sent, such as phone_code's +91, is not).
      for (const field of ['name', 'phone_code', 'mobile', 'email', 'country'] as const) {
        if (b.guest?.[field] !== full.guest[field]) ctx.fail('FieldNotKept', `guest.${field} ${JSON.stringify(b.guest?.[field])}`, `${JSON.stringify(full.guest[field])} as sent`, FIELD_CLAUSES[`guest.${field}`]!);
      }
      // The rest of what was sent, where the booking object shows it (its full field list is not shown, §2.3; spec
      // x-assumption on Booking): a field shown is the value sent, not a default or null over it.
      for (const path of ['pricing.includes_gst', 'payment.status', 'payment.amount_collected', 'payment.collected_by', 'payment.reference', 'source.channel', 'source.reference', 'notes'] as const) {
        const [group, key] = path.split('.') as [string, string | undefined];
        const shown = key === undefined ? b[group] : b[group]?.[key];
        const sent = key === undefined ? (full as any)[group] : (full as any)[group][key];
        if ((group in b) && shown !== sent) ctx.fail('FieldNotKept', `${path} ${JSON.stringify(shown)}`, `${JSON.stringify(sent)} as sent`, FIELD_CLAUSES[path]!);
      }
      // §3.2 T2: a pending booking holds inventory and emits availability.changed and booking.changed (origin partner).
      const after = await night(ctx, property, stay.check_in);
      if (free?.units_cap === null && free?.is_blocked !== true && after?.available_units !== free.available_units - 1) {
        ctx.fail('PendingHoldsNothing', `${stay.check_in}: available_units ${free.available_units} before, ${after?.available_units} after a pending create of one unit`, `${free.available_units - 1}: a pending booking holds its unit`, '3.2.T2');
      }
      const rows = await allEvents(ctx, { include_superseded: true }, mark);
      const lastNight = addDays(stay.check_out, -1);
      const availability = rows.find((r) => r.event.type === 'availability.changed' && r.event.property?.doorloom_id === property && r.event.window?.from <= stay.check_in && r.event.window?.to >= lastNight);
      // The booking.changed payload is not shown (§6): the envelope's property names it, the only create there since the mark.
      const booking = rows.find((r) => r.event.type === 'booking.changed' && r.event.property?.doorloom_id === property);
      if (!availability || !booking) {
        ctx.fail('PendingEmitsNothing', `events after ${mark}: ${rows.map((r) => `${r.sequence} ${r.event.type} property ${r.event.property?.doorloom_id}`).join(', ') || 'none'}`, `availability.changed covering ${stay.check_in} and booking.changed, both for property ${property}`, '3.2.T2');
      }
    },
  }),
];
