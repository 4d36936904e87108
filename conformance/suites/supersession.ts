/**
 * Supersession (§3.3): an undelivered event fully covered by a newer one is
 * superseded, out of default replay and never delivered; a delivered or
 * partly covered one is not. Each check judges the events its own changes
 * recorded, by their sequences.
 */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { allEvents, bookingBody, changeEvent, createBooking, describe, horizonStay, knownProperty, ratesEvent, recorded, rowsFor, writableProperty, type ChangeWindow } from './support.ts';
import { describeDrain, drained, ensureDelivered, receiverFor } from './receiver.ts';
import type { Receiver } from '../../simulator/webhooks/receiver.ts';

/** Delivery paused for the check and resumed after it, pass or fail: events stay undelivered, so they can be superseded (§3.3). */
async function held(ctx: CheckContext): Promise<void> {
  await ctx.control!.pause();
  ctx.cleanup.unshift(async () => void (await ctx.control!.resume()));
}

const suite = 'supersession';
/** Real time a platform is given to give up on a post nobody answers: its delivery time-out is not shown (§6). */
const IN_FLIGHT_REAL_SECONDS = 120;

/** A window of nights `first` to `last` days after `from` on the property. */
function nights(property: number, from: string, first: number, last: number): ChangeWindow {
  return { property, from: addDays(from, first), to: addDays(from, last) };
}

/** What supersession.in-flight-then-failed hands the part of it that holds delivery paused. */
interface HeldPair {
  /** The event whose post hangs, and the newer one covering its window, recorded while the post hung. */
  older: any;
  newer: any;
  w: ChangeWindow;
  accepted(sequence: number): boolean;
  escaped(): never;
  /** Told the third event, which covers the newer one, once it is recorded: from then on the receiver judges its posts. */
  covered(third: any): void;
}

/**
 * supersession.in-flight-then-failed with delivery paused while the older event's post hangs: once the platform gives
 * up on it, the older event is superseded (the newer one covers it) and the newer one waits. A third event covering
 * the newer one supersedes it: still undelivered, it stays supersedable whatever became of the older one (§3.3). The
 * third event's first attempt is then refused while a fourth, overlapping it only in part, waits behind it: a failed
 * attempt supersedes nothing that is not fully covered (§3.3), so the third is delivered on a retry. Returns the
 * fourth's sequence, the check's last, once everything through it is delivered or superseded.
 */
async function heldAfterFailure(ctx: CheckContext, receiver: Receiver, p: HeldPair): Promise<number> {
  const { older, newer, w } = p;
  const read = () => allEvents(ctx, { include_superseded: true }, older.sequence - 1);
  const status = (rows: any[], e: any) => rows.find((r) => r.sequence === e.sequence)?.status ?? 'gone from replay with include_superseded';
  // The platform's delivery time-out is not shown (§6): up to two minutes of real time for it to give up on the
  // hanging post, looked at every 100 ms; paused, it starts no other attempt.
  let rows = await read();
  for (let waited = 0; rows.some((r) => r.sequence <= newer.sequence && r.status === 'delivering'); waited += 1) {
    if (waited >= IN_FLIGHT_REAL_SECONDS * 10) throw new NotApplicable(`the attempt at rates.changed ${older.sequence} was still in flight after ${IN_FLIGHT_REAL_SECONDS} s of real time: the platform had not given up on the hanging post (its delivery time-out is not shown, §6)`);
    await new Promise((r) => setTimeout(r, 100));
    rows = await read();
  }
  // Its attempt failed with the newer event recorded: undelivered and covered, it is superseded now (§3.3), as any
  // undelivered event is once a newer one covers it; a third event would supersede it too and hide the escape.
  const olderNow = status(rows, older);
  if (olderNow !== 'superseded') {
    ctx.fail('InFlightEscapedSupersession', `rates.changed ${older.sequence} (${w.from}..${w.to}), in flight when ${newer.sequence} covering its window was recorded, is ${olderNow} once its attempt failed`,
      'still undelivered (its attempt failed) and fully covered by a newer event: superseded', '3.3.T1');
  }
  const waiting = status(rows, newer);
  if (waiting !== 'pending' && waiting !== 'failed') throw new NotApplicable(`rates.changed ${newer.sequence} was ${waiting}, not waiting, once the attempt at ${older.sequence} had ended`);
  const third = await ratesEvent(ctx, w, 3500 + Math.floor(ctx.random() * 50));
  p.covered(third);
  const partial = await ratesEvent(ctx, nights(w.property, w.from, -1, 0), 3550 + Math.floor(ctx.random() * 50));
  rows = await read();
  if (status(rows, newer) !== 'superseded') {
    ctx.fail('NotSuperseded', `rates.changed ${newer.sequence} (${w.from}..${w.to}), waiting (delivery paused) after the attempt at ${older.sequence}, which it covered, failed, is ${status(rows, newer)} after ${third.sequence} covering its window was recorded`,
      'an undelivered event fully covered by a newer event is superseded', '3.3.T1');
  }
  await ctx.control!.resume();
  const through = await drained(ctx, receiver, partial.sequence);
  if (p.accepted(older.sequence)) p.escaped();
  if (p.accepted(newer.sequence)) ctx.fail('SupersededDelivered', `superseded rates.changed ${newer.sequence} delivered after the resume`, 'a superseded event is never delivered', '3.3.R3');
  rows = await read();
  if (status(rows, third) === 'superseded') {
    ctx.fail('SupersededUncovered', `rates.changed ${third.sequence} (${w.from}..${w.to}) is superseded once its first attempt was refused, with only ${partial.sequence} (${partial.event.window.from}..${partial.event.window.to}), which overlaps it in part, newer`,
      'superseded only when a newer event fully covers the window', '3.3.T1a');
  }
  if (!through) throw new NotApplicable(`after the resume the platform had not delivered rates.changed ${third.sequence} (its first attempt refused) and ${partial.sequence} after ${describeDrain(ctx)}`);
  return partial.sequence;
}

