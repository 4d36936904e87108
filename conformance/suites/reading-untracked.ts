/**
 * Reading is not acknowledging (§4.6: "There is no acknowledgement endpoint
 * and no single-event resend … The service does not track what the partner
 * processed"; §4.1: GET /me "changes nothing"). The runner's receiver
 * refuses a create's deliveries; the check reads those events through
 * replay and /me, knocks on the endpoints a platform might have added to
 * acknowledge or resend, and then lets the receiver accept: every event it
 * read must still be pushed.
 */
import { defineCheck, expectStatus, NotApplicable } from '../check.ts';
import { allEvents, bookingBody, createBooking, describe, expectCreated, horizonStay } from './support.ts';
import { deliveryBreach, describeDrain, drained, notDelivered, partnerReceiver, UNSETTLED } from './receiver.ts';
import { createdPair } from './webhooks.ts';

const suite = 'sequencing';

/** Routes a platform could grow to acknowledge or resend one event; §4.6 says none exists. */
const NO_SUCH_ROUTES = (sequence: number) => [
  ['POST', `/events/${sequence}/ack`], ['POST', `/events/ack`], ['POST', `/events/${sequence}/acknowledge`],
  ['POST', `/events/${sequence}/resend`], ['POST', `/events/${sequence}/redeliver`], ['PUT', `/events/${sequence}`],
] as const;

export const readingUntrackedChecks = [
  defineCheck({
    id: 'sequencing.reading-changes-nothing', title: 'Reading events and /me acknowledges nothing: undelivered events stay undelivered and are still pushed; no ack or resend route exists', suite,
    clauses: ['4.6.R11', '4.6.R9', '4.1.R2'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const hook = await partnerReceiver(ctx);
      const { receiver, me } = hook;
      const before = me.webhook.last_sequence as number;
      // 5xx to everything from here on: the create's events stay undelivered while they are read.
      receiver.setPolicy((d) => (d.sequence !== null && d.sequence > before ? 'fail' : undefined));
      const body = bookingBody(ctx, horizonStay(ctx, 1));
      const created = await createBooking(ctx, body);
      expectCreated(ctx, created, 'the create on a night the snapshot showed free');
      const own = createdPair(await allEvents(ctx, { include_superseded: true }, before), body, created.body.data.id);
      if (own.length < 2) ctx.fail('CreateEventsMissing', `${own.map((r) => r.event.type).join(', ') || 'no event'} after sequence ${before}`, 'a create emits availability.changed and booking.changed', '6.R5');
      const sequences = own.map((r) => r.sequence as number);
      // The platform tries (and is refused) first, so the events are undelivered for the plain reason.
      // Not tried within the wait (a backlog ahead of them), they are undelivered all the same: pending rather than failed.
      const tried = await hook.waitFor(() => receiver.received.some((d) => d.sequence === sequences[0]) || receiver.problems.length > 0, 30);
      deliveryBreach(ctx, receiver.received);

      // Read them every way a partner can: default and full replay, from before and at each event, and /me.
      for (let i = 0; i < 3; i++) {
        await allEvents(ctx, {}, before);
        await allEvents(ctx, { include_superseded: true }, before);
        for (const s of sequences) expectStatus(ctx, await ctx.api.get('/events', { query: { after_sequence: s - 1, limit: 1 } }), 200, null, '4.6.R1', `GET /events at sequence ${s}`);
        expectStatus(ctx, await ctx.api.get('/me'), 200, null, '4.1.R3', 'GET /me');
      }
      for (const [method, path] of NO_SUCH_ROUTES(sequences[0]!)) {
        const res = await ctx.api.request(method, path, { body: {} });
        if (res.status >= 200 && res.status < 300) ctx.fail('AcknowledgementRoute', `${describe(res)} for ${method} ${path}`, 'there is no acknowledgement endpoint and no single-event resend', '4.6.R9');
      }

      const rows = await allEvents(ctx, { include_superseded: true }, before);
      const accepted = (s: number) => receiver.received.some((d) => d.sequence === s && d.answered === 200);
      for (const s of sequences) {
        const row = rows.find((r) => r.sequence === s);
        if (!row || accepted(s)) continue;
        if (!UNSETTLED.has(row.status) || row.delivered_at !== null) {
          ctx.fail('ReadCountsAsDelivered', `event ${s} is ${row.status} (delivered_at ${row.delivered_at}) after being read, while the receiver ${tried ? 'answered it only with 5xx' : 'had not been sent it yet'}`, 'the service does not track what the partner processed: reading an event leaves it undelivered', '4.6.R11');
        }
      }
      const after = (await ctx.api.get('/me')).body?.data?.webhook;
      const waiting = sequences.filter((s) => !accepted(s)).length;
      if (typeof after?.undelivered_events === 'number' && after.undelivered_events < waiting) {
        ctx.fail('ReadCountsAsDelivered', `webhook.undelivered_events ${after.undelivered_events} after reading, with ${waiting} of this check's events refused by the receiver`, 'GET /me and replay change nothing: events waiting or being retried are still counted', '4.1.R2');
      }

      // The receiver now accepts: what was read is still pushed, in order.
      receiver.setPolicy(null);
      if (await drained(ctx, receiver, Math.max(...sequences))) return;
      const missing = sequences.filter((s) => !accepted(s));
      if (missing.length === 0) return;
      // §6: the retry schedule is not shown; only a platform clock that moves makes "never pushed" a finding.
      if (!ctx.control?.offers('clock.advance')) throw new NotApplicable(`events ${missing.join(', ')} were not retried within ${describeDrain(ctx)} of the receiver accepting again; the retry schedule is not shown (§6), so without clock.advance that is no finding`);
      await notDelivered(ctx, missing, { kind: 'ReadNotPushed', received: `events ${missing.join(', ')} not delivered once the receiver answered 200, after they were read through GET /events`, documented: 'reading changes nothing: an undelivered event is pushed whether or not it was replayed', clause: '4.6.R11' });
    },
  }),
];
