/**
 * Scenario 8 · supersession during an outage.
 *
 * While the partner is down, changes pile up that overwrite each other: a
 * rate for ten nights, then a rate for the whole month around them; a
 * front-desk booking, then its cancellation; a minimum stay set twice. Each
 * older event is still undelivered when the newer one fully covers its
 * window, so the platform marks it `superseded` (§3.3): never delivered,
 * left out of replay unless asked for, and never to be applied. The partner
 * replays with `include_superseded` (so that a retention gap would show),
 * skips those rows, and equals the platform right after the replay.
 *
 * Live target: no. The overwriting changes are host changes.
 */
import { defineScenario } from './kit/scenario.ts';

const HOUR = 3_600_000;

export const scenario = defineScenario({
  name: 'supersession',
  number: 8,
  title: 'Supersession during an outage: superseded events are never applied, and the result is still right',
  story: 'Changes that overwrite each other pile up during an outage; the platform supersedes the older events; the partner replays, skips every superseded row and equals the platform right after the replay and after the drain.',
  live: { capable: false, note: 'The overwriting changes are host changes (rates, restrictions, a cancellation).' },
  async run(s) {
    await s.startPartner();
    const sea = s.property('SEA-VIEW');
    const lake = s.property('LAKE-HOUSE');
    const hill = s.property('HILLTOP');
    await s.deliver();
    await s.crashPartner('the partner is down for an hour');

    s.step('changes that overwrite each other pile up, undelivered');
    await s.staff.setRates(sea.doorloom_id, 'SEA-VIEW', s.day(10), s.day(19), { base_rate: 7000 });
    await s.staff.setRates(sea.doorloom_id, 'SEA-VIEW', s.day(5), s.day(30), { base_rate: 8000 });
    const f1 = await s.frontDesk.book(s.booking('F-1', { property: lake, checkIn: s.day(20), nights: 2 }));
    await s.staff.bookingStatus(f1.booking_id!, 'cancelled');
    await s.staff.setRestrictions(hill.doorloom_id, 'HILLTOP', s.day(7), s.day(9), { min_stay: 2 });
    await s.staff.setRestrictions(hill.doorloom_id, 'HILLTOP', s.day(7), s.day(9), { min_stay: 3 });
    const rows = await s.eventRows();
    const superseded = rows.filter((r) => r.status === 'superseded').map((r) => r.sequence);
    s.check(superseded.length >= 4, '§3.3: the platform superseded every older event a newer one fully covers', superseded.map((x) => `#${x}`).join(' '));

    await s.elapse(HOUR, 'an hour of failed deliveries');
    const deliveredBefore = s.deliveries.length;
    await s.startPartner();
    await s.converged('right after the replay, before the platform retries anything');
    const stamps = new Set<number>();
    for (const copy of Object.values(s.partner.state.properties)) {
      for (const nights of Object.values(copy.nights)) for (const n of Object.values(nights)) stamps.add(n.sequence);
    }
    for (const b of Object.values(s.partner.state.bookings)) if (b.sequence !== null) stamps.add(b.sequence);
    s.check(superseded.every((seq) => !stamps.has(seq)), '§3.3: no superseded event was applied (no night or booking is stamped with one)');

    await s.elapse(HOUR, 'the platform drains what is left, superseded events excepted');
    const drained = s.deliveries.slice(deliveredBefore).map((d) => d.sequence);
    s.check(drained.every((seq) => seq === null || !superseded.includes(seq)), '§3.3: superseded events are never delivered', drained.map((x) => `#${x}`).join(' '));
    await s.converged('after the drain');
  },
});
