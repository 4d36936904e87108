/**
 * The other side of the §4.5 body table: what a create gets when optional
 * fields are left out (children 0, status confirmed, currency INR,
 * phone_code +91 where the booking shows it), and the units count at both
 * ends of §8's 1 to 20. The per-field maxima are validation.field-rules.
 */
import { addDays } from '../../protocol/calendar.ts';
import { loadContract } from '../../spec/contract.ts';
import { defineCheck, expectStatus, NotApplicable } from '../check.ts';
import { FIELD_CLAUSES } from './field-rules.ts';
import { bookingBody, createBooking, describe, farStay, writableProperty } from './support.ts';

const suite = 'validation';

/** A lower limit of the create body (spec/openapi.yaml): a field and the value exactly at it. */
interface LowerLimit { path: string[]; value: unknown; limit: string }

/**
 * Every lower limit of the create body the contract states: a string at its minLength, a number at its minimum, an
 * array at its minItems (its first item standing for every item). Read from the contract, so a limit lives once.
 */
export function lowerLimits(schema: any, at: string[] = []): LowerLimit[] {
  const own: LowerLimit[] = [];
  if (typeof schema?.minLength === 'number') own.push({ path: at, value: 'x'.repeat(schema.minLength), limit: `minLength ${schema.minLength}` });
  if (typeof schema?.minimum === 'number') own.push({ path: at, value: schema.minimum, limit: `minimum ${schema.minimum}` });
  if (typeof schema?.minItems === 'number') own.push({ path: at, value: schema.minItems, limit: `minItems ${schema.minItems}` });
  const items = schema?.type === 'array' ? lowerLimits(schema.items, [...at, '0']) : [];
  const fields = Object.entries((schema?.properties ?? {}) as Record<string, unknown>).flatMap(([name, sub]) => lowerLimits(sub, [...at, name]));
  return [...own, ...items, ...fields];
}

/**
 * Fields whose lowest value names a thing (§4.5: a property or unit by id or alias): a value at the limit passes
 * validation and is then refused, if at all, for naming nothing (PROPERTY_NOT_MAPPED, UNIT_NOT_MAPPED), never as
 * invalid. property.doorloom_id is validation.lowest-property-id-accepted's.
 */
const REFERENCES: Record<string, string> = { 'property.external_id': '4.5.Q4a', 'units.0.inventory_id': '4.5.Q6', 'units.0.external_unit_id': '4.5.Q7' };
const OWN_CHECK = new Set(['property.doorloom_id']);
/** The clause of each field with a lower limit that is neither a reference nor in FIELD_CLAUSES. */
const LIMIT_CLAUSES: Record<string, string> = { external_booking_id: '4.5.Q3', units: '8.L6', 'units.0.adults': '8.L7', 'units.0.children': '8.L7', 'pricing.total': '4.5.Q20' };
const clauseOfLimit = (path: string) => LIMIT_CLAUSES[path] ?? FIELD_CLAUSES[path] ?? REFERENCES[path];

/** A copy of `body` with `value` at `path`, objects and first array items made on the way where missing. */
export function atPath(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as any;
  let node = copy;
  path.slice(0, -1).forEach((key, i) => {
    node[key] ??= /^[0-9]+$/.test(path[i + 1]!) ? [] : {};
    node = node[key];
  });
  const key = path.at(-1)!;
  // An array's lower limit is a count: keep its first item that many times.
  node[key] = Array.isArray(node[key]) && typeof value === 'number' ? Array.from({ length: value }, () => structuredClone(node[key][0])) : value;
  return copy;
}

