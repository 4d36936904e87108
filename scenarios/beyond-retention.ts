/**
 * Scenario 3 · an outage beyond the 30-day retention.
 *
 * Act 1 (snapshots): the partner dies mid-create and stays down 31 days.
 * Meanwhile the host changes rates and cancels a booking (events that will
 * leave retention) and, on the last day, more changes and a front-desk
 * booking (events still retained). On restart: the create is re-driven with
 * its original key, which the platform has forgotten (24 h, §4.5), so the
 * answer is 200 `duplicate: true`, which is success (rule 4). The replay peek
 * shows a gap (first retained sequence above cursor + 1, §6.7), so the
 * partner rebuilds from snapshots (watermark rule, §4.8) and polls bookings
 * by `updated_since` from the highest `updated_at` it had stored (§6.9).
 *
 * Act 2 (POST /sync): down another 31 days; this time the partner recovers
 * with a full re-sync (§4.7): the events arrive through the webhook.
 *
 * Live target: no. It needs the clock to move 62 days.
 */
import { defineScenario } from './kit/scenario.ts';
import { PartnerCrashed } from './kit/network.ts';

const DAY = 86_400_000;

export const scenario = defineScenario({
  name: 'beyond-retention',
  number: 3,
  title: 'Outage beyond the 30-day retention: cold start from snapshots, and separately via POST /sync',
  story: 'Down 31 days, the partner finds a retention gap, rebuilds from snapshots, polls bookings by updated_since and treats duplicate: true as success; down 31 days more, it recovers with POST /sync through the webhook.',
  live: { capable: false, note: 'The clock has to move 62 days, which only the simulator can do.' },
  async run(s) {
    await s.startPartner();
    const sea = s.property('SEA-VIEW');
    const lake = s.property('LAKE-HOUSE');
    const hill = s.property('HILLTOP');
    const g1 = await s.partner.createBooking(s.booking('G-1', { property: sea, checkIn: s.day(45), nights: 3 }));
    await s.deliver();

    s.step('act 1: a guest books; the partner dies right after the create left');
    s.network.crashAfterSending({ method: 'POST', path: /\/bookings$/ });
    await s.partner.createBooking(s.booking('G-2', { property: lake, checkIn: s.day(50), nights: 2 })).then(
      () => s.check(false, 'the partner should have died mid-create'),
      (e) => { if (!(e instanceof PartnerCrashed)) throw e; },
    );
    await s.crashPartner('down for 31 days');
    await s.staff.setRates(sea.doorloom_id, 'SEA-VIEW', s.day(35), s.day(60), { base_rate: 8100 });
    await s.staff.bookingStatus(g1.booking_id!, 'cancelled');
    await s.jump(31 * DAY, 'a month passes; the events of day 0 leave the 30-day retention');
    await s.staff.setRestrictions(hill.doorloom_id, 'HILLTOP', s.day(2), s.day(6), { min_stay: 2 });
    const f1 = await s.frontDesk.book(s.booking('F-1', { property: hill, checkIn: s.day(10), nights: 2 }));

    await s.startPartner();
    await s.deliver();
    await s.converged('after the rebuild from snapshots');
    const g2 = s.partner.state.reservations['G-2']!;
    s.check(g2.status === 'placed' && g2.answer?.status === 200, '§4.5 rule 4: the re-driven create, its key forgotten after 24 h, answered 200 duplicate: true, treated as success', `answer ${g2.answer?.status}, booking ${g2.booking_id}`);
    const plan = s.partner.lastCatchUp.map((x) => x.do);
    s.check(plan.includes('rebuild') && plan.includes('poll-bookings') && !plan.includes('replay'), '§6.8: the cursor is older than retention, so snapshots and polling, not replay', plan.join(', '));
    s.check(s.partner.state.bookings[String(g1.booking_id)]?.booking.status === 'cancelled', '§6.9: the cancellation, whose event expired, came by updated_since polling');

    s.step('act 2: down again for 31 days; this time the partner recovers with POST /sync');
    await s.crashPartner('down for another 31 days');
    await s.staff.setNights(lake.doorloom_id, 'LAKE-HOUSE', s.day(5), s.day(8), { units_cap: 1 });
    await s.staff.setRates(hill.doorloom_id, 'HILLTOP', s.day(1), s.day(40), { base_rate: 5400, extra_adult_rate: 700 });
    await s.jump(31 * DAY, 'another month passes');
    await s.staff.bookingStatus(f1.booking_id!, 'cancelled');
    await s.startPartner({ recovery: 'sync' });
    s.check(s.calls.some((c) => c.method === 'POST' && c.path === '/sync' && c.status === 202), '§4.7: the partner asked for a full re-sync (202)');
    await s.deliver();
    await s.partner.tick();
    await s.converged('after the re-sync arrived through the webhook');
  },
});
