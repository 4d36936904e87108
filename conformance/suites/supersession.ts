/** Supersession (§3.3): superseded events are covered, out of default replay, and never delivered. */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { allEvents, changeRates, coveringRow, knownProperty } from './support.ts';
import { deliveredThrough, receiverFor } from './receiver.ts';

/** Delivery paused for the check and resumed after it, pass or fail: events stay undelivered, so they can be superseded (§3.3). */
async function held(ctx: CheckContext): Promise<void> {
  await ctx.control!.pause();
  ctx.cleanup.unshift(async () => void (await ctx.control!.resume()));
}

const suite = 'supersession';

export const supersessionChecks = [
  defineCheck({
    id: 'supersession.covered-and-omitted', title: 'Superseded events are absent from default replay, present with include_superseded, and covered by a newer event', suite,
    clauses: ['3.3.T1', '3.3.R2', '4.6.Q5'], level: 'normative',
    needs: ['read', control('rates.set'), control('delivery.pause'), control('delivery.resume')],
    async run(ctx) {
      await held(ctx);
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 30);
      await changeRates(ctx, property, from, addDays(from, 1), 3000);
      await changeRates(ctx, property, addDays(from, 5), addDays(from, 6), 3100);
      await changeRates(ctx, property, from, addDays(from, 3), 3200);
      const all = await allEvents(ctx, { include_superseded: true });
      const superseded = all.filter((r) => r.status === 'superseded');
      if (superseded.length === 0) ctx.fail('NothingSuperseded', 'no superseded event after a covering change of undelivered events', 'the covered event superseded', '3.3.T1');
      const defaults = await allEvents(ctx);
      const leaked = defaults.filter((r) => r.status === 'superseded');
      if (leaked.length > 0) ctx.fail('SupersededInReplay', `superseded ${leaked.map((r) => r.sequence).join(',')} in default replay`, 'omitted unless include_superseded', '3.3.R2');
      for (const old of superseded) {
        if (!coveringRow(all, old)) ctx.fail('SupersededUncovered', `event ${old.sequence} superseded without a newer covering event`, 'a newer event of the same type and property fully covers it', '3.3.T1');
      }
    },
  }),
  defineCheck({
    id: 'supersession.only-undelivered', title: 'A delivered event is never superseded; a superseded event is never delivered', suite,
    clauses: ['3.3.T1', '3.3.T1a', '3.3.R3'], level: 'normative',
    needs: ['read', control('rates.set'), control('delivery.pause'), control('delivery.resume')],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 30);
      await changeRates(ctx, property, from, from, 4000);
      await deliveredThrough(ctx, receiver, 60);
      await ctx.control!.pause();
      await changeRates(ctx, property, addDays(from, 2), addDays(from, 2), 4100);
      await changeRates(ctx, property, from, addDays(from, 3), 4200);
      await ctx.control!.resume();
      await deliveredThrough(ctx, receiver, 60);
      const rows = await allEvents(ctx, { include_superseded: true });
      const delivered = new Set(receiver.received.filter((d) => d.answered === 200).map((d) => d.sequence));
      for (const r of rows) {
        if (r.status === 'superseded' && delivered.has(r.sequence)) ctx.fail('SupersededDelivered', `event ${r.sequence} delivered and superseded`, 'superseded only while undelivered; never delivered', '3.3.T1a');
      }
      const first = rows.find((r) => r.event.window.from === from && r.event.window.to === from);
      if (first && first.status !== 'delivered') ctx.fail('DeliveredSuperseded', `event ${first.sequence} is ${first.status} after a covering event`, 'a delivered event stays delivered', '3.3.T1a');
    },
  }),
];
