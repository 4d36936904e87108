/**
 * Webhooks (§3.1, §5.4, §6.2, §6.3, §6.6) through a loopback receiver:
 * order under failures, signatures (both values during rotation),
 * X-Service-Integration, the stored envelope byte for byte, pause and
 * resume through the clock, the ping.
 */
import { createHmac } from 'node:crypto';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import type { ReceivedDelivery, Receiver } from '../../simulator/webhooks/receiver.ts';
import { advance, allEvents, bookingBody, changeRates, createBooking, horizonStay, knownProperty, ratesEvent } from './support.ts';
import { deliveryBreach, describeDrain, drained, ensureDelivered, letTimePass, notDelivered, partnerReceiver, receiverFor, waitFor, waitForDrain, watchForAbsence } from './receiver.ts';
import { awaitObserved } from '../not-observed.ts';

/** What a receiver got, for a failure message. */
function got(received: ReceivedDelivery[]): string {
  return received.map((d) => `${d.sequence ?? d.type}→${d.answered ?? 'no answer'}`).join(', ') || 'nothing';
}

const suite = 'webhooks';
/** Real time a platform is given to give up on a post nobody answers: its delivery time-out is not shown (§6). */
const UNANSWERED_REAL_SECONDS = 120;

/** One step of the platform's clock past the check's own deliveries: a staff action, five minutes, far past any delivery time-out. */
const STEP_SECONDS = 300;

const DAY_MS = 24 * 3_600_000;
/** §6.7, §8: events are retained 30 days; the undelivered-count check steps an hour past them. */
const RETENTION_SECONDS = 30 * 24 * 60 * 60;
const MARGIN_SECONDS = 60 * 60;
/** How long before an event's 30 days are up its attempt is begun, so that the post hangs as the platform's clock passes them. */
const IN_FLIGHT_LEAD_MS = 500;
/** How many events are sent so, until one's post is seen hanging as its 30 days pass (a busy machine may miss the moment). */
const IN_FLIGHT_TRIES = 3;
/** How far inside and outside a 24-hour validity the rotation check looks. */
const MARGIN_MS = 5 * 60_000;

/** The availability.changed and booking.changed rows of one create (§4.5 rule 9), in sequence order; fewer when replay lacks one. */
export function createdPair(rows: any[], body: Record<string, any>, bookingId: number): any[] {
  const lastNight = addDays(body.check_out, -1);
  const booking = rows.find((r) => r.event.type === 'booking.changed' && r.event.data?.id === bookingId);
  const availability = rows.filter((r) => r.event.type === 'availability.changed' && r.event.property.doorloom_id === body.property.doorloom_id
    && r.event.window.from === body.check_in && r.event.window.to === lastNight && (!booking || r.sequence < booking.sequence)).at(-1);
  return [availability, booking].filter((r) => r !== undefined);
}

/**
 * The v1= values a delivery carries, and the ones spec/openapi.yaml's ServiceSignatureHeader x-assumption makes of
 * `secrets` for its t= and raw body: hex HMAC-SHA256 over "<t>.<raw body>" keyed with the whole whsec_ secret. Computed
 * here from the assumption's words, never by the receiver's verifier: a platform and a receiver sharing one signer agree
 * with each other however that signer is wrong.
 */
function documentedSignatures(d: ReceivedDelivery, secrets: string[]): { given: string[]; documented: string[] } {
  const parts = (d.signature ?? '').split(',').map((p) => p.trim());
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  const given = parts.filter((p) => p.startsWith('v1=')).map((p) => p.slice(3));
  if (t === undefined || !/^\d+$/.test(t)) return { given, documented: [] };
  return { given, documented: secrets.map((secret) => createHmac('sha256', secret).update(`${t}.${d.body}`, 'utf8').digest('hex')) };
}

/** What the assumption says a delivery's signature header is, for a failure message. */
const SIGNATURE_SCHEME = 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, keyed with the whole whsec_ secret (spec x-assumption ServiceSignatureHeader)';

/**
 * The start of a check that judges only its own deliveries (§6.2): the receiver, a property and a first night `days`
 * ahead, what was queued before delivered first (`why` says what for, if it never is), and how many posts the receiver
 * had heard by then.
 */
async function ownDeliveries(ctx: CheckContext, days: number, why: string) {
  const receiver = await receiverFor(ctx);
  const property = knownProperty(ctx)!;
  const from = addDays(dateAt(ctx.now()), days);
  await ensureDelivered(ctx, receiver, why);
  return { receiver, property, from, heardBefore: receiver.received.length };
}

/**
 * One event, recorded while delivery is paused, sent just before its 30 days are up (§6.7, §8) with its post left
 * hanging (no status ever comes) while the platform's clock, running, passes them; replay is read then, whenever the
 * platform lets events go. The clock is moved while paused (nothing goes), delivery resumed and a step of 0 s made that
 * sends it, not awaited; replay is read every 100 ms from the moment the 30 days are up until the step is answered.
 * Leaves delivery resumed and the receiver's policy set (the caller clears it once). True when the post came before the
 * 30 days were up and a read of replay began after them before the step was answered (in-process: before the platform
 * gave up on the post). Otherwise the event left retention unposted, or its attempt ended first: one more waiting event
 * past retention, counted the same.
 */
