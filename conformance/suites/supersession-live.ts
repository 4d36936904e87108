/**
 * Supersession made with a partner's own powers (§3.3): two creates on the
 * same night while the runner's receiver answers 5xx to the first create's
 * availability.changed, so that event is still undelivered when the second
 * create's event fully covers its window. Live, this needs writes and the
 * receiver behind --webhook-public-url; in-process the same receiver is
 * registered by the harness. No staff power is used.
 */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { allEvents, bookingBody, coveringRow, createBooking, expectCreated, } from './support.ts';
import { deliveryBreach, drained, notDelivered, partnerReceiver, type PartnerReceiver } from './receiver.ts';
import { createdPair } from './webhooks.ts';
import { awaitObserved, NotObserved } from '../not-observed.ts';

const suite = 'supersession';

export interface MadeSupersession {
  hook: PartnerReceiver;
  /** The first create's availability.changed: undelivered, then covered. */
  first: any;
  /** The second create's events (availability.changed, booking.changed). */
  second: any[];
  /** /me last_sequence before the first create. */
  before: number;
}

/** A night with at least two sellable units on a property the run may book, inside the event horizon. */
async function nightForTwo(ctx: CheckContext, horizonDays: number): Promise<{ property: number; night: string }> {
  const today = dateAt(ctx.now());
  // The last 90 nights of the horizon (events beyond it are not pushed, §2.1), far from near-term stays.
  const from = addDays(today, Math.max(2, horizonDays - 95));
  const to = addDays(from, 89);
  const properties = ctx.target.properties.filter((p) => !p.archived).map((p) => p.doorloom_id);
  for (const property of properties) {
    const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from, to } });
    if (res.status !== 200) continue;
    const nights = (res.body?.data?.data?.dates ?? []).filter((d: any) => d.available_units >= 2 && !d.is_blocked).map((d: any) => d.date as string);
    if (nights.length > 0) return { property, night: nights[Math.floor(Math.random() * nights.length)]! };
  }
  throw new NotApplicable(`no night from ${from} to ${to} with two free units on ${properties.length === 0 ? 'any named property (name one with --property ID)' : `properties ${properties.join(', ')}`}`);
}

/**
 * Makes one superseded event: fails the delivery of the first create's
 * availability.changed, books the same night again, and returns once the
 * covered event is superseded (or fails the check naming why not).
 */
