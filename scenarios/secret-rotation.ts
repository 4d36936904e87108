/**
 * Scenario 6 · webhook secret rotation.
 *
 * Staff rotate the secret; the operator adds the new one to the partner's
 * vault, which then accepts either. For 24 hours each delivery carries two
 * `v1=` values, one per secret (§5.4); the partner switches to the new secret
 * alone. A second rotation pushes the first secret out at once (one previous
 * slot): the header then carries the newest and the previous secret, and a
 * partner that held on to the first one would refuse everything. After 24
 * hours only the newest signs. Not one event is refused or lost on the way.
 *
 * Then an attacker posts a forged event (right slug, wrong key) and replays a
 * genuine delivery ten minutes later: both must be refused (signature
 * mismatch; timestamp outside the tolerance), and the partner's state stays
 * the platform's.
 *
 * Live target: no. Rotation is a staff power.
 */
import { verifySignature } from './partner/signature.ts';
import { defineScenario } from './kit/scenario.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const scenario = defineScenario({
  name: 'secret-rotation',
  number: 6,
  title: 'Webhook secret rotation: both signatures for 24 hours, double rotation, no event lost',
  story: 'Two rotations of the webhook secret while events flow: the partner accepts old and new, switches to the new, survives the double rotation and the expiry of the previous secret without refusing a single delivery, and refuses a forged and a replayed (stale) delivery.',
  live: { capable: false, note: 'Rotating the webhook secret is a staff power.' },
  async run(s) {
    await s.startPartner();
    const sea = s.property('SEA-VIEW');
    const hill = s.property('HILLTOP');
    const s0 = s.world.webhookSecret;
    let day = 1;
    const change = async () => {
      await s.staff.setRates(hill.doorloom_id, 'HILLTOP', s.day(day), s.day(day + 1), { base_rate: 5000 + day * 10 });
      day += 2;
      await s.deliver();
      return s.deliveries.at(-1)!;
    };

    const s1 = await s.staff.rotateWebhookSecret(s.world.integrationId);
    s.vault.addWebhookSecret(s1);
    s.log('partner', 'its operator adds the new secret to the vault', 'accepting the old and the new secret');
    let last = await change();
    s.check(signaturesIn(last) === 2 && verifies(last, [s0]) && verifies(last, [s1]), '§5.4: during the rotation each delivery carries a v1 for the new and for the previous secret');

    s.vault.retireWebhookSecret(s0);
    s.log('partner', 'switches to the new secret', 'accepting only the new secret');
    last = await change();
    s.check(last.status === 200, 'deliveries still verify with the new secret alone');

    const s2 = await s.staff.rotateWebhookSecret(s.world.integrationId);
    s.log('partner', 'its operator has not stored the second new secret yet', 'still accepting only the first new one');
    last = await change();
    s.check(last.status === 200 && signaturesIn(last) === 2 && verifies(last, [s2]) && verifies(last, [s1]) && !verifies(last, [s0]),
      '§5.4: a second rotation pushes the original secret out at once; the header carries the newest and the previous one');
    s.vault.addWebhookSecret(s2);
    s.log('partner', 'its operator adds the second new secret', 'accepting both new secrets');

    await s.elapse(24 * HOUR + MINUTE, 'the previous secret expires after 24 hours');
    await s.partner.tick();
    last = await change();
    s.check(last.status === 200 && signaturesIn(last) === 1 && verifies(last, [s2]), 'after 24 hours only the newest secret signs');
    s.vault.retireWebhookSecret(s1);
    last = await change();
    await s.frontDesk.book(s.booking('F-1', { property: sea, checkIn: s.day(30), nights: 2 }));
    await s.deliver();

    s.step('an attacker posts a forged event, then replays a genuine delivery ten minutes later');
    const latest = await s.latestSequence();
    const forged = s.forgedEvent({
      id: '01JFORGEDFORGEDFORGEDFORGE', type: 'rates.changed', version: '2026-09', sequence: latest + 100, occurred_at: new Date(s.world.now()).toISOString(),
      integration: { id: s.world.integrationId, slug: s.world.slug },
      property: { doorloom_id: sea.doorloom_id, external_id: sea.external_id, master_property_id: sea.doorloom_id },
      window: { from: s.day(5), to: s.day(6) },
      data: { currency: 'INR', dates: [s.day(5), s.day(6)].map((date) => ({ date, base_rate: 1, extra_adult_rate: 0, extra_child_rate: 0 })) },
    }, 'whsec_0000000000000000000000000000000000000000000000000000000000000000');
    const forgedStatus = await s.postToPartner('posts a forged rates.changed (SEA-VIEW at 1 INR) signed with a key it made up', forged.body, forged.headers);
    await s.elapse(10 * MINUTE, 'ten minutes later');
    const stale = await s.postToPartner(`replays the genuine delivery #${last.sequence} captured ten minutes ago`, last.rawBody, { 'X-Service-Integration': s.world.slug, 'X-Service-Signature': last.signatureHeader ?? '' });
    s.check(forgedStatus === 400 && stale === 400, 'the forged delivery (signature mismatch) and the stale one (timestamp outside the tolerance) were refused', `forged ${forgedStatus}, stale ${stale}`);

    const attempts = await s.staff.deliveries(s.world.integrationId);
    s.check(attempts.every((a) => a.outcome.status === 200), 'not one platform delivery was refused during the rotations (the platform\'s delivery log)', `${attempts.length} attempts, all 200`);
    s.check(s.partner.state.cursor === latest, 'no event lost: the partner holds every sequence', `cursor ${s.partner.state.cursor}, latest ${latest}`);
    await s.converged('after two rotations and two hostile deliveries');
  },
});

function signaturesIn(d: { signatureHeader: string | undefined }): number {
  return (d.signatureHeader ?? '').split(',').filter((p) => p.startsWith('v1=')).length;
}

/** Whether the delivery's header verifies with these secrets at its own signing time. */
function verifies(d: { signatureHeader: string | undefined; rawBody: string }, secrets: string[]): boolean {
  const t = Number(/t=(\d+)/.exec(d.signatureHeader ?? '')?.[1]);
  return verifySignature(d.signatureHeader, d.rawBody, secrets, t).ok;
}