export const supersessionChecks = [
  defineCheck({
    id: 'supersession.in-flight-then-failed', title: 'An event in flight when a newer event covering it is recorded, whose attempt then fails, is superseded: never delivered after all, no longer counted as waiting, and the newer event stays supersedable', suite,
    clauses: ['3.3.T1', '2.1.R4'], level: 'normative', needs: ['read', control('rates.set')],
    async run(ctx) {
      // §3.3: an event still undelivered when a newer event fully covers its window is superseded. One in flight then is
      // undelivered until a 2xx; once its attempt fails it is still undelivered and covered, so it is never delivered.
      const receiver = await receiverFor(ctx);
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('needs a named property for rates.set');
      await ensureDelivered(ctx, receiver, "what was queued before must be delivered first, so that the post in flight is the check's own");
      const before = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      // Two nights, so that a later change over the night before and the first overlaps it only in part.
      const w = nights(property, addDays(dateAt(ctx.now()), 46), 0, 1);
      // Where delivery can be paused, the newer event is held undelivered once the older one is superseded, and what the
      // platform does next with the same window is judged too.
      const holding = Boolean(ctx.control?.offers('delivery.pause') && ctx.control.offers('delivery.resume'));
      // The check's first post is left hanging (no status ever comes): its event stays in flight until the platform
      // gives up on it. Another post of it before the newer event is recorded is refused: whenever its attempt fails, it
      // is still undelivered when the newer event comes. Holding, every later post is refused until a third event covers
      // the newer one (a post of the newer event before the pause lands leaves it undelivered all the same), and the
      // third event's first post is refused; every other post is answered 200.
      let hung: number | null = null;
      let coverRecorded = false;
      let third: any = null;
      let thirdRefused = false;
      receiver.setPolicy((d) => {
        if (d.sequence === null || d.sequence <= before) return undefined;
        if (hung === null) {
          hung = d.sequence;
          return 'timeout';
        }
        if (d.sequence === hung) return coverRecorded ? undefined : 'fail';
        if (holding && third === null) return 'fail';
        if (third !== null && d.sequence === third.sequence && !thirdRefused) {
          thirdRefused = true;
          return 'fail';
        }
        return undefined;
      });
      ctx.cleanup.unshift(async () => receiver.setPolicy(null));
      const older = await ratesEvent(ctx, w, 3400 + Math.floor(ctx.random() * 50));
      // A clock step of 0 s makes the attempt that is due now (and may answer only once its outcome is in), so it is
      // not awaited: the newer event is recorded while the post hangs, watched for in real time.
      const step = ctx.control?.offers('clock.advance') ? ctx.control.advanceClock(0).catch((e: unknown) => e) : Promise.resolve();
      for (let waited = 0; waited < IN_FLIGHT_REAL_SECONDS * 10 && hung !== older.sequence; waited += 1) await new Promise((r) => setTimeout(r, 100));
      if (hung !== older.sequence) throw new NotApplicable(`rates.changed ${older.sequence} was not posted within ${IN_FLIGHT_REAL_SECONDS} s of real time (first post of the check: ${hung ?? 'none'}), so no event was in flight when the covering one came`);
      const newer = await ratesEvent(ctx, w, 3450 + Math.floor(ctx.random() * 50));
      coverRecorded = true;
      if (holding) await held(ctx);
      const stepped = await step;
      if (stepped instanceof Error) throw stepped;
      const accepted = (seq: number) => receiver.received.some((d) => d.sequence === seq && d.answered === 200);
      const escaped = () => ctx.fail('InFlightEscapedSupersession', `rates.changed ${older.sequence} (${w.from}..${w.to}), in flight when ${newer.sequence} covering its window was recorded, was delivered after its attempt failed`,
        'still undelivered (its attempt failed) and fully covered by a newer event: superseded, never delivered', '3.3.T1');
      let last = newer.sequence;
      if (holding) last = await heldAfterFailure(ctx, receiver, { older, newer, w, accepted, escaped, covered: (e) => (third = e) });
      else {
        // The platform's delivery time-out is not shown (§6): up to two minutes of real time for it to give up on the
        // hanging post, looked at every second, decided once the newer event or the older one is accepted.
        for (let waited = 0; waited < IN_FLIGHT_REAL_SECONDS && !accepted(newer.sequence) && !accepted(older.sequence); waited += 1) {
          // Settled (nothing left unanswered through the newer event) is looked at again at once; unsettled, a second later.
          const settled = await drained(ctx, receiver, newer.sequence);
          if (!settled && !accepted(newer.sequence) && !accepted(older.sequence)) await new Promise((r) => setTimeout(r, 1000));
        }
        if (accepted(older.sequence)) escaped();
        if (!accepted(newer.sequence)) throw new NotApplicable(`neither ${older.sequence} nor ${newer.sequence} was accepted after ${IN_FLIGHT_REAL_SECONDS} s of real time: the platform had not given up on the hanging post (its delivery time-out is not shown, §6)`);
      }
      // §2.1: undelivered_events counts events waiting or being retried, 0 when healthy. Once everything through the
      // check's last event is delivered, the superseded older event is neither; judged when nothing was recorded since.
      if (!(await drained(ctx, receiver, last))) throw new NotApplicable(`the platform had not recorded event ${last} and everything before it as delivered after ${describeDrain(ctx)}: the count of what waits once drained was not observed`);
      const webhook = (await ctx.api.get('/me')).body.data.webhook;
      if (webhook.last_sequence === last && webhook.undelivered_events !== 0) {
        ctx.fail('UndeliveredMiscounted', `webhook.undelivered_events ${JSON.stringify(webhook.undelivered_events)} once event ${last} and everything before it was delivered or superseded (${older.sequence} superseded when its attempt failed)`,
          'events waiting or being retried; 0 when healthy: a superseded event is neither', '2.1.R4');
      }
    },
  }),
  defineCheck({
    id: 'supersession.covered-and-omitted', title: 'An undelivered event fully covered by a newer one is superseded, absent from default replay and present with include_superseded; a partly covered one is not', suite,
    clauses: ['3.3.T1', '3.3.T1a', '3.3.R2', '4.6.Q5', '2.1.R4'], level: 'normative',
    needs: ['read', control('rates.set'), control('delivery.pause'), control('delivery.resume')], wants: ['property'],
    async run(ctx) {
      await held(ctx);
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 30);
      const waitingBefore = (await ctx.api.get('/me')).body.data.webhook.undelivered_events as number;
      // Recorded while delivery is paused, so all four are undelivered; only the first lies wholly inside the last.
      const covered = await ratesEvent(ctx, nights(property, from, 0, 1), 3000);
      const apart = await ratesEvent(ctx, nights(property, from, 5, 6), 3100);
      const partly = await ratesEvent(ctx, nights(property, from, 2, 4), 3150);
      const covering = await ratesEvent(ctx, nights(property, from, 0, 3), 3200);
      const all = await allEvents(ctx, { include_superseded: true }, covered.sequence - 1);
      const status = (e: any) => all.find((r) => r.sequence === e.sequence)?.status ?? 'gone from replay with include_superseded';
      if (status(covered) !== 'superseded') ctx.fail('NotSuperseded', `event ${covered.sequence} (${covered.event.window.from}..${covered.event.window.to}) is ${status(covered)} after event ${covering.sequence} (${covering.event.window.from}..${covering.event.window.to}) covered it while delivery was paused`, 'an undelivered event fully covered by a newer event is superseded', '3.3.T1');
      for (const [e, how] of [[apart, 'outside'], [partly, 'only partly inside']] as const) {
        if (status(e) === 'superseded') ctx.fail('SupersededUncovered', `event ${e.sequence} (${e.event.window.from}..${e.event.window.to}), ${how} the window of event ${covering.sequence} (${covering.event.window.from}..${covering.event.window.to}), is superseded`, 'superseded only when a newer event fully covers the window', '3.3.T1a');
      }
      if (status(covering) === 'superseded') ctx.fail('SupersededUncovered', `the covering event ${covering.sequence} is superseded with nothing newer covering it`, 'superseded only when a newer event fully covers the window', '3.3.T1a');
      const defaults = (await allEvents(ctx, {}, covered.sequence - 1)).map((r) => r.sequence as number);
      if (defaults.includes(covered.sequence)) ctx.fail('SupersededInReplay', `superseded event ${covered.sequence} in default replay`, 'omitted unless include_superseded', '3.3.R2');
      const omitted = [apart, partly, covering].filter((e) => !defaults.includes(e.sequence)).map((e) => e.sequence);
      if (omitted.length > 0) ctx.fail('EventMissingFromReplay', `events ${omitted.join(', ')}, not superseded, absent from default replay`, 'default replay holds every retained event that is not superseded', '4.6.Q5');
      // §2.1: undelivered_events counts what waits; a superseded event no longer does (it is never delivered, §3.3).
      const waitingAfter = (await ctx.api.get('/me')).body.data.webhook.undelivered_events as number;
      if (waitingAfter - waitingBefore !== 3) ctx.fail('UndeliveredMiscounted', `webhook.undelivered_events ${waitingBefore} → ${waitingAfter} after four changes while paused, one of them superseded`, 'three more waiting: the superseded event is no longer waiting', '2.1.R4');
    },
  }),
  defineCheck({
    id: 'supersession.same-type-only', title: 'A newer event of another type never supersedes an undelivered one, whatever its window', suite,
    clauses: ['3.3.T1a'], level: 'normative',
    needs: ['read', control('rates.set'), control('restrictions.set'), control('delivery.pause'), control('delivery.resume')], wants: ['property'],
    async run(ctx) {
      await held(ctx);
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 40);
      const w = nights(property, from, 0, 1);
      const before = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      await ctx.control!.setRestrictions(property, { from: w.from, to: w.to, min_stay: 3 });
      const subscribed = (await ctx.api.get('/me')).body?.data?.webhook?.event_types;
      if (Array.isArray(subscribed) && !subscribed.includes('restrictions.changed')) throw new NotApplicable(`the integration is not subscribed to restrictions.changed (webhook.event_types ${JSON.stringify(subscribed)})`);
      const [restrictions] = await recorded(ctx, changeEvent('restrictions.changed', w, before, 'control restrictions.set'), () => rowsFor(ctx, 'restrictions.changed', w, before), (r) => r.length > 0);
      // §3.3: a rates change over the same nights and more carries no restrictions: it covers nothing of that event.
      const rates = await ratesEvent(ctx, nights(property, from, 0, 3), 3300);
      const rows = await allEvents(ctx, { include_superseded: true }, restrictions.sequence - 1);
      const status = rows.find((r) => r.sequence === restrictions.sequence)?.status ?? 'gone from replay with include_superseded';
      if (status === 'superseded') ctx.fail('SupersededAcrossTypes', `restrictions.changed ${restrictions.sequence} (${w.from}..${w.to}) superseded after rates.changed ${rates.sequence} (${rates.event.window.from}..${rates.event.window.to})`, 'superseded only by a newer event of its own type: a rates change carries no restrictions', '3.3.T1a');
    },
  }),
  defineCheck({
    id: 'supersession.booking-changed-per-booking', title: "A booking.changed's window is its stay, and it never supersedes another booking's, even when its stay covers that one's (spec x-assumption)", suite,
    clauses: ['3.3.T1a'], level: 'assumption',
    needs: ['write', control('delivery.pause'), control('delivery.resume')], wants: ['property'],
    async run(ctx) {
      await held(ctx);
      const property = writableProperty(ctx);
      // Two bookings, the second's stay covering the first's night: each booking.changed is about its own booking.
      const longer = horizonStay(ctx, 2);
      const shorter = { check_in: longer.check_in, check_out: addDays(longer.check_in, 1) };
      const before = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      const ids: number[] = [];
      for (const stay of [shorter, longer]) {
        const res = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, ...stay }));
        if (res.status === 409) throw new NotApplicable(`two bookings of ${longer.check_in} on property ${property} need two free units there (${describe(res)})`);
        expectStatus(ctx, res, 201, null, '4.5.R8', 'a valid create');
        ids.push(res.body.data.id);
      }
      const subscribed = (await ctx.api.get('/me')).body?.data?.webhook?.event_types;
      if (Array.isArray(subscribed) && !subscribed.includes('booking.changed')) throw new NotApplicable(`the integration is not subscribed to booking.changed (webhook.event_types ${JSON.stringify(subscribed)})`);
      const rows = await recorded(ctx, `the booking.changed events of bookings ${ids.join(' and ')} after sequence ${before}`, () => allEvents(ctx, { include_superseded: true, property_id: property, 'types[]': ['booking.changed'] }, before), (r) => ids.every((id) => r.some((x) => x.event.data?.id === id)));
      const first = rows.find((r) => r.event.data?.id === ids[0])!;
      // The same assumption: a booking.changed's window is its stay, check-in to the last night.
      for (const [i, stay] of [shorter, longer].entries()) {
        const row = rows.find((r) => r.event.data?.id === ids[i]);
        const want = { from: stay.check_in, to: addDays(stay.check_out, -1) };
        if (row && (row.event.window?.from !== want.from || row.event.window?.to !== want.to)) {
          ctx.fail('BookingWindowNotStay', `booking.changed ${row.sequence} of booking ${ids[i]} has window ${JSON.stringify(row.event.window)}`, `the stay: ${JSON.stringify(want)} (check-in to the last night; spec x-assumption of booking.changed)`, '3.3.T1a');
        }
      }
      if (first.status === 'superseded') ctx.fail('SupersededAcrossBookings', `booking.changed ${first.sequence} of booking ${ids[0]} superseded after booking ${ids[1]}'s stay covered its night`, "superseded only by a newer booking.changed of the same booking: another booking's carries nothing of it", '3.3.T1a');
    },
  }),
  defineCheck({
    id: 'supersession.only-undelivered', title: 'A delivered event is never superseded; a superseded event is never delivered', suite,
    clauses: ['3.3.T1', '3.3.T1a', '3.3.R3'], level: 'normative',
    needs: ['read', control('rates.set'), control('delivery.pause'), control('delivery.resume')], wants: ['property'],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 30);
      // The second change is recorded before the first is delivered, and the receiver refuses it: a failed event is
      // still undelivered (§3.3), and the first's delivery must not take it out of what a newer change can cover.
      let second: any = null;
      receiver.setPolicy((d) => (second !== null && d.sequence === second.sequence ? 'fail' : undefined));
      const first = await ratesEvent(ctx, nights(property, from, 0, 0), 4000);
      second = await ratesEvent(ctx, nights(property, from, 2, 2), 4100);
      // Until the platform has delivered it, a covering change would rightly supersede it (§3.3): what is queued
      // ahead of it (an earlier check's backlog in back-off) drains first.
      await ensureDelivered(ctx, receiver, `event ${first.sequence}, the check's first change, must be delivered before a newer change covers it`, first.sequence);
      await held(ctx);
      // An attempt at the second still in flight when the pause landed ends (refused) before the cover is recorded.
      await recorded(ctx, `the platform's record of the attempt at event ${second.sequence} in flight when delivery was paused (its replay row no longer delivering)`, () => allEvents(ctx, { include_superseded: true }, second.sequence - 1), (r) => r[0]?.status !== 'delivering', 'an event in flight is not superseded, so the cover must wait for the attempt to end');
      receiver.setPolicy(null);
      const covering = await ratesEvent(ctx, nights(property, from, 0, 3), 4200);
      const rows = await allEvents(ctx, { include_superseded: true }, first.sequence - 1);
      const status = (e: any) => rows.find((r) => r.sequence === e.sequence)?.status ?? 'gone from replay with include_superseded';
      if (status(first) !== 'delivered') ctx.fail('DeliveredSuperseded', `event ${first.sequence}, delivered before event ${covering.sequence} covered it, is ${status(first)}`, 'a delivered event stays delivered', '3.3.T1a');
      if (status(second) !== 'superseded') ctx.fail('NotSuperseded', `event ${second.sequence}, recorded before event ${first.sequence} was delivered and refused by the receiver, is ${status(second)} after event ${covering.sequence} covered it`, 'an undelivered event fully covered by a newer event is superseded', '3.3.T1');
      await ctx.control!.resume();
      const through = await drained(ctx, receiver, covering.sequence);
      if (receiver.received.some((d) => d.sequence === second.sequence && d.answered === 200)) ctx.fail('SupersededDelivered', `superseded event ${second.sequence} delivered after the resume`, 'a superseded event is never delivered', '3.3.R3');
      if (!through) throw new NotApplicable(`after the resume the platform had not delivered the covering event ${covering.sequence}: whether the superseded event ${second.sequence} is ever delivered was not observed`);
    },
  }),
];
