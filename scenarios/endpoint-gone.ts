/**
 * Scenario 5 · the endpoint answers 410: paused as `gone`, recovered by staff.
 *
 * The partner moves its webhook from /webhook/v1 to /webhook/v2 and answers
 * 410 Gone on the retired path. The next delivery pauses the integration at
 * once with reason `gone` (§3.1); no probes follow and nothing is attempted
 * while events accumulate. Staff register the new URL, which ends the pause,
 * and the backlog drains in order to the new path.
 *
 * Live target: no. Only staff can change the webhook URL.
 */
import { defineScenario } from './kit/scenario.ts';

const HOUR = 3_600_000;

export const scenario = defineScenario({
  name: 'endpoint-gone',
  number: 5,
  title: 'The endpoint answers 410: paused as gone, recovered by staff',
  story: 'The partner retires /webhook/v1 (410 Gone) for /webhook/v2: delivery pauses at once as gone, nothing is attempted for an hour, staff set the new URL and the backlog drains there in order.',
  live: { capable: false, note: 'Only platform staff can change the webhook URL.' },
  async run(s) {
    await s.startPartner({ path: '/webhook/v1' });
    const sea = s.property('SEA-VIEW');
    const hill = s.property('HILLTOP');
    await s.staff.setRates(sea.doorloom_id, 'SEA-VIEW', s.day(2), s.day(3), { base_rate: 6100 });
    await s.deliver();

    await s.stopPartner('a new release serves /webhook/v2 and answers 410 Gone on /webhook/v1');
    await s.startPartner({ path: '/webhook/v2', retiredPaths: ['/webhook/v1'] });
    await s.staff.setRestrictions(hill.doorloom_id, 'HILLTOP', s.day(5), s.day(9), { min_stay: 3 });
    await s.deliver();
    const me = await s.partner.api.me();
    s.check(me?.status === 'paused' && me.webhook.paused_reason === 'gone', '§3.1: one 410 pauses delivery at once, reason gone', `GET /me: ${me?.status} (${me?.webhook.paused_reason})`);

    s.step('events accumulate; a gone pause is not probed');
    await s.frontDesk.book(s.booking('F-1', { property: hill, checkIn: s.day(12), nights: 2 }));
    await s.staff.setNights(sea.doorloom_id, 'SEA-VIEW', s.day(15), s.day(16), { units_cap: 1 });
    const before = s.deliveries.length;
    await s.elapse(HOUR, 'an hour passes');
    s.check(s.deliveries.length === before, 'nothing is attempted while paused as gone (no probes)', `${s.deliveries.length - before} attempts`);

    const drainFrom = s.deliveries.length;
    await s.staff.setWebhook(s.world.integrationId, s.partner.url);
    await s.deliver();
    const drained = s.deliveries.slice(drainFrom);
    const order = drained.map((d) => d.sequence ?? 0);
    s.check(drained.length > 0 && drained.every((d) => d.path === '/webhook/v2' && d.status === 200) && order.every((seq, i) => i === 0 || seq > order[i - 1]!),
      'staff set the new URL: the pause ended and the backlog drained to /webhook/v2 in order', order.map((x) => `#${x}`).join(' '));
    await s.converged('after the drain to the new path');
  },
});
