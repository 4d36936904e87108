/**
 * The event horizon (§2.1 horizon_days, §8 "Event horizon"): dates beyond
 * today + horizon_days are not pushed until they come into range. A create
 * is still pushed as booking.changed (§6.1: every change to a booking), but
 * its availability.changed covers only the nights inside the horizon.
 */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable } from '../check.ts';
import { allEvents, bookingBody, createBooking, expectCreated, farStay, writableProperty } from './support.ts';

const suite = 'sequencing';

/** Event types whose window is a range of dates (booking.changed follows its booking wherever it is). */
const WINDOWED = new Set(['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed']);

export const horizonChecks = [
  defineCheck({
    id: 'sequencing.horizon-respected', title: 'Nothing is pushed for dates beyond horizon_days: a stay past it emits booking.changed only; one straddling it, availability up to the horizon', suite,
    clauses: ['2.1.R7', '8.L15'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const me = (await ctx.api.get('/me')).body.data;
      const horizon = me.horizon_days as number;
      const today = dateAt(ctx.now());
      // The last date inside the horizon (today counts as its first day).
      const last = addDays(today, horizon - 1);
      const before = me.webhook.last_sequence as number;

      const beyond = farStay(ctx);
      if (beyond.check_in <= last) throw new NotApplicable(`horizon_days is ${horizon}: the stays this run may book (400 to 720 days ahead) are not beyond it`);
      const far = await createBooking(ctx, bookingBody(ctx, beyond));
      expectCreated(ctx, far, 'a create past the horizon on nights the snapshot showed free');

      // A stay over the horizon's last night, where both nights are free.
      const property = writableProperty(ctx);
      const snap = await ctx.api.get(`/properties/${property}/availability`, { query: { from: last, to: addDays(last, 1) } });
      expectStatus(ctx, snap, 200, null, '4.8.R1', `the availability snapshot of ${last} and the night after`);
      const free = (snap.body.data.data.dates as any[]).every((d) => d.available_units > 0 && !d.is_blocked);
      const straddle = free ? await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: last, check_out: addDays(last, 2) })) : null;

      const rows = await allEvents(ctx, { include_superseded: true }, before);
      if (!rows.some((r) => r.event.type === 'booking.changed' && r.event.data?.id === far.body.data.id)) {
        ctx.fail('BookingNotPushed', `no booking.changed for booking ${far.body.data.id} (check-in ${beyond.check_in})`, 'every change to a booking is pushed as booking.changed, wherever its dates are', '6.R1');
      }
      // Past the horizon at either end: a window clipped to the horizon's last day that starts after it is still beyond.
      const past = rows.filter((r) => WINDOWED.has(r.event.type) && (r.event.window?.to > last || r.event.window?.from > last));
      if (past.length > 0) {
        const r = past[0];
        ctx.fail('PushedBeyondHorizon', `${r.event.type} ${r.sequence} for ${r.event.window.from}..${r.event.window.to} (horizon_days ${horizon}: the last date is ${last})`, 'dates beyond the horizon are not pushed until they come into range', '2.1.R7');
      }
      if (straddle?.status === 201) {
        const inside = rows.find((r) => r.event.type === 'availability.changed' && r.event.property.doorloom_id === property && r.event.window?.from === last);
        if (!inside || inside.event.window.to !== last) {
          ctx.fail('HorizonNightNotPushed', inside ? `availability.changed ${inside.sequence} for ${inside.event.window.from}..${inside.event.window.to}` : `no availability.changed from ${last}`, `availability.changed for ${last}..${last}: the nights inside the horizon, none past it`, '8.L15');
        }
      }
    },
  }),
];
