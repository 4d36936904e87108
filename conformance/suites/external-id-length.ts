/**
 * §4.5 body table and §8 string lengths: `external_booking_id` is at most 128
 * characters. Both sides of the limit, every run (a generated violation may
 * miss it): 128 accepted and readable by it, 129 refused naming the field and
 * writing nothing.
 */
import { defineCheck, expectStatus } from '../check.ts';
import { bookingBody, createBooking, describe } from './support.ts';

const suite = 'validation';
/** §4.5, §8: external ids 128. */
const EXTERNAL_ID_MAX = 128;

/** A fresh id of exactly `length` characters, unique to the run (its id first, padded). */
function idOf(prefix: string, length: number): string {
  return prefix.length >= length ? prefix.slice(-length) : prefix + 'x'.repeat(length - prefix.length);
}

export const externalIdLengthChecks = [
  defineCheck({
    id: 'validation.external-id-length', title: 'external_booking_id of 128 characters is accepted; of 129 it is 422 naming the field and writes nothing', suite,
    clauses: ['4.5.Q3'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const longest = idOf(ctx.uniqueId('bk'), EXTERNAL_ID_MAX);
      const ok = await createBooking(ctx, bookingBody(ctx, { external_booking_id: longest }));
      expectStatus(ctx, ok, 201, null, '4.5.Q3', 'a create whose external_booking_id has 128 characters');
      const read = await ctx.api.get(`/bookings/external/${encodeURIComponent(longest)}`);
      if (read.body?.data?.external_booking_id !== longest) ctx.fail('ExternalIdNotKept', `${describe(read)} reading the 128-character external_booking_id`, 'the booking, by its 128-character external_booking_id', '4.5.Q3');
      const tooLong = idOf(ctx.uniqueId('bk'), EXTERNAL_ID_MAX + 1);
      const refused = await createBooking(ctx, bookingBody(ctx, { external_booking_id: tooLong }));
      expectStatus(ctx, refused, 422, 'VALIDATION_FAILED', '4.5.Q3', 'a create whose external_booking_id has 129 characters');
      if (!refused.body?.errors?.external_booking_id) ctx.fail('ViolationNotNamed', `errors keyed ${Object.keys(refused.body?.errors ?? {}).join(', ') || '(none)'}`, 'errors naming external_booking_id (129 characters, above maxLength 128)', '7.C1');
      const list = await ctx.api.get('/bookings', { query: { per_page: 200, updated_since: new Date(ctx.now() - 3_600_000).toISOString() } });
      if (Array.isArray(list.body?.data) && list.body.data.some((b: any) => b.external_booking_id === tooLong)) ctx.fail('WrittenDespiteRefusal', 'the booking with the 129-character external_booking_id is listed', 'a refused create writes nothing', '4.5.Q3');
    },
  }),
];