export const createLimitChecks = [
  defineCheck({
    id: 'validation.create-defaults', title: 'A create without children, status, currency and phone_code gets 0 children, status confirmed, currency INR and phone_code +91', suite,
    clauses: ['4.5.Q9', '4.5.Q30', '4.5.Q16', '2.3.R8', '8.L7'], level: 'normative', needs: ['write'],
    async run(ctx) {
      // One unit at the lowest adults count (§8: 1), every defaulted field left out.
      const body = bookingBody(ctx, { units: [{ adults: 1 }], guest: { name: 'Conformance Defaults', mobile: '9000000000' }, pricing: { total: 1000 } });
      const created = await createBooking(ctx, body);
      expectStatus(ctx, created, 201, null, '8.L7', 'a create with one unit of 1 adult and every defaulted field left out');
      const read = await ctx.api.get(`/bookings/${created.body.data.id}`);
      expectStatus(ctx, read, 200, null, '4.2.R1', 'GET /bookings/{id} of the new booking');
      for (const [where, b] of [['the 201', created.body.data], ['GET /bookings/{id}', read.body.data]] as const) {
        if (b.guests?.adults !== 1 || b.guests?.children !== 0) ctx.fail('WrongDefaultChildren', `${where}: guests ${JSON.stringify(b.guests)}`, 'guests 1 adult and 0 children: children default 0', '4.5.Q9');
        if (b.status !== 'confirmed') ctx.fail('WrongDefaultStatus', `${where}: status ${b.status}`, 'status confirmed when omitted', '4.5.Q30');
        if (b.pricing?.currency !== 'INR') ctx.fail('WrongCurrency', `${where}: pricing.currency ${JSON.stringify(b.pricing?.currency)}`, 'pricing.currency INR (none was sent)', '2.3.R8');
        // §2.3 is abridged and does not show guest: the default is judged only where the booking shows guest.phone_code.
        if (b.guest !== null && typeof b.guest === 'object' && 'phone_code' in b.guest && b.guest.phone_code !== '+91') {
          ctx.fail('WrongDefaultPhoneCode', `${where}: guest.phone_code ${JSON.stringify(b.guest.phone_code)}`, 'guest.phone_code +91 when omitted', '4.5.Q16');
        }
      }
    },
  }),
  defineCheck({
    id: 'validation.shortest-values-accepted', title: 'Every field of the create body at exactly its lower limit (shortest string, lowest number, fewest items; money 0, the lower end of spec x-assumptions money-range) is accepted; in-process, a 1-character external_booking_id is created and read back by it', suite,
    clauses: ['4.5.Q3', '4.5.Q4a', '4.5.Q5', '4.5.Q6', '4.5.Q7', '4.5.Q8', '4.5.Q9', '4.5.Q11', '4.5.Q15', '4.5.Q17', '4.5.Q20', '4.5.Q25', '4.3.R1', '8.L6', '8.L7'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const limits = lowerLimits(loadContract().operation('createBooking').requestBody!.schema).filter((l) => !OWN_CHECK.has(l.path.join('.')));
      const unknown = limits.map((l) => l.path.join('.')).filter((p) => clauseOfLimit(p) === undefined);
      if (unknown.length > 0) throw new Error(`spec/openapi.yaml gives ${unknown.join(', ')} a lower limit validation.shortest-values-accepted knows no clause of`);
      const refusedOn = (res: { status: number; body?: any }, path: string) => res.status === 422 && res.body?.code === 'VALIDATION_FAILED' && Object.keys(res.body.errors ?? {}).some((k) => k === path || k.startsWith(`${path}.`));
      // One create with every plain field at its lower limit at once (one booking): a refusal names the fields it refused.
      const plain = limits.filter((l) => REFERENCES[l.path.join('.')] === undefined && l.path.join('.') !== 'external_booking_id');
      const body = plain.reduce((b, l) => atPath(b, l.path, l.value), bookingBody(ctx, { payment: { status: 'unpaid' } }));
      const created = await createBooking(ctx, body);
      if (created.status === 409 && created.body?.code === 'UNAVAILABLE') throw new NotApplicable(`the stay ${body.check_in} was taken before the create (409 UNAVAILABLE), so the lower limits were not judged`);
      if (created.status !== 201) {
        const at = plain.find((l) => refusedOn(created, l.path.join('.')));
        ctx.fail('LowestValueRefused', `${describe(created)} ${JSON.stringify(created.body?.errors ?? {})} for ${plain.map((l) => `${l.path.join('.')} ${JSON.stringify(l.value)}`).join(', ')}`, `201: each value is at its lower limit (${(at ?? plain[0]!).limit} for ${(at ?? plain[0]!).path.join('.')}), which the contract allows`, clauseOfLimit((at ?? plain[0]!).path.join('.'))!);
      }
      // A reference at its lower limit alone: refused, if at all, as naming nothing, never as invalid on that field.
      for (const l of limits.filter((x) => REFERENCES[x.path.join('.')] !== undefined)) {
        const path = l.path.join('.');
        // An alias names any covered property: live, a create may book only on a property the run names, so the
        // property alias is tried in-process only (the world's aliases are words; a 1-character one names none).
        if (path === 'property.external_id' && ctx.target.kind !== 'in-process') continue;
        const res = await createBooking(ctx, atPath(bookingBody(ctx), l.path, l.value));
        if (refusedOn(res, path)) ctx.fail('LowestValueRefused', `${describe(res)} ${JSON.stringify(res.body.errors)} for ${path} ${JSON.stringify(l.value)}`, `not refused as invalid: ${l.limit} is the contract's lower limit (an unknown one is UNIT_NOT_MAPPED or PROPERTY_NOT_MAPPED)`, REFERENCES[path]!);
      }
      // §4.5 external_booking_id at its shortest, created (or, on a live platform that holds it already, found as a duplicate,
      // rule 4) and read back by it (§4.3: the lookup takes every id a create takes).
      const shortest = limits.find((l) => l.path.join('.') === 'external_booking_id');
      // In-process only: live, every id a run creates starts with its run id, so its bookings are told from the
      // partner's (docs/conformance.md), and a 1-character id cannot.
      if (!shortest || ctx.target.kind !== 'in-process') return;
      const id = String.fromCharCode(97 + Math.floor(ctx.random() * 26)).repeat((shortest.value as string).length);
      const made = await createBooking(ctx, bookingBody(ctx, { external_booking_id: id }));
      if (made.status === 409 && made.body?.code === 'UNAVAILABLE') throw new NotApplicable(`the stay was taken before the create of external_booking_id ${JSON.stringify(id)} (409 UNAVAILABLE)`);
      if (made.status !== 201 && !(made.status === 200 && made.body?.data?.duplicate === true)) ctx.fail('LowestValueRefused', `${describe(made)} ${JSON.stringify(made.body?.errors ?? {})} for external_booking_id ${JSON.stringify(id)}`, `201 (or 200 duplicate where it exists): ${shortest.limit} is the contract's lower limit`, '4.5.Q3');
      const read = await ctx.api.get(`/bookings/external/${encodeURIComponent(id)}`);
      expectStatus(ctx, read, 200, null, '4.3.R1', `GET /bookings/external/${id} (the ${id.length}-character id just created)`);
      if (read.body?.data?.external_booking_id !== id) ctx.fail('LookupMissed', `${describe(read)} external_booking_id ${JSON.stringify(read.body?.data?.external_booking_id)}`, `the booking with external_booking_id ${JSON.stringify(id)}`, '4.3.R1');
    },
  }),
  defineCheck({
    id: 'validation.units-per-booking', title: 'A create of 20 units passes validation (201, or 409 UNAVAILABLE where 20 are not free); 0 and 21 units are 422 on units and write nothing', suite,
    clauses: ['4.5.Q5', '8.L6', '7.C1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const property = writableProperty(ctx);
      const stay = farStay(ctx, 1);
      const units = (n: number) => Array.from({ length: n }, () => ({ adults: 1, children: 0 }));
      for (const n of [0, 21]) {
        const body = bookingBody(ctx, { ...stay, property: { doorloom_id: property }, units: units(n) });
        const res = await createBooking(ctx, body);
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '8.L6', `a create of ${n} units`);
        if (!Object.keys(res.body?.errors ?? {}).some((k) => k === 'units' || k.startsWith('units.'))) ctx.fail('WrongErrorField', JSON.stringify(res.body?.errors), `a refusal of ${n} units names units`, '7.C1');
        const read = await ctx.api.get(`/bookings/external/${encodeURIComponent(body.external_booking_id)}`);
        expectStatus(ctx, read, 404, 'NOT_FOUND', '4.5.Q5', `reading the refused create of ${n} units`);
      }
      // 20 units: on a night with fewer than 20 free the count passes validation and the stay is refused for want of
      // units (409, nothing written, §4.5 rule 7); such a night is preferred, so a live run books 20 units only
      // where every night has 20 free.
      const from = stay.check_in;
      const snap = await ctx.api.get(`/properties/${property}/availability`, { query: { from, to: addDays(from, 30) } });
      const short = snap.status === 200 ? snap.body?.data?.data?.dates?.find((d: any) => d.is_blocked === true || d.available_units < 20)?.date : undefined;
      const night = short ?? ctx.stays.take('far', 1, 20)?.check_in ?? from;
      const body = bookingBody(ctx, { check_in: night, check_out: addDays(night, 1), property: { doorloom_id: property }, units: units(20) });
      const res = await createBooking(ctx, body);
      if (res.status === 409 && res.body?.code === 'UNAVAILABLE' && res.body?.errors?.availability) return;
      if (res.status !== 201) ctx.fail('TwentyUnitsRefused', `${describe(res)} ${JSON.stringify(res.body?.errors ?? {})} for a create of 20 units on ${night}`, '201, or 409 UNAVAILABLE with errors.availability when 20 units are not free: 20 units pass validation (§8: 1 to 20)', '8.L6');
      if (res.body.data?.units?.length !== 20) ctx.fail('UnitsNotKept', `${res.body.data?.units?.length} entries in units`, 'one entry per booked unit: 20', '4.5.Q5');
    },
  }),
];

