/**
 * Scenario 1 · happy path.
 *
 * The partner cold-starts from snapshots, two guests book through it (the
 * answer to the first create is lost on the way back and the partner retries
 * with the same Idempotency-Key and body), then the host changes rates,
 * restrictions, nights and inventory and moves and cancels the bookings.
 * Every event arrives by webhook, verified and applied if newer.
 *
 * Live target: no. The host's and staff's changes are the story, and only
 * the simulator gives those powers.
 */
import { defineScenario } from './kit/scenario.ts';

export const scenario = defineScenario({
  name: 'happy-path',
  number: 1,
  title: 'Happy path: bookings and staff changes flow to the partner by webhook',
  story: 'Cold start from snapshots; two bookings (one answer lost, retried with the same Idempotency-Key); host changes to rates, restrictions, nights, a unit, a moved and a cancelled booking; all of it arrives by webhook and the partner equals the platform.',
  live: { capable: false, note: 'Host and staff changes are the story; a live target gives no staff powers.' },
  async run(s) {
    await s.startPartner();
    await s.converged('after the cold start from snapshots (§6.8, §4.8)');
    const sea = s.property('SEA-VIEW');
    const lake = s.property('LAKE-HOUSE');
    const hill = s.property('HILLTOP');

    s.step('two guests book through the partner; the answer to the first create is lost on the way back');
    s.network.loseNextAnswer({ method: 'POST', path: /\/bookings$/ });
    const first = await s.partner.createBooking(s.booking('G-1', { property: sea, checkIn: s.day(10), nights: 3 }));
    s.check(first.status === 'placed' && first.attempts === 2 && first.answer?.status === 201,
      '§4.5 rule 1: the retry with the same key and identical body got the original answer, nothing booked twice',
      `${first.status} as booking ${first.booking_id} after ${first.attempts} attempts`);
    const second = await s.partner.createBooking(s.booking('G-2', { property: lake, checkIn: s.day(20), nights: 2 }));
    s.check(second.status === 'placed', '§4.5 rule 8: the second booking is created', `booking ${second.booking_id}`);
    await s.deliver();

    s.step('the host changes rates, restrictions, nights and inventory');
    await s.staff.setRates(sea.doorloom_id, 'SEA-VIEW', s.day(5), s.day(15), { base_rate: 7200 });
    await s.staff.setRestrictions(lake.doorloom_id, 'LAKE-HOUSE', s.day(18), s.day(25), { min_stay: 3, closed_to_arrival: true });
    await s.staff.setNights(hill.doorloom_id, 'HILLTOP', s.day(40), s.day(42), { is_blocked: true, block_scope: 'everywhere' });
    await s.staff.deactivateUnit(sea.units[3]!.inventory_id, 'SEA-VIEW-4');
    s.step('the host moves the first booking and cancels the second');
    await s.staff.bookingDates(first.booking_id!, s.day(12), s.day(15));
    await s.staff.bookingStatus(second.booking_id!, 'cancelled');
    await s.deliver();

    const refused = s.deliveries.filter((d) => d.status !== 200);
    s.check(refused.length === 0, '§6.2: every delivery was verified and acknowledged', `${s.deliveries.length} deliveries`);
    const latest = await s.latestSequence();
    s.check(s.partner.state.cursor === latest, 'the partner holds every sequence issued', `cursor ${s.partner.state.cursor}, latest ${latest}`);
    await s.converged('after every webhook');
  },
});
