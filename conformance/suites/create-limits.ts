/**
 * The other side of the §4.5 body table: what a create gets when optional
 * fields are left out (children 0, status confirmed, currency INR,
 * phone_code +91 where the booking shows it), and the units count at both
 * ends of §8's 1 to 20. The per-field maxima are validation.field-rules.
 */
import { addDays } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus } from '../check.ts';
import { bookingBody, createBooking, describe, farStay, writableProperty } from './support.ts';

const suite = 'validation';

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

