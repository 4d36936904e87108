/**
 * Scenario 10 · overbooking race for the last unit.
 *
 * Two guests ask for the same nights on a one-unit property at the same
 * moment; the partner sends both creates concurrently (each with its own
 * reservation and Idempotency-Key). Exactly one wins (201); the other is
 * refused 409 UNAVAILABLE with the availability body of §4.5 rule 7
 * (property, window whose `to` is the last night, dates with no available
 * unit), nothing is written for it, and the partner declines that guest. The
 * 409 body carries no sequence, so the partner does not write it into its
 * copy; the winner's availability.changed brings the same state.
 *
 * Live target: yes, on --property, which must have one unit (two nights with
 * exactly one available unit are looked up first; two bookings attempts, one
 * booking is made).
 */
import { defineScenario } from './kit/scenario.ts';
import { addDays } from './partner/dates.ts';

export const scenario = defineScenario({
  name: 'overbooking-race',
  number: 10,
  title: 'Overbooking race: concurrent creates for the last unit, exactly one wins',
  story: 'Two concurrent creates for the last unit: one 201, one 409 UNAVAILABLE with the availability body; the partner declines the second guest and its view stays right.',
  live: { capable: true, note: 'Needs --property naming a one-unit property; makes one booking.' },
  async run(s) {
    await s.startPartner();
    const property = s.liveProperty('HILLTOP');
    const checkIn = await s.findStay(property, 25, 200, 2, (n) => n === 1);
    if (!s.live) await s.staff.setCreateLatency(200);

    const before = s.partner.state.properties[String(property.doorloom_id)]?.nights.availability[checkIn]?.sequence ?? 0;
    s.step('two guests ask for the same two nights at the same moment');
    const [a, b] = await Promise.all([
      s.partner.createBooking(s.booking('R-A', { property, checkIn })),
      s.partner.createBooking(s.booking('R-B', { property, checkIn })),
    ]);
    if (!s.live) await s.staff.setCreateLatency(0);
    const placed = [a, b].filter((r) => r.status === 'placed');
    s.check(placed.length === 1, 'exactly one create won', `${a.external_booking_id}: ${a.status}, ${b.external_booking_id}: ${b.status}`);
    const held = s.partner.state.properties[String(property.doorloom_id)]!.nights.availability[checkIn]!;
    // Live, the winner's availability.changed may reach the partner before the loser's 409 does: a change then comes with
    // that event's sequence. A 409 body written into the copy would change it without one.
    s.check(held.value.available_units === 1 || held.sequence > before, 'the partner wrote no 409 body (it has no sequence) into its copy; the winner\'s event brings the change', `held: ${held.value.available_units} as of #${held.sequence} (before the race: #${before})`);
    await s.deliver();

    const loser = a.status === 'placed' ? b : a;
    s.check(loser.status === 'declined' && loser.answer?.status === 409 && loser.answer.code === 'UNAVAILABLE', '§4.5 rule 7: the other got 409 UNAVAILABLE and the partner declined that guest', `${loser.answer?.status} ${loser.answer?.code}`);
    const body = loser.answer?.availability as { property?: { doorloom_id?: number }; window?: { from?: string; to?: string }; dates?: { date: string; available_units: number }[] } | undefined;
    s.check(body?.property?.doorloom_id === property.doorloom_id && body.window?.from === checkIn && body.window.to === addDays(checkIn, 1)
      && body.dates?.length === 2 && body.dates.every((d) => d.available_units === 0),
    '§4.5 rule 7: the 409 body names the property, the window to the last night, and no available unit on each night', JSON.stringify(body?.window));
    await s.converged('after the race: one booking, one guest declined');
  },
});
