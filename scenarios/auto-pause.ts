/**
 * Scenario 4 · sustained failure: auto-pause, probes, resume, in-order drain.
 *
 * The partner's load balancer answers 500 to everything. Deliveries are
 * retried (10 s, 30 s, 1 min, 5 min, 15 min, 30 min, then hourly). After five
 * hours there have been more than five failures but not six hours of them:
 * still active. After seven hours: paused with reason `auto` (§3.1: five
 * consecutive failures AND six hours without a success). While paused the
 * platform probes every five minutes; events keep accumulating. When the
 * endpoint recovers, the next probe's 2xx resumes delivery and the backlog
 * drains one event at a time in sequence order (§6.2).
 *
 * Live target: no. Watching seven hours of retries and the pause needs the
 * virtual clock and the staff plane.
 */
import { defineScenario } from './kit/scenario.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const scenario = defineScenario({
  name: 'auto-pause',
  number: 4,
  title: 'Sustained failure: auto-pause after 5 failures and 6 hours, probe, resume, in-order drain',
  story: 'The partner\'s endpoint answers 500 for seven hours: still active at five hours, paused (auto) after six; probes every five minutes; on recovery the first probe resumes delivery and the backlog drains in sequence order.',
  live: { capable: false, note: 'Seven hours of retries, the pause and the probes need the virtual clock and the staff plane.' },
  async run(s) {
    await s.startPartner();
    const sea = s.property('SEA-VIEW');
    const lake = s.property('LAKE-HOUSE');

    s.outage(500, 'its load balancer has no healthy app server behind it');
    await s.frontDesk.book(s.booking('F-1', { property: sea, checkIn: s.day(20), nights: 2 }));
    await s.staff.setRates(lake.doorloom_id, 'LAKE-HOUSE', s.day(1), s.day(10), { base_rate: 5900 });
    await s.elapse(5 * HOUR, 'retries keep failing');
    let platform = await s.staff.integration(s.world.integrationId);
    s.check(platform.status === 'active' && platform.webhook.consecutive_failures >= 5, '§3.1: five failures are not enough; six hours of them are needed', `${platform.status}, ${platform.webhook.consecutive_failures} consecutive failures`);
    await s.elapse(2 * HOUR, 'still failing');
    const me = await s.partner.api.me();
    s.check(me?.status === 'paused' && me.webhook.paused_reason === 'auto', '§3.1: paused with reason auto after five failures and six hours', `GET /me: ${me?.status} (${me?.webhook.paused_reason})`);

    s.step('while paused, events keep accumulating');
    await s.staff.setRestrictions(sea.doorloom_id, 'SEA-VIEW', s.day(3), s.day(4), { closed_to_departure: true });
    await s.frontDesk.book(s.booking('F-2', { property: lake, checkIn: s.day(8), nights: 3 }));
    const before = s.deliveries.length;
    await s.elapse(20 * MINUTE, 'the platform probes every five minutes');
    const probes = s.deliveries.slice(before).filter((d) => d.type === 'ping');
    s.check(probes.length >= 3 && s.deliveries.slice(before).every((d) => d.type === 'ping'), 'while auto-paused only probes (pings) arrive, every five minutes', `${probes.length} probes`);

    s.outage(null, 'the app servers are back');
    const drainFrom = s.deliveries.length;
    await s.elapse(5 * MINUTE, 'the next probe');
    const drained = s.deliveries.slice(drainFrom).filter((d) => d.type !== 'ping');
    const order = drained.map((d) => d.sequence ?? 0);
    const latest = await s.latestSequence();
    s.check(order.length > 0 && order.every((seq, i) => i === 0 || seq > order[i - 1]!) && order.at(-1) === latest,
      '§6.2, §3.1: after the probe\'s 2xx the backlog drained one at a time in sequence order', order.map((x) => `#${x}`).join(' '));
    platform = await s.staff.integration(s.world.integrationId);
    s.check(platform.status === 'active' && platform.webhook.undelivered_events === 0, 'delivery resumed and nothing is waiting', `${platform.status}, ${platform.webhook.undelivered_events} undelivered`);
    await s.converged('after the drain');
  },
});
