/**
 * Scenario 2 · webhook outage of two hours, then catch-up by GET /events.
 *
 * The partner process dies right after sending a create (its reservation,
 * key and body were saved before sending). For two hours its webhook is
 * unreachable: every delivery fails and is retried. Meanwhile its front desk
 * keeps selling and (simulator) the host keeps changing things. On restart
 * the partner re-drives the create with the same key (the original answer is
 * replayed) and replays GET /events from its stored cursor (§6.8 ordinary
 * outage), walking next_after_sequence. It equals the platform BEFORE the
 * platform's next retry arrives; the retries that come later are dropped as
 * not newer (§6.4).
 *
 * Live target: yes. The outage is the partner's own; the events during it come
 * from its front desk (bookings on --property). Simulator extras: host changes
 * during the outage, and a tight rate limit during the catch-up (429 with
 * Retry-After, §7).
 */
import { defineScenario } from './kit/scenario.ts';
import { PartnerCrashed } from './kit/network.ts';

const HOUR = 3_600_000;

export const scenario = defineScenario({
  name: 'webhook-outage',
  number: 2,
  title: 'Webhook outage of two hours, then catch-up by GET /events from the cursor',
  story: 'The partner dies mid-create and stays down two hours while bookings and changes continue; on restart it re-drives the create with the same Idempotency-Key and replays from its stored cursor, and equals the platform before any retry arrives.',
  live: { capable: true, note: 'The outage is the partner\'s own and the events come from its front desk (use --property); host changes and the rate-limit squeeze run only on the simulator.' },
  async run(s) {
    await s.startPartner();
    const property = s.liveProperty('SEA-VIEW');

    s.step('a guest books; the partner process dies right after the create left, before it read the answer');
    s.network.crashAfterSending({ method: 'POST', path: /\/bookings$/ });
    const g1 = s.booking('G-1', { property, checkIn: await s.findStay(property, 30, 50, 2, (n) => n >= 1) });
    await s.partner.createBooking(g1).then(
      () => s.check(false, 'the partner should have died mid-create'),
      (e) => { if (!(e instanceof PartnerCrashed)) throw e; },
    );
    await s.crashPartner('its reservation, Idempotency-Key and body were saved before the request left');

    s.step('while the partner is down, its front desk keeps selling');
    await s.frontDesk.book(s.booking('F-1', { property, checkIn: await s.findStay(property, 55, 75, 1, (n) => n >= 1), nights: 1 }));
    await s.frontDesk.book(s.booking('F-2', { property, checkIn: await s.findStay(property, 80, 100, 2, (n) => n >= 1), nights: 2 }));
    if (!s.live) {
      s.step('and the host keeps changing things');
      const lake = s.property('LAKE-HOUSE');
      await s.staff.setRates(property.doorloom_id, property.external_id, s.day(3), s.day(9), { base_rate: 6600 });
      await s.staff.setRestrictions(lake.doorloom_id, 'LAKE-HOUSE', s.day(12), s.day(14), { stop_sell: true });
    }
    await s.elapse(2 * HOUR, 'the partner is down; every delivery attempt fails and is retried (10 s, 30 s, 1 min, 5 min, 15 min, 30 min, hourly)');
    const issued = await s.latestSequence();
    if (!s.live) {
      const attempts = await s.staff.deliveries(s.world.integrationId);
      s.check(attempts.length > 0 && attempts.every((a) => a.outcome.status === undefined), 'every delivery attempt during the outage failed (connection refused)', `${attempts.length} attempts`);
      await s.staff.setRateLimit(s.world.integrationId, 3, 60);
    }
    const deliveredBefore = s.deliveries.length;

    s.step('the partner comes back: it re-drives the unanswered create, then replays from its stored cursor');
    await s.startPartner();
    if (!s.live) {
      s.check(s.calls.some((c) => c.status === 429), '§7: the partner was rate limited during the catch-up and waited the Retry-After');
      s.check(s.deliveries.length === deliveredBefore, 'no webhook delivery arrived during the catch-up (the next retry is due later)');
      await s.staff.setRateLimit(s.world.integrationId, 6000, 60);
    }
    await s.converged('right after the catch-up, before the platform retries anything');
    const again = s.partner.state.reservations[g1.external_booking_id]!;
    s.check(again.status === 'placed' && again.answer?.status === 201, '§4.5 rule 1: the re-driven create (same key, identical body) got the original answer', `booking ${again.booking_id}, answer ${again.answer?.status}`);
    s.check(s.partner.lastCatchUp.some((x) => x.do === 'replay'), '§6.8 ordinary outage: the partner replayed GET /events from its cursor', s.partner.lastCatchUp.map((x) => x.do).join(', '));
    s.check((s.partner.state.cursor ?? 0) >= issued, 'the replay reached every sequence issued during the outage', `cursor ${s.partner.state.cursor}, issued up to ${issued}`);

    await s.elapse(HOUR, 'the platform\'s retries drain the backlog to the partner');
    if (!s.live) {
      const late = s.deliveries.slice(deliveredBefore);
      s.check(late.length > 0 && late.every((d) => d.status === 200 && d.outcome.startsWith('dropped')), '§6.4: every retried delivery was acknowledged and dropped as not newer', `${late.length} redeliveries`);
    }
    await s.converged('after the backlog drained');
  },
});
