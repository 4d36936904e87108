/**
 * What a host's change to a covered property does to a partner's creates (§4.5, §7): a property the host archived
 * is refused 422 PROPERTY_ARCHIVED, a unit the host deactivated 422 UNIT_INACTIVE and is never counted sellable
 * (§2.4); restored, each books again. Each needs the control plane's action for what the host does
 * (spec/control-openapi.yaml) and its way back, and restores the property or unit at once.
 */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { bookingBody, coveredProperties, createBooking, describe, expectCreated } from './support.ts';

const suite = 'validation';

/** Nights read for a free one: the document's largest snapshot window (§8). */
const WINDOW_NIGHTS = 92;

/**
 * A night, 400 to 720 days ahead, on which `property` has at least `units` units free (§2.4 available_units), as its
 * availability snapshot reads now: with every active unit free, any one unit pinned is free too. Null when none is.
 */
async function nightWithFree(ctx: CheckContext, property: number, units: number): Promise<{ check_in: string; check_out: string } | null> {
  const from = addDays(dateAt(ctx.now()), 400 + Math.floor(ctx.random() * 229));
  const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from, to: addDays(from, WINDOW_NIGHTS - 1) } });
  const dates: any[] = res.status === 200 && Array.isArray(res.body?.data?.data?.dates) ? res.body.data.data.dates : [];
  const night = dates.find((d) => typeof d?.date === 'string' && d.is_blocked !== true && Number.isInteger(d.available_units) && d.available_units >= units);
  return night ? { check_in: night.date, check_out: addDays(night.date, 1) } : null;
}

/** The night's available_units as the property's availability snapshot reads it now, or undefined. */
async function availableOn(ctx: CheckContext, property: number, night: string): Promise<number | undefined> {
  const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from: night, to: night } });
  const units = res.status === 200 ? res.body?.data?.data?.dates?.[0]?.available_units : undefined;
  return Number.isInteger(units) ? units : undefined;
}

export const hostChangeChecks = [
  defineCheck({
    id: 'validation.archived-by-host', title: 'A covered property the host archives is refused 422 PROPERTY_ARCHIVED naming property, and still counted covered; restored, it books again', suite,
    clauses: ['4.5.Q33', '7.E12', '2.1.R8', '4.5.R8'], level: 'normative', needs: ['write', control('property.archive'), control('property.unarchive')], wants: ['property'],
    async run(ctx) {
      const property = ctx.target.properties.find((p) => !p.archived)?.doorloom_id;
      if (property === undefined) throw new NotApplicable('needs a covered property the run may write on to archive through the control plane (name one with --property ID)');
      const counted = (await ctx.api.get('/me')).body?.data?.covered_properties;
      await ctx.control!.archiveProperty(property);
      let archived = true;
      // Never leave it archived: the rest of the run, and the host, need it.
      ctx.cleanup.unshift(async () => {
        if (archived) await ctx.control!.unarchiveProperty(property);
      });
      const refused = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property } }));
      if (refused.status === 200 || refused.status === 201) ctx.fail('ArchivedPropertyBooked', `${describe(refused)}: booking ${refused.body?.data?.id} on property ${property} after the host archived it`, '422 PROPERTY_ARCHIVED: a property covered but archived by the host (§4.5, §7)', '4.5.Q33');
      expectStatus(ctx, refused, 422, 'PROPERTY_ARCHIVED', '4.5.Q33', `a create on property ${property}, archived by the host`);
      // §7: PROPERTY_ARCHIVED is a property covered but archived, so archiving leaves the count of covered properties as it was.
      const meanwhile = (await ctx.api.get('/me')).body?.data?.covered_properties;
      if (Number.isInteger(counted) && meanwhile !== counted) ctx.fail('CoveredCountWrong', `covered_properties ${JSON.stringify(meanwhile)} after the host archived property ${property} (${counted} before)`, `${counted}: an archived property is still covered (§7 PROPERTY_ARCHIVED), and covered_properties counts the covered ones`, '2.1.R8');
      await ctx.control!.unarchiveProperty(property);
      archived = false;
      // Restored, the property is covered and not archived: a valid create on free nights books (§4.5 rule 8).
      expectCreated(ctx, await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property } })), `a create on property ${property}, restored by the host`);
    },
  }),
  defineCheck({
    id: 'validation.unit-deactivated-by-host', title: 'A unit the host deactivates is refused 422 UNIT_INACTIVE when pinned and is not counted sellable; activated again, it can be pinned and booked', suite,
    clauses: ['4.5.Q35', '7.E14', '2.4.R2', '4.5.R6a'], level: 'normative', needs: ['write', control('unit.deactivate'), control('unit.activate')], wants: ['property'],
    async run(ctx) {
      const writable = new Set(ctx.target.properties.filter((p) => !p.archived).map((p) => p.doorloom_id));
      const property = (await coveredProperties(ctx)).find((p) => !p.archived && writable.has(p.doorloom_id) && p.units.some((u) => u.active && Number.isInteger(u.inventory_id)));
      if (!property) throw new NotApplicable('needs a covered property the run may write on whose active units are known (target fixtures or GET /properties)');
      const active = property.units.filter((u) => u.active);
      const unit = active[0]!;
      const stay = await nightWithFree(ctx, property.doorloom_id, active.length);
      if (!stay) throw new NotApplicable(`property ${property.doorloom_id} has no night with all its ${active.length} active units free in the window read`);
      const pinned = () => bookingBody(ctx, { property: { doorloom_id: property.doorloom_id }, units: [{ adults: 1, inventory_id: unit.inventory_id }], ...stay });
      await ctx.control!.deactivateUnit(unit.inventory_id);
      let inactive = true;
      // Never leave it inactive: the rest of the run, and the host, need it.
      ctx.cleanup.unshift(async () => {
        if (inactive) await ctx.control!.activateUnit(unit.inventory_id);
      });
      const refused = await createBooking(ctx, pinned());
      if (refused.status === 200 || refused.status === 201) ctx.fail('InactiveUnitBooked', `${describe(refused)}: booking ${refused.body?.data?.id} pinning unit ${unit.inventory_id} after the host deactivated it`, '422 UNIT_INACTIVE: a unit deactivated by the host (§4.5, §7)', '4.5.Q35');
      expectStatus(ctx, refused, 422, 'UNIT_INACTIVE', '4.5.Q35', `a create pinning unit ${unit.inventory_id}, deactivated by the host`);
      // §2.4: available_units are the units sellable that night; a deactivated unit is refused at create, so never counted.
      const sellable = await availableOn(ctx, property.doorloom_id, stay.check_in);
      if (sellable !== undefined && sellable > active.length - 1) ctx.fail('InactiveUnitSellable', `${stay.check_in}: available_units ${sellable} on property ${property.doorloom_id} after the host deactivated unit ${unit.inventory_id}`, `at most ${active.length - 1}, its active units`, '2.4.R2');
      await ctx.control!.activateUnit(unit.inventory_id);
      inactive = false;
      // Active again and free that night (every active unit was): pinned, it is booked (§4.5 rule 6).
      const booked = await createBooking(ctx, pinned());
      if (booked.status === 422) ctx.fail('ActivatedUnitRefused', `${describe(booked)} for a create pinning unit ${unit.inventory_id} after the host activated it again`, '201: an active unit free that night is pinned and booked (§4.5 rule 6)', '4.5.R6a');
      expectCreated(ctx, booked, `a create pinning unit ${unit.inventory_id}, activated again`);
    },
  }),
];
