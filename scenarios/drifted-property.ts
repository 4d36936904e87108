/**
 * Scenario 9 · a drifted property repaired by one snapshot.
 *
 * A bad migration in the partner's own database corrupts its copy of one
 * property. The partner (§6.8 "single drifted property, use a snapshot")
 * forgets that property's nights and takes its snapshots again. While it is
 * downloading them, its front desk books two nights there: the booking's
 * availability.changed is newer than the availability snapshot already
 * taken, so it must still apply on top (the watermark rule, §4.8: stamp the
 * snapshot with its own `data.sequence`, never with a sequence read after the
 * download). The other properties are not touched.
 *
 * Live target: yes, on --property (the drift is local and the concurrent
 * change is a front-desk booking). Simulator extra: host changes before the
 * drift.
 */
import { defineScenario } from './kit/scenario.ts';

export const scenario = defineScenario({
  name: 'drifted-property',
  number: 9,
  title: 'A drifted property repaired by one snapshot',
  story: 'The partner\'s copy of one property is corrupted; it rebuilds that property alone from snapshots while a booking lands there mid-download, and the booking\'s event still applies on top (watermark rule).',
  live: { capable: true, note: 'The drift is local and the concurrent change is a front-desk booking on --property (two free nights are looked up first).' },
  async run(s) {
    await s.startPartner();
    const property = s.liveProperty('LAKE-HOUSE');
    const id = String(property.doorloom_id);
    if (!s.live) {
      await s.staff.setRates(property.doorloom_id, property.external_id, s.day(1), s.day(6), { base_rate: 6400 });
      await s.staff.setNights(property.doorloom_id, property.external_id, s.day(70), s.day(72), { units_cap: 1 });
      await s.deliver();
    }
    await s.converged('before the drift');

    s.step(`a bad migration in the partner's database corrupts its copy of ${property.external_id}`);
    const copy = s.partner.state.properties[id]!;
    copy.nights.rates[s.day(3)]!.value.base_rate = 1;
    copy.nights.availability[s.day(4)]!.value.available_units = 0;
    delete copy.nights.restrictions[s.day(5)];
    const drift = await s.divergenceNow();
    const corrupted = ['rates', 'availability', 'restrictions'].every((type) => drift.differences.some((d) => d.property === property.doorloom_id && d.type === type));
    // On the simulator nothing else moves; a live target may have other changes in flight.
    s.check(corrupted && (s.live || drift.total === 3), `the partner's copy of ${property.external_id} now differs from the platform on the 3 corrupted nights`, drift.differences.slice(0, 5).map((d) => d.where).join('; '));

    const stay = await s.findStay(property, 20, 80, 2, (n) => n >= 1);
    s.whenPartnerCalls('GET', new RegExp(`/properties/${id}/availability$`), async () => {
      s.step('while the partner is downloading its snapshots, its front desk books two nights there');
      await s.frontDesk.book(s.booking('F-1', { property, checkIn: stay, nights: 2 }));
    });
    await s.partner.repairProperty(property.doorloom_id);
    await s.deliver();
    await s.converged('after the repair and the booking made during it');
  },
});