async function inFlightAsRetentionEnds(ctx: CheckContext, receiver: Receiver, property: number): Promise<boolean> {
  const night = addDays(dateAt(ctx.now()), 48);
  const event = await ratesEvent(ctx, { property, from: night, to: night }, 4600 + Math.floor(ctx.random() * 100));
  const leaves = Date.parse(event.event.occurred_at) + RETENTION_SECONDS * 1000;
  let postedAt: number | null = null;
  receiver.setPolicy((d) => {
    if (postedAt !== null || d.sequence !== event.sequence) return undefined;
    postedAt = ctx.now();
    return 'timeout';
  });
  await ctx.control!.advanceClock(Math.max(0, (leaves - IN_FLIGHT_LEAD_MS - ctx.now()) / 1000));
  await ctx.control!.resume();
  let answered = false;
  let crossed = false;
  const step = ctx.control!.advanceClock(0).finally(() => void (answered = true));
  step.catch(() => undefined);
  // The platform's delivery time-out is not shown (§6): up to two minutes of real time for it to give up on the post.
  for (let waited = 0, readPast = false; !(answered && readPast); waited += 1) {
    if (waited >= UNANSWERED_REAL_SECONDS * 10) throw new NotApplicable(`a step of 0 s that sent event ${event.sequence}, whose post was left unanswered, was not answered within ${UNANSWERED_REAL_SECONDS} s of real time (the delivery time-out is not shown, §6)`);
    await new Promise((r) => setTimeout(r, 100));
    if (ctx.now() <= leaves) continue;
    const pending = !answered;
    await ctx.api.get('/events', { query: { limit: 1 } });
    readPast = true;
    crossed ||= pending && postedAt !== null && postedAt < leaves;
  }
  await step;
  return crossed;
}