export async function makeSupersession(ctx: CheckContext): Promise<MadeSupersession> {
  if (!ctx.target.capabilities.includes('write')) throw new NotApplicable('needs writes (--allow-writes) to make events that supersede each other');
  const hook = await partnerReceiver(ctx);
  const { receiver, me } = hook;
  const { property, night } = await nightForTwo(ctx, me.horizon_days ?? 365);
  const stay = { check_in: night, check_out: addDays(night, 1) };
  const before = me.webhook.last_sequence as number;
  let target: number | null = null;
  // 5xx to the first create's availability.changed only: everything else flows, so the queue drains afterwards.
  receiver.setPolicy((d) => {
    if (d.type !== 'availability.changed' || (target !== null && d.sequence !== target)) return undefined;
    const e = JSON.parse(d.body);
    return e.property?.doorloom_id === property && e.window?.from === night && e.window?.to === night ? 'fail' : undefined;
  });
  const firstBody = bookingBody(ctx, { ...stay, property: { doorloom_id: property } });
  const firstRes = await createBooking(ctx, firstBody);
  expectCreated(ctx, firstRes, `the first create on ${night}, where the snapshot showed two free units`);
  const [first] = createdPair(await allEvents(ctx, { include_superseded: true }, before), firstBody, firstRes.body.data.id);
  if (first?.event.type !== 'availability.changed') ctx.fail('CreateEventsMissing', `no availability.changed for ${night} after sequence ${before}`, 'a create emits availability.changed for its nights', '6.R5');
  target = first.sequence;
  // Let the platform try it (and fail) first, so it is undelivered for the plain reason: the receiver said 5xx.
  // Not tried within the wait (a backlog ahead of it), it is still undelivered: pending rather than failed.
  const tried = await hook.waitFor(() => receiver.received.some((d) => d.sequence === target) || receiver.problems.length > 0, 15);
  deliveryBreach(ctx, receiver.received);
  // An event in flight is not superseded (§3.3 covers what is still undelivered; a post under way is neither). The cover
  // waits for the event that ends the attempt, the platform's record of it: its replay row no longer delivering
  // (issue 38: it went on after 5 s, and a platform slower to record the refusal failed NotSuperseded).
  const row = async () => (await ctx.api.get('/events', { query: { after_sequence: target! - 1, limit: 1, include_superseded: true } })).body?.data?.[0];
  await awaitObserved(`the platform's record of its attempt at availability.changed ${target} (the replay row no longer delivering)`, async () => {
    const r = await row();
    return r?.sequence === target && r.status === 'delivering' ? undefined : (r ?? null);
  }, { why: 'an event in flight is not superseded, so its cover waits for the attempt to end' });
  if (receiver.received.some((d) => d.sequence === target && d.answered === 200)) throw new Error(`the receiver accepted sequence ${target} it was told to fail`);
  const attempts = () => receiver.received.filter((d) => d.sequence === target).length;
  const attemptsBefore = attempts();
  const secondBody = bookingBody(ctx, { ...stay, property: { doorloom_id: property } });
  const secondRes = await createBooking(ctx, secondBody);
  expectStatus(ctx, secondRes, 201, null, '4.5.R8', `a second create on ${night}, where the snapshot showed two free units`);
  const rows = await allEvents(ctx, { include_superseded: true }, before);
  const second = createdPair(rows, secondBody, secondRes.body.data.id);
  const covered = rows.find((r) => r.sequence === target);
  if (covered?.status !== 'superseded') {
    // A retry under way while the cover was recorded is in flight, not undelivered: nothing is judged on it. Its post
    // reaches the receiver before the platform records its end, so a retry that overlapped the cover shows either way.
    if (covered?.status === 'delivering' || attempts() > attemptsBefore) {
      throw new NotObserved(`availability.changed ${target} undelivered and not in flight when availability.changed ${second[0]?.sequence ?? '?'} covered its night`, 'the second create', `a retry of it was under way then (row ${covered?.status}, ${attempts()} attempt(s) at the receiver, ${attemptsBefore} before the cover), and an event in flight is not superseded`);
    }
    ctx.fail('NotSuperseded', `availability.changed ${target} is ${covered?.status ?? 'gone from replay'} after availability.changed ${second[0]?.sequence ?? '?'} covered its night while undelivered (${tried ? 'refused by the receiver' : 'not yet attempted'})`, 'an undelivered event fully covered by a newer one becomes superseded', '3.3.T1');
  }
  return { hook, first: covered, second, before };
}

export const liveSupersessionChecks = [
  defineCheck({
    id: 'supersession.live-undelivered-covered', title: 'An event the receiver refused, covered by a newer one, is superseded, out of default replay and never delivered', suite,
    clauses: ['3.3.T1', '3.3.T1a', '3.3.R2', '3.3.R3', '4.6.Q5'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const { hook, first, second, before } = await makeSupersession(ctx);
      const { receiver } = hook;
      const all = await allEvents(ctx, { include_superseded: true }, before);
      if (!coveringRow(all, first)) ctx.fail('SupersededUncovered', `event ${first.sequence} superseded without a newer covering event`, 'a newer event of the same type and property fully covers it', '3.3.T1');
      const defaults = await allEvents(ctx, {}, before);
      if (defaults.some((r) => r.sequence === first.sequence)) ctx.fail('SupersededInReplay', `superseded event ${first.sequence} in default replay`, 'omitted unless include_superseded', '3.3.R2');
      // Now the receiver takes everything: the queue drains past the superseded event without it (§3.3).
      receiver.setPolicy(null);
      const own = second.map((r) => r.sequence as number);
      const through = await drained(ctx, receiver, Math.max(...own));
      if (receiver.received.some((d) => d.sequence === first.sequence && d.answered === 200)) {
        ctx.fail('SupersededDelivered', `superseded event ${first.sequence} delivered`, 'a superseded event is never delivered', '3.3.T1a');
      }
      if (!through) await notDelivered(ctx, own, { kind: 'NotDelivered', received: `the covering events ${own.join(', ')} not delivered once the receiver answered 200`, documented: 'delivery goes on past the superseded event', clause: '6.R2' });
    },
  }),
];
