/**
 * Scenario 11 · a new property added to coverage mid-stream.
 *
 * The host creates a property with two units and sets its rates; nothing is
 * pushed to the partner: it is not covered (§1). Staff add it to the
 * integration's coverage: that pushes nothing either. A restrictions change
 * on it is pushed; the partner applies it and notes a property it has not
 * onboarded. Its minute timer reads GET /me (at most once a minute, §5.7: a
 * second tick within the minute sends nothing), sees one more covered
 * property, reads the property list and takes the new property's snapshots
 * (§6.8 new property). Then it books there.
 *
 * Live target: no. Coverage is set by staff.
 */
import { defineScenario } from './kit/scenario.ts';

const SECOND = 1000;

export const scenario = defineScenario({
  name: 'new-property',
  number: 11,
  title: 'A new property added to coverage mid-stream',
  story: 'Staff add a new property to coverage; its first event reaches the partner before it is onboarded; the partner\'s once-a-minute GET /me shows the new coverage, it snapshots the property and books there.',
  live: { capable: false, note: 'Coverage is set by platform staff.' },
  async run(s) {
    await s.startPartner();
    await s.converged('before the new property');
    const covered = s.world.properties.map((p) => p.doorloom_id);

    const river = await s.staff.createProperty(1, 'Riverside Retreat', 'RIVERSIDE');
    await s.staff.addUnit(river.id, 'River Room', 'RIVER-1');
    await s.staff.addUnit(river.id, 'Deck Room', 'RIVER-2');
    await s.staff.setRates(river.id, 'RIVERSIDE', s.day(10), s.day(20), { base_rate: 5000 });
    s.check(await s.latestSequence() === 0, '§1: nothing about a property outside coverage reaches the integration');
    await s.staff.setCoverage(s.world.integrationId, [...covered, river.id]);
    await s.staff.setRestrictions(river.id, 'RIVERSIDE', s.day(3), s.day(5), { min_stay: 2 });
    await s.deliver();
    s.check(s.deliveries.at(-1)?.outcome.includes('not onboarded') === true, 'the first event about it is applied, and the partner notes a property it has not onboarded', s.deliveries.at(-1)?.outcome);

    await s.partner.tick();
    await s.elapse(30 * SECOND, 'half a minute');
    await s.partner.tick();
    s.check(s.partner.api.meRequests === 1, '§5.7: GET /me at most once a minute (two ticks, one request)', `${s.partner.api.meRequests} request(s)`);
    const copy = s.partner.state.properties[String(river.id)];
    s.check(copy?.complete === true && s.partner.lastCatchUp.some((x) => x.do === 'snapshot-properties'), '§6.8 new property: the partner took its snapshots', s.partner.lastCatchUp.map((x) => `${x.do}`).join(', '));

    const r = await s.partner.createBooking(s.booking('G-1', { property: { doorloom_id: river.id, external_id: 'RIVERSIDE', units: [] }, checkIn: s.day(12), nights: 2 }));
    s.check(r.status === 'placed', 'the partner books on the new property', `booking ${r.booking_id}`);
    await s.elapse(31 * SECOND, 'the minute is up');
    await s.partner.tick();
    s.check(s.partner.api.meRequests === 2, 'a minute later GET /me is read again', `${s.partner.api.meRequests} request(s)`);
    await s.converged('with the new property');
  },
});
