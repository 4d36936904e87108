/**
 * Scenario 7 · API key rotation.
 *
 * Staff rotate the integration's API key: the old key is refused at once
 * (401, §5.3). The partner's next call is refused; its vault has nothing
 * newer yet, so it says so and carries on (no crash, no retry storm). The
 * operator stores the new key; the partner's next create is refused once,
 * re-reads the vault, and is repeated with the new key under the SAME
 * Idempotency-Key (a 401 is answered before anything is processed).
 * Webhooks never depended on the key and kept flowing.
 *
 * Live target: no. Rotation is a staff power.
 */
import { defineScenario } from './kit/scenario.ts';

export const scenario = defineScenario({
  name: 'api-key-rotation',
  number: 7,
  title: 'API key rotation: the old key fails at once, the partner recovers with the new one',
  story: 'Staff rotate the API key: the old key gets 401 at once; the partner reports it until its operator stores the new key, then repeats its refused create with the new key and the same Idempotency-Key; webhooks flowed throughout.',
  live: { capable: false, note: 'Rotating the API key is a staff power.' },
  async run(s) {
    await s.startPartner();
    const sea = s.property('SEA-VIEW');
    const lake = s.property('LAKE-HOUSE');
    await s.partner.createBooking(s.booking('G-1', { property: sea, checkIn: s.day(14), nights: 2 }));
    await s.deliver();

    const oldKey = s.world.apiKey;
    s.world.apiKey = await s.staff.rotateApiKey(s.world.integrationId);
    const refused = await s.rawCall(oldKey, 'GET', '/me');
    s.check(refused.status === 401 && refused.code === 'UNAUTHENTICATED', '§5.3: the previous key stops working immediately', `${refused.status} ${refused.code}`);

    s.step('the partner\'s minute timer fires before its operator has stored the new key');
    await s.partner.tick();
    const health = s.calls.at(-1);
    s.check(health?.path === '/me' && health.status === 401, 'the partner\'s health check is refused (401); it notes that its vault has no newer key and carries on', `${health?.method} ${health?.path} ${health?.status}`);
    await s.staff.setRestrictions(lake.doorloom_id, 'LAKE-HOUSE', s.day(2), s.day(4), { closed_to_arrival: true });
    await s.deliver();
    s.check(s.deliveries.at(-1)?.status === 200, 'webhooks do not use the API key: deliveries kept flowing');

    s.vault.setApiKey(s.world.apiKey);
    s.log('partner', 'its operator stores the new key in the vault', 'the running process still holds the old one');
    const g2 = await s.partner.createBooking(s.booking('G-2', { property: lake, checkIn: s.day(21), nights: 2 }));
    const creates = s.calls.filter((c) => c.method === 'POST' && c.requestBody?.includes('"G-2"'));
    s.check(creates.map((c) => c.status).join(',') === '401,201' && creates[0]!.idempotencyKey === creates[1]!.idempotencyKey,
      'the create was refused once, then repeated with the new key under the same Idempotency-Key', creates.map((c) => `${c.status} …${c.idempotencyKey?.slice(-8)}`).join(', '));
    s.check(g2.status === 'placed', 'the booking is placed', `booking ${g2.booking_id}`);
    await s.partner.catchUp();
    await s.deliver();
    await s.converged('with the new key');
  },
});