export const webhookChecks = [
  defineCheck({
    id: 'webhooks.undelivered-count-through-retention', title: 'webhook.undelivered_events counts what waits: 0 once drained, though delivered, waiting and in-flight events left retention meanwhile', suite,
    clauses: ['2.1.R4', '6.R7'], level: 'normative', needs: ['read', control('delivery.pause'), control('delivery.resume'), control('rates.set'), control('clock.advance')],
    async run(ctx) {
      // §2.1: undelivered_events counts "events waiting or being retried; 0 when healthy". Events that leave retention
      // (§6.7) are neither: a delivered one was never counted, a waiting one is gone. A count moved by what leaves
      // retention shows as a count that is not 0 once everything still retained is delivered.
      const receiver = await receiverFor(ctx);
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('needs a named property for rates.set');
      const before = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      const night = addDays(dateAt(ctx.now()), 40);
      // Delivered events that will leave retention.
      await changeRates(ctx, property, night, night, 4100 + Math.floor(ctx.random() * 100));
      await ensureDelivered(ctx, receiver, 'the events recorded before the pause must be delivered first');
      // A failed event (being retried) that will leave retention undelivered: the receiver refuses it once.
      receiver.setMode('fail');
      ctx.cleanup.unshift(async () => receiver.setMode('ok'));
      await changeRates(ctx, property, addDays(night, 6), addDays(night, 6), 4500 + Math.floor(ctx.random() * 100));
      const failing = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await waitFor(ctx, () => receiver.received.some((d) => d.sequence === failing), 60))) throw new NotApplicable(`event ${failing} was not attempted within 60 s of platform time, so no event was being retried when the month passed`);
      // Waiting events that will leave retention undelivered.
      await ctx.control!.pause();
      ctx.cleanup.unshift(async () => void (await ctx.control!.resume()));
      receiver.setMode('ok');
      await changeRates(ctx, property, addDays(night, 2), addDays(night, 2), 4200 + Math.floor(ctx.random() * 100));
      await changeRates(ctx, property, addDays(night, 4), addDays(night, 4), 4300 + Math.floor(ctx.random() * 100));
      // What waits before the month passes: the count a platform shows for it may not stick once they are gone.
      await ctx.api.get('/me');
      await ctx.control!.advanceClock(RETENTION_SECONDS + MARGIN_SECONDS);
      // A read of replay: past retention, replay is unavailable (§6.7), whenever the platform lets them go.
      await ctx.api.get('/events', { query: { limit: 1 } });
      // Read while paused, before a delivery could mend a count that went wrong: the count is the retained events still
      // waiting or being retried. Everything recorded before this check's events is older still and gone too, so those
      // are the rows after `before` whose (diagnostic, §2.6) status is waiting; compared only when no event was
      // recorded between the reads.
      for (let attempt = 0; attempt < 3; attempt++) {
        const me = (await ctx.api.get('/me')).body.data.webhook;
        const rows = await allEvents(ctx, { include_superseded: true }, before);
        const again = (await ctx.api.get('/me')).body.data.webhook;
        if (again.last_sequence !== me.last_sequence || again.undelivered_events !== me.undelivered_events) continue;
        const waiting = rows.filter((r) => ['pending', 'failed', 'delivering'].includes(r.status)).length;
        if (!Number.isInteger(me.undelivered_events) || me.undelivered_events !== waiting) {
          ctx.fail('UndeliveredMiscounted', `webhook.undelivered_events ${JSON.stringify(me.undelivered_events)} once the delivered and the waiting events left the 30 days of retention; ${waiting} retained event(s) waiting`, 'a count of the events waiting or being retried: an event past retention is neither', '2.1.R4');
        }
        break;
      }
      // An event in flight as it leaves retention: its post waits for a 2xx (§6.2), so until its attempt ends it is
      // waiting; once past retention it is neither waiting nor retried, whatever the attempt's outcome (inFlightAsRetentionEnds).
      // Tried again on a fresh event while no try saw its post hang as the 30 days passed (a busy machine may miss the
      // moment); a miss only costs a try: the count is judged the same below.
      // Each try sets the receiver's policy for its own event; the policy is cleared once, after the check.
      ctx.cleanup.unshift(async () => receiver.setPolicy(null));
      for (let tries = 1; !(await inFlightAsRetentionEnds(ctx, receiver, property)) && tries < IN_FLIGHT_TRIES; tries++) await ctx.control!.pause();
      // Something fresh to deliver once resumed, on a night the month-old changes are no longer near.
      const fresh = addDays(dateAt(ctx.now()), 40);
      await changeRates(ctx, property, fresh, fresh, 4400 + Math.floor(ctx.random() * 100));
      const through = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await drained(ctx, receiver, through))) await notDelivered(ctx, [through], { kind: 'NotDeliveredAfterResume', received: `the receiver got ${got(receiver.received)}`, documented: 'while active, webhooks flow: the waiting events delivered', clause: '3.1.R1' });
      const w = (await ctx.api.get('/me')).body.data.webhook;
      if (w.undelivered_events !== 0) {
        ctx.fail('UndeliveredMiscounted', `webhook.undelivered_events ${JSON.stringify(w.undelivered_events)} once event ${through} and everything before it was delivered, after delivered, waiting and in-flight events left the 30 days of retention`,
          'events waiting or being retried; 0 when healthy: an event past retention is neither', '2.1.R4');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.live-deliveries', title: 'A create is delivered in order, signed, named and byte-identical to replay, judged over everything the receiver got', suite,
    clauses: ['6.R2', '6.R2a', '6.R3', '2.6.R1', '6.R5', '5.R4'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const { receiver, me } = await partnerReceiver(ctx);
      const before = me.webhook.last_sequence as number;
      const body = bookingBody(ctx, horizonStay(ctx, 1));
      const created = await createBooking(ctx, body);
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      // The create's own pair (§4.5 rule 9), found in replay: other activity on the integration may interleave.
      const rows = await allEvents(ctx, { include_superseded: true }, before);
      const pair = createdPair(rows, body, created.body.data.id);
      if (pair.length < 2) ctx.fail('CreateEventsMissing', `replay after ${before} holds ${rows.map((r) => `${r.sequence} ${r.event.type}`).join(', ') || 'nothing'}`, 'availability.changed and booking.changed for the create', '6.R5');
      const accepted = () => pair.every((r) => receiver.received.some((d) => d.sequence === r.sequence && d.answered === 200));
      // Everything the receiver got, also what arrived before the create: refusals and order name the breach.
      if (!(await drained(ctx, receiver, Math.max(...pair.map((r) => r.sequence as number)))) || !accepted()) {
        await notDelivered(ctx, pair.map((r) => r.sequence), { kind: 'NotDelivered', received: `the receiver got ${got(receiver.received)}`, documented: `sequences ${pair.map((r) => r.sequence).join(' and ')} (availability.changed, booking.changed) delivered after the create`, clause: '6.R5' });
      }
      const replayed = await allEvents(ctx, { include_superseded: true }, Math.min(...receiver.received.map((d) => d.sequence ?? before + 1), before + 1) - 1);
      for (const d of receiver.received.filter((x) => x.answered === 200 && x.sequence !== null)) {
        const row = replayed.find((r) => r.sequence === d.sequence);
        if (row && JSON.stringify(row.event) !== d.body) ctx.fail('DeliveryNotReplayBytes', `delivery ${d.sequence} differs from its replay row`, 'the exact envelope, byte for byte', '2.6.R1');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.https-delivery', title: 'An https:// webhook URL is delivered to as an http one is: a create\'s events posted over TLS in order, signed, named and byte-identical to replay', suite,
    clauses: ['1.R3', '6.R2', '6.R2a', '6.R3', '6.R5', '2.6.R1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      // §2.1 webhook.url is the delivery target and §1 pushes events to the registered webhook, whatever its scheme:
      // the receiver sits behind TLS (in-process a front with a certificate the simulator trusts; live the
      // partner's https:// --webhook-public-url) and sees the same deliveries as over http.
      const receiver = await receiverFor(ctx, undefined, { https: true });
      const me = (await ctx.api.get('/me')).body.data;
      const url = me.webhook?.url as string | null;
      if (url === null || !url.startsWith('https://')) ctx.fail('HttpsUrlNotKept', `webhook.url ${JSON.stringify(url)} after an https:// URL was registered`, 'the registered URL as the delivery target', '1.R3');
      const before = me.webhook.last_sequence as number;
      const body = bookingBody(ctx, horizonStay(ctx, 1));
      const created = await createBooking(ctx, body);
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      // The create's own pair (§4.5 rule 9, §6 rule 5), found in replay: other activity may interleave live.
      const pair = createdPair(await allEvents(ctx, { include_superseded: true }, before), body, created.body.data.id);
      if (pair.length < 2) ctx.fail('CreateEventsMissing', `replay after ${before} holds ${pair.map((r) => `${r.sequence} ${r.event.type}`).join(', ') || 'neither'} of the create's pair`, 'availability.changed and booking.changed for the create', '6.R5');
      const through = Math.max(...pair.map((r) => r.sequence as number));
      // The platform's own record says when they were delivered (drained), never a wall-clock budget; a receiver
      // problem on the way (signature, X-Service-Integration, order) fails the check there.
      const accepted = () => pair.every((r) => receiver.received.some((d) => d.sequence === r.sequence && d.answered === 200));
      if (!(await drained(ctx, receiver, through)) || !accepted()) {
        await notDelivered(ctx, pair.map((r) => r.sequence), { kind: 'NotDeliveredOverHttps', received: `to ${url} the receiver got ${got(receiver.received)}`, documented: `sequences ${pair.map((r) => r.sequence).join(' and ')} delivered to the registered https:// webhook URL as to an http one`, clause: '1.R3' });
      }
      for (const d of receiver.received.filter((x) => x.answered === 200 && pair.some((r) => r.sequence === x.sequence))) {
        const row = pair.find((r) => r.sequence === d.sequence)!;
        if (JSON.stringify(row.event) !== d.body) ctx.fail('DeliveryNotReplayBytes', `delivery ${d.sequence} over https differs from its replay row`, 'the exact envelope, byte for byte', '2.6.R1');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.identified-and-identical', title: 'Every delivery names the integration, is JSON and is the replayed envelope byte for byte', suite,
    clauses: ['6.R3', '2.6.R1', '6.R2a', '6.R5', '4.C2'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await drained(ctx, receiver, last)) || receiver.received.length === 0) {
        await notDelivered(ctx, [last], { kind: 'NothingDelivered', received: `the receiver got ${got(receiver.received)}`, documented: 'availability.changed and booking.changed posted to the webhook', clause: '6.R5' });
      }
      const rows = await allEvents(ctx, { include_superseded: true }, Math.min(...receiver.received.map((d) => d.sequence ?? Infinity)) - 1);
      for (const d of receiver.received.filter((x) => x.sequence !== null)) {
        const row = rows.find((r) => r.sequence === d.sequence);
        if (!row || JSON.stringify(row.event) !== d.body) ctx.fail('DeliveryNotReplayBytes', `delivery of ${d.sequence} differs from its replay row`, 'the exact envelope, byte for byte', '2.6.R1');
      }
      // A delivery is a request: its body is JSON and says so (the document's conventions: JSON request and response bodies).
      const untyped = receiver.received.find((d) => !/^application\/json\b/i.test(d.contentType ?? ''));
      if (untyped) ctx.fail('DeliveryNotJson', `delivery of ${untyped.sequence ?? untyped.type} came with Content-Type ${JSON.stringify(untyped.contentType)}`, 'JSON request bodies: Content-Type application/json', '4.C2');
    },
  }),
  defineCheck({
    id: 'webhooks.signed', title: 'Every delivery carries X-Service-Signature verifying with the webhook secret', suite,
    clauses: ['5.R4', '2.2.R1'], level: 'assumption', needs: ['write'],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await waitForDrain(ctx, () => receiver.received.length > 0))) await notDelivered(ctx, [last], { kind: 'NothingDelivered', received: 'no delivery after a create', documented: 'deliveries to verify', clause: '6.R2' });
      deliveryBreach(ctx, receiver.received.filter((d) => !d.verdict.ok));
      // One v1= value is the webhook secret's own, as the assumption computes it (a second may be a previous secret's, §5.4).
      for (const d of receiver.received) {
        const { given, documented } = documentedSignatures(d, [ctx.target.webhookSecret!]);
        if (!documented.some((v) => given.includes(v))) ctx.fail('SignatureNotAsDocumented', `delivery of ${d.sequence ?? d.type}: ${d.signature ?? 'no signature header'}`, `a v1= value of ${SIGNATURE_SCHEME}`, '5.R4');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.ordered-under-failures', title: 'No event overtakes an unacknowledged one; failures are redelivered in order', suite,
    clauses: ['6.R2', '6.R2a', '3.1.R3', '2.1.R5', '2.6.R3'], level: 'normative', needs: ['read', control('rates.set')],
    async run(ctx) {
      // What was queued before goes first, so every refusal the receiver makes is of the check's own events.
      const { receiver, property, from, heardBefore } = await ownDeliveries(ctx, 30, 'what was queued before must be delivered first, so that the receiver refuses only the check\'s own events');
      receiver.setMode('fail');
      // The first refusal is a 300: a 3xx is no 2xx either (§6.2), the edge of the range that counts as accepted.
      let redirected = false;
      receiver.setPolicy((d) => (redirected || d.sequence === null ? undefined : ((redirected = true), 'multiple-choices')));
      for (let i = 0; i < 4; i++) await changeRates(ctx, property, addDays(from, i * 3), addDays(from, i * 3), 1000 + i);
      // The first attempt is waited for as a drain is (issue 38: not 30 s and then "nothing delivered"), before anything is
      // judged on the refusals: what never came is a breach only on a clock the control plane steps.
      if (!(await waitForDrain(ctx, () => receiver.received.length > heardBefore))) {
        const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
        await notDelivered(ctx, [last], { kind: 'NothingDelivered', received: `the receiver got ${got(receiver.received)}`, documented: 'the changes posted to the webhook', clause: '6.R5' });
      }
      // Fifteen seconds of refusals (the first attempt and whatever retries fall in them), then acceptance.
      await letTimePass(ctx, 15);
      const failing = (await ctx.api.get('/me')).body.data.webhook.consecutive_failures;
      const refusedRows = (await allEvents(ctx, { include_superseded: true })).filter((r) => receiver.received.some((d) => d.sequence === r.sequence) && !receiver.received.some((d) => d.sequence === r.sequence && d.answered === 200));
      for (const r of refusedRows) if (r.delivered_at !== null) ctx.fail('DeliveredAtSet', `event ${r.sequence}, refused by the receiver, shows delivered_at ${r.delivered_at}`, 'delivered_at null if the event was never accepted', '2.6.R3');
      const refused = receiver.received.filter((d) => d.answered !== 200).length;
      if (!(failing >= 1 && (ctx.target.kind === 'live' || failing === refused))) ctx.fail('FailuresNotCounted', `consecutive_failures ${failing} after ${refused} refused deliveries`, 'consecutive_failures counts the failed deliveries since the last success', '2.1.R5');
      receiver.setPolicy(null);
      receiver.setMode('ok');
      const through = await drained(ctx, receiver);
      const after = (await ctx.api.get('/me')).body.data.webhook.consecutive_failures;
      if (through && after !== 0) ctx.fail('FailuresNotReset', `consecutive_failures ${after} after deliveries succeeded`, '0 once a delivery succeeds', '2.1.R5');
      const seen = receiver.received.map((d) => d.sequence!);
      for (let i = 1; i < seen.length; i++) {
        if (seen[i]! < seen[i - 1]!) ctx.fail('DeliveryOvertook', `sequence ${seen[i - 1]} delivered before ${seen[i]}`, 'one at a time in sequence order, each waiting for a 2xx', '6.R2a');
      }
      const accepted = receiver.received.filter((d) => d.answered === 200).map((d) => d.sequence);
      // §2.6: delivered_at is null only while never accepted; an accepted row carries when (not before it happened).
      const acceptedRows = (await allEvents(ctx, { include_superseded: true })).filter((r) => accepted.includes(r.sequence) && r.status === 'delivered');
      for (const r of acceptedRows) {
        if (r.delivered_at === null || !(Date.parse(r.delivered_at) >= Date.parse(r.event.occurred_at))) ctx.fail('DeliveredAtMissing', `event ${r.sequence}, accepted by the receiver (status delivered), shows delivered_at ${JSON.stringify(r.delivered_at)} (occurred ${r.event.occurred_at})`, 'delivered_at: when the event was accepted, null only if never accepted', '2.6.R3');
      }
      const firstFailed = receiver.received.find((d) => d.answered !== 200)?.sequence;
      if (firstFailed === undefined || firstFailed === null) return ctx.fail('NothingRefused', `the receiver, refusing every event, got ${got(receiver.received)}`, 'the changes posted to the webhook, and refused', '6.R5');
      if (!accepted.includes(firstFailed)) {
        // The retry schedule is not shown (§6): on real time, a later retry is no breach.
        if (!through && !ctx.control!.offers('clock.advance')) throw new NotApplicable(`sequence ${firstFailed} not yet redelivered after ${describeDrain(ctx)} once the receiver recovered; the retry schedule is not shown and the control plane cannot move the clock`);
        ctx.fail('NotRedelivered', `sequence ${firstFailed} never accepted after ${describeDrain(ctx)} once the receiver recovered`, 'a failed delivery retried until accepted', '6.R2');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.no-failure-without-attempt', title: 'Every delivery failure the platform records was a post the receiver refused: none in GET /me or a replay row without a request, also when the control plane steps the clock past a retry', suite,
    clauses: ['2.1.R5', '6.R2'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      // A first create delivered to this receiver: what was queued before goes with it, and the platform is seen to
      // reach the receiver, so a failure recorded afterwards without a request is the platform's, not the network's.
      await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      await ensureDelivered(ctx, receiver, 'a first create must be delivered to the receiver, so that the platform is seen to reach it before failures are judged');
      const heardBefore = receiver.received.length;
      const before = (await ctx.api.get('/me')).body.data.webhook;
      // The check's first post is refused (500), so a retry waits in back-off; every other is accepted.
      let refusedOne = false;
      receiver.setPolicy((d) => (refusedOne || d.sequence === null || d.sequence <= before.last_sequence ? undefined : ((refusedOne = true), 'fail')));
      const created = await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      /**
       * §2.1 counts failed deliveries, §6.2 waits for a 2xx: a failure is a post the endpoint did not answer 2xx. Until
       * the receiver accepts one, the platform's count can grow by no more than the posts the receiver refused.
       */
      const judge = async (when: string) => {
        const heard = receiver.received.slice(heardBefore);
        const refused = heard.filter((d) => d.answered === null || d.answered < 200 || d.answered >= 300).length;
        const webhook = (await ctx.api.get('/me')).body.data.webhook;
        const counted = webhook.consecutive_failures - before.consecutive_failures;
        if (!heard.some((d) => d.answered !== null && d.answered >= 200 && d.answered < 300) && counted > refused) {
          ctx.fail('FailureWithoutAttempt', `GET /me webhook.consecutive_failures ${before.consecutive_failures} → ${webhook.consecutive_failures} (last_failure_at ${webhook.last_failure_at}) ${when}, while the receiver refused ${refused} post(s) and accepted none (it got ${got(heard)})`, 'consecutive_failures counts failed deliveries: posts the endpoint did not answer 2xx, one per post', '2.1.R5');
        }
        const rows = await allEvents(ctx, { include_superseded: true }, before.last_sequence);
        const unsent = rows.find((r) => r.sequence <= last && r.status === 'failed' && !heard.some((d) => d.sequence === r.sequence));
        if (unsent) ctx.fail('FailureWithoutAttempt', `event ${unsent.sequence} shows status failed ${when}, and the receiver got no request for it (it got ${got(heard)})`, 'a delivery fails when the endpoint does not answer its post with a 2xx; an event never posted is still waiting (pending)', '6.R2');
      };
      // The refused post is waited for as a drain is; what never came is a breach only on a clock the control plane steps.
      if (!(await waitForDrain(ctx, () => refusedOne))) {
        receiver.setPolicy(null);
        await notDelivered(ctx, [before.last_sequence + 1], { kind: 'NothingDelivered', received: `the receiver got ${got(receiver.received.slice(heardBefore))}`, documented: "the create's events posted to the webhook", clause: '6.R5' });
      }
      // A staff action moves the clock in one step far past the retry's back-off: the retry is posted, or still waits.
      const stepped = ctx.control?.offers('clock.advance') ?? false;
      if (stepped) await ctx.control!.advanceClock(STEP_SECONDS);
      await judge(stepped ? `after the control plane moved the clock ${STEP_SECONDS} s in one step` : 'after the refusal');
      const through = await drained(ctx, receiver, last);
      receiver.setPolicy(null);
      await judge(`after ${through ? 'the events were delivered' : describeDrain(ctx)}`);
      if (!through) await notDelivered(ctx, [last], { kind: 'NotDelivered', received: `the receiver got ${got(receiver.received.slice(heardBefore))}`, documented: "the create's events delivered once the receiver accepts them", clause: '6.R2' });
    },
  }),
  defineCheck({
    id: 'webhooks.unanswered-is-a-failure', title: 'A post the endpoint never answers is a failed attempt: retried until a 2xx, and nothing after it is sent before then', suite,
    clauses: ['6.R2', '6.R2a'], level: 'normative', needs: ['read', control('rates.set')],
    async run(ctx) {
      const { receiver, property, from, heardBefore } = await ownDeliveries(ctx, 34, "what was queued before must be delivered first, so that the post left unanswered is the check's own");
      // The check's first post is left hanging (the connection stays open, no status ever comes); every other is answered.
      let hung: number | null = null;
      receiver.setPolicy((d) => {
        if (hung !== null || d.sequence === null) return undefined;
        hung = d.sequence;
        return 'timeout';
      });
      const first = await ratesEvent(ctx, { property, from, to: from }, 1500);
      const second = await ratesEvent(ctx, { property, from: addDays(from, 2), to: addDays(from, 2) }, 1501);
      // §6 does not time the platform's time-out or retries. The drain moves platform time; a time-out is real time,
      // so up to two minutes of it are given for the platform to give up on the hanging post and post it again.
      const acceptedHung = () => receiver.received.some((d) => d.sequence === hung && d.answered === 200);
      // Decided as soon as a later event is posted before the hanging one got its 2xx.
      const overtaken = () => receiver.received.slice(heardBefore).some((d) => (d.sequence ?? 0) > hung! && !acceptedHung());
      let through = await drained(ctx, receiver, second.sequence);
      // Looked at every second: decided as soon as the platform gives up on the post (its time-out is not shown).
      for (let waited = 0; waited < UNANSWERED_REAL_SECONDS && hung !== null && !acceptedHung() && !overtaken(); waited += 1) {
        await new Promise((r) => setTimeout(r, 1000));
        through = await drained(ctx, receiver, second.sequence);
      }
      receiver.setPolicy(null);
      const own = receiver.received.slice(heardBefore);
      if (hung === null) return notDelivered(ctx, [first.sequence, second.sequence], { kind: 'NothingDelivered', received: `nothing posted to the webhook after ${describeDrain(ctx)}`, documented: 'the changes posted to the webhook', clause: '6.R2' });
      // §6 R2: until the hanging event gets its 2xx, nothing after it may be posted, and it is posted again.
      const accepted = own.findIndex((d) => d.sequence === hung && d.answered === 200);
      const early = own.slice(0, accepted === -1 ? own.length : accepted).find((d) => (d.sequence ?? 0) > hung!);
      if (early) ctx.fail('DeliveryOvertook', `sequence ${early.sequence} posted while sequence ${hung} had no answer (its post never answered, then no 2xx)`, 'one at a time in sequence order, each waiting for a 2xx: a post left unanswered is no 2xx', '6.R2a');
      if (accepted === -1) {
        const posts = own.filter((d) => d.sequence === hung).length;
        if (posts <= 1) throw new NotApplicable(`the platform had not given up on the unanswered post of sequence ${hung} after ${UNANSWERED_REAL_SECONDS} s of real time (its delivery time-out is not shown, §6)`);
        // Posted again but not yet accepted: where only real time passes, a later retry is no breach (the schedule is not shown).
        if (!through && !ctx.control?.offers('clock.advance')) throw new NotApplicable(`sequence ${hung} posted ${posts} times, not yet accepted after ${describeDrain(ctx)}; the retry schedule is not shown and the control plane cannot move the clock`);
        ctx.fail('NotRedelivered', `sequence ${hung}, whose first post was never answered, was posted ${posts} times and never accepted after ${describeDrain(ctx)}`, 'a post without a 2xx is a failed attempt, retried until accepted', '6.R2');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.rotation-dual-signature', title: 'For 24 hours after a secret rotation each delivery carries two v1 values and the previous secret verifies (not a minute past); a second rotation drops the oldest at once', suite,
    clauses: ['5.R4', '5.R4a', '5.R4b', '8.L17', '2.2.R1'], level: 'assumption', needs: ['write', control('webhook-secret.rotate')],
    async run(ctx) {
      const first = ctx.target.webhookSecret!;
      /** The first delivery after a create, to a receiver that verifies with `secrets` only. */
      const delivered = async (secrets: string[]) => {
        const receiver = await receiverFor(ctx, secrets);
        await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
        const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
        if (!(await waitForDrain(ctx, () => receiver.received.length > 0))) await notDelivered(ctx, [last], { kind: 'NothingDelivered', received: 'no delivery after a create', documented: 'deliveries to verify', clause: '6.R2' });
        return receiver.received[0]!;
      };
      const values = (d: ReceivedDelivery) => (d.signature ?? '').split(',').filter((p) => p.trim().startsWith('v1=')).length;
      const rotate = async () => {
        const secret = await ctx.control!.rotateWebhookSecret();
        ctx.target.credentialRotated('webhookSecret', secret);
        // §2.2: the webhook secret is a string with prefix whsec_ (the shape is what a partner's secret store expects).
        if (typeof secret !== 'string' || !secret.startsWith('whsec_')) ctx.fail('SecretWithoutPrefix', `a rotated webhook secret of ${typeof secret === 'string' ? `${secret.length} characters beginning ${JSON.stringify(secret.slice(0, 6))}` : typeof secret}`, 'a string with prefix whsec_', '2.2.R1');
        return secret;
      };
      const clock = ctx.control!.offers('clock.advance');
      // The platform's clock read (an advance of nothing reports it) just before and after the rotation bound its instant.
      if (clock) await advance(ctx, 0);
      const before = ctx.now();
      const second = await rotate();
      const rotatedBy = ctx.now();
      const old = await delivered([first]);
      if (!old.verdict.ok) ctx.fail('OldSecretRejected', 'the previous secret does not verify right after the rotation', 'previous secret valid 24 hours', '5.R4');
      if (values(old) !== 2) ctx.fail('NotTwoSignatures', `the signature header right after the rotation carries ${values(old)} v1 value(s): ${old.signature}`, 'two v1= values during the 24 hours, one per secret', '5.R4a');
      // One per secret: each is that secret's value as the assumption computes it.
      const pair = documentedSignatures(old, [second, first]);
      if (pair.documented.some((v) => !pair.given.includes(v))) ctx.fail('SignatureNotAsDocumented', `the signature header right after the rotation: ${old.signature}`, `one v1= value per secret, the new and the previous: ${SIGNATURE_SCHEME}`, '5.R4a');
      if (!(await delivered([second])).verdict.ok) ctx.fail('NewSecretRejected', 'the new secret does not verify', 'the current secret verifies', '5.R4a');
      if (clock) {
        // §8: 24 hours, tried a few minutes inside and outside (a delivery lands seconds after the clock moves).
        await advance(ctx, Math.max(0, (before + DAY_MS - MARGIN_MS - ctx.now()) / 1000));
        const inside = await delivered([first]);
        if (!inside.verdict.ok || values(inside) !== 2) ctx.fail('PreviousSecretDroppedEarly', `${Math.round((ctx.now() - before) / 60_000)} minutes after the rotation the previous secret ${inside.verdict.ok ? 'verifies' : 'does not verify'} and the header carries ${values(inside)} v1 value(s)`, 'the previous secret keeps verifying for 24 hours, with two v1= values', '8.L17');
        await advance(ctx, Math.max(0, (rotatedBy + DAY_MS + MARGIN_MS - ctx.now()) / 1000));
        const outside = await delivered([first]);
        if (outside.verdict.ok || values(outside) !== 1) ctx.fail('PreviousSecretOutlived', `${Math.round((ctx.now() - rotatedBy) / 60_000)} minutes after the rotation the previous secret ${outside.verdict.ok ? 'still verifies' : 'no longer verifies'} and the header carries ${values(outside)} v1 value(s)`, 'the previous secret verifies for 24 hours, not longer; then one v1= value', '8.L17');
      }
      // Two rotations in a row: the secret before them is pushed out of the previous slot at once, not after 24 hours.
      const third = await rotate();
      if (!(await delivered([second])).verdict.ok) ctx.fail('OldSecretRejected', 'the previous secret does not verify right after a rotation', 'previous secret valid 24 hours', '5.R4');
      const fourth = await rotate();
      const pushed = await delivered([second]);
      if (pushed.verdict.ok || values(pushed) !== 2) ctx.fail('OldestSecretStillValid', `after two rotations in a row the secret before them ${pushed.verdict.ok ? 'still verifies' : 'no longer verifies'}, with ${values(pushed)} v1 value(s)`, 'pushed out of the previous slot at once; the two v1 values are the two newest secrets', '5.R4b');
      if (!(await delivered([third, fourth])).verdict.ok) ctx.fail('NewSecretRejected', 'neither of the two newest secrets verifies after two rotations', 'the current secret verifies', '5.R4a');
    },
  }),
  defineCheck({
    id: 'webhooks.pause-and-resume', title: 'A 410 pauses delivery (gone) while the API keeps working; a resume drains in order', suite,
    clauses: ['3.1.T3', '3.1.R2', '3.1.R3', '2.1.R6', '2.1.R4'], level: 'normative', needs: ['write', control('delivery.resume')],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      receiver.setMode('gone');
      ctx.cleanup.unshift(async () => void (await ctx.control!.resume()));
      await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await waitForDrain(ctx, () => receiver.received.some((d) => d.answered === 410)))) await notDelivered(ctx, [last], { kind: 'NothingDelivered', received: `the receiver got ${got(receiver.received)}`, documented: 'the create posted to the webhook', clause: '6.R5' });
      const me = (await ctx.api.get('/me')).body.data;
      if (me.status !== 'paused' || me.webhook.paused_reason !== 'gone') ctx.fail('NotPausedGone', `status ${me.status}, paused_reason ${me.webhook.paused_reason}`, 'paused with paused_reason gone after a 410', '3.1.T3');
      expectStatus(ctx, await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1))), 201, null, '3.1.R2', 'a create while paused');
      receiver.setMode('ok');
      await ctx.control!.resume();
      const through = await drained(ctx, receiver);
      const accepted = receiver.received.filter((d) => d.answered === 200).map((d) => d.sequence!);
      const latest = (await ctx.api.get('/me')).body.data.webhook;
      if (!through) await notDelivered(ctx, [latest.last_sequence], { kind: 'NotDrainedInOrder', received: `accepted ${accepted.join(',')}, undelivered ${latest.undelivered_events}`, documented: 'every event delivered in order after resume', clause: '3.1.R3' });
      if (latest.undelivered_events !== 0 || accepted.join() !== [...accepted].sort((a, b) => a - b).join()) {
        ctx.fail('NotDrainedInOrder', `accepted ${accepted.join(',')}, undelivered ${latest.undelivered_events}`, 'every event delivered in order after resume', '3.1.R3');
      }
    },
  }),
  defineCheck({
    id: 'webhooks.gone-ended-by-new-url', title: 'A pause for a 410 (gone) ends when staff set a new webhook URL, not the same one again: active again, the waiting events delivered there', suite,
    // spec x-assumption of the ping: "pauses with reason manual or gone are ended by staff (resume or a new webhook URL), not by probes".
    clauses: ['3.1.T3', '3.1.R3'], level: 'assumption', needs: ['write', control('webhook.set-url')],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      receiver.setMode('gone');
      await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      const last = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await waitForDrain(ctx, () => receiver.received.some((d) => d.answered === 410)))) await notDelivered(ctx, [last], { kind: 'NothingDelivered', received: `the receiver got ${got(receiver.received)}`, documented: 'the create posted to the webhook', clause: '6.R5' });
      const gone = (await ctx.api.get('/me')).body.data;
      if (gone.status !== 'paused' || gone.webhook.paused_reason !== 'gone') ctx.fail('NotPausedGone', `status ${gone.status}, paused_reason ${gone.webhook.paused_reason}`, 'paused with paused_reason gone after a 410', '3.1.T3');
      receiver.setMode('ok');
      const url = gone.webhook.url as string;
      // Neither the same URL set again nor the subscription set as it was is a new webhook URL (the assumption's way out
      // of a gone pause, beside a resume): the pause holds. The endpoint answers 2xx again by now, which by the same
      // assumption changes nothing (no probe ends a gone pause), and a resume wrongly made shows before any 410 re-pauses it.
      if (ctx.control!.offers('webhook.set-event-types')) await ctx.control!.setEventTypes(gone.webhook.event_types);
      await ctx.control!.setWebhookUrl(url);
      const held = (await ctx.api.get('/me')).body.data;
      if (held.status !== 'paused' || held.webhook.paused_reason !== 'gone') ctx.fail('GoneEndedWithoutNewUrl', `status ${held.status}, paused_reason ${held.webhook.paused_reason} after staff set the same webhook URL ${url} again and the subscription as it was`, 'still paused (gone): only a resume or a new webhook URL ends a gone pause (spec x-assumption of the ping)', '3.1.T3');
      // The same receiver under another URL: a new webhook URL, as a partner whose endpoint moved would give staff.
      await ctx.control!.setWebhookUrl(`${url}${url.includes('?') ? '&' : '?'}moved=1`);
      // Judged before the drain (drained() resumes a paused integration itself).
      const moved = (await ctx.api.get('/me')).body.data;
      if (moved.status !== 'active') ctx.fail('GoneNotEndedByNewUrl', `status ${moved.status}, paused_reason ${moved.webhook.paused_reason} after staff set a new webhook URL`, 'active: a gone pause is ended by staff giving a new webhook URL (spec x-assumption of the ping)', '3.1.T3');
      const through = await drained(ctx, receiver);
      const after = (await ctx.api.get('/me')).body.data.webhook;
      if (!through || after.undelivered_events !== 0) await notDelivered(ctx, [after.last_sequence], { kind: 'NotDrainedInOrder', received: `the receiver got ${got(receiver.received)}, undelivered ${after.undelivered_events}`, documented: 'every waiting event delivered once the pause ended', clause: '3.1.R3' });
    },
  }),
  defineCheck({
    id: 'webhooks.ping-consumes-no-sequence', title: 'A ping reports last_sequence and consumes no sequence number', suite,
    clauses: ['6.R6'], level: 'normative', needs: ['write', control('delivery.ping')],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      await ensureDelivered(ctx, receiver, 'the create must be delivered first, so that the ping is not queued behind its events');
      const before = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      await ctx.control!.ping();
      // delivery.ping answers once the ping was sent: the receiver has it, or is about to (issue 38: waited for, not 30 s).
      const ping = await awaitObserved('the ping the control plane sent (delivery.ping answers once it was sent) reaching the receiver', async () => receiver.received.find((d) => d.type === 'ping'));
      const after = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (after !== before || JSON.parse(ping.body).last_sequence !== before) ctx.fail('PingConsumedSequence', `last_sequence ${before} → ${after}; ping said ${JSON.parse(ping.body).last_sequence}`, 'the ping reports last_sequence without consuming one', '6.R6');
    },
  }),
  defineCheck({
    id: 'webhooks.manual-pause', title: 'A manual pause makes the integration paused (manual) while the API keeps working and events wait; resume makes it active and delivers them', suite,
    clauses: ['3.1.T2', '3.1.R1', '3.1.R2', '2.1.R6'], level: 'normative', needs: ['write', control('delivery.pause'), control('delivery.resume')],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      // What was queued before goes first: a delivery in flight when the pause lands is not "delivered while paused".
      await ensureDelivered(ctx, receiver, 'what was queued before must be delivered before the pause');
      const heardBefore = receiver.received.length;
      await ctx.control!.pause();
      ctx.cleanup.unshift(async () => void (await ctx.control!.resume()));
      const paused = (await ctx.api.get('/me')).body.data;
      if (paused.status !== 'paused' || paused.webhook.paused_reason !== 'manual') ctx.fail('NotPausedManual', `status ${paused.status}, paused_reason ${paused.webhook.paused_reason}`, 'paused with paused_reason manual after a staff pause', '3.1.T2');
      // §2.1 paused_at: "ISO 8601; set when delivery is paused".
      if (typeof paused.webhook.paused_at !== 'string' || Number.isNaN(Date.parse(paused.webhook.paused_at))) ctx.fail('PausedAtNotSet', `webhook.paused_at ${JSON.stringify(paused.webhook.paused_at)} while paused`, 'an ISO 8601 timestamp: set when delivery is paused', '2.1.R6');
      // A second pause finds delivery paused already: paused_at stays when it was paused.
      await ctx.control!.pause();
      const again = (await ctx.api.get('/me')).body.data.webhook;
      if (again.paused_at !== paused.webhook.paused_at) ctx.fail('PausedAtMoved', `webhook.paused_at ${JSON.stringify(again.paused_at)} after a second pause, ${JSON.stringify(paused.webhook.paused_at)} after the first`, 'paused_at: when delivery was paused, unchanged by a pause of a paused integration', '2.1.R6');
      const created = await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      expectStatus(ctx, created, 201, null, '3.1.R2', 'a create while delivery is paused');
      // Ten seconds of platform time, stepped: every attempt due in them is made, so none means none (issue 38).
      const whilePaused = await watchForAbsence(ctx, () => receiver.received.length > heardBefore, 10, 'nothing is delivered while paused');
      if (whilePaused.happened) ctx.fail('DeliveredWhilePaused', `the receiver got ${got(receiver.received.slice(heardBefore))} while paused`, 'nothing delivered while paused', '3.1.T2');
      await ctx.control!.resume();
      const active = (await ctx.api.get('/me')).body.data;
      if (active.status !== 'active') ctx.fail('NotActiveAfterResume', `status ${active.status}`, 'active after resume', '3.1.R1');
      const waiting = (await ctx.api.get('/me')).body.data.webhook.last_sequence as number;
      if (!(await drained(ctx, receiver, waiting))) await notDelivered(ctx, [waiting], { kind: 'NotDeliveredAfterResume', received: `the receiver got ${got(receiver.received)}`, documented: 'while active, webhooks flow: the waiting events delivered', clause: '3.1.R1' });
      // Everything else judged: a quiet span of real time did not show that nothing is delivered while paused.
      if (whilePaused.unproven) throw whilePaused.unproven;
    },
  }),
];
