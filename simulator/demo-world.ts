/**
 * The demo world seeded on first start (issue contract, kept exactly):
 * integrations[0] active with three or more sellable properties (one with
 * three or more active units, one with exactly one), an archived covered
 * property and an inactive unit on a covered property; integrations[1]
 * active for another brand; integrations[2] disabled; a cohosted property
 * nobody covers. Rates and restrictions cover every night by default.
 */
import { addDays, dateAt } from '../protocol/calendar.ts';
import {
  createBrand, createProperty, createUnit, setArchived, setCoverage, setNights, setRates, setRestrictions, setUnitActive,
} from './domain/catalog.ts';
import { createIntegration, updateIntegration } from './domain/integrations.ts';
import type { Simulator } from './simulator.ts';

export interface FixtureUnit {
  inventory_id: number;
  external_unit_id: string | null;
  active: boolean;
}

export interface FixtureProperty {
  doorloom_id: number;
  external_id: string;
  archived: boolean;
  units: FixtureUnit[];
}

export interface FixtureIntegration {
  id: number;
  slug: string;
  status: string;
  apiKey: string;
  webhookSecret: string;
  properties: FixtureProperty[];
}

/** The `--fixtures-out` file (a public contract: keep its shape). */
export interface Fixtures {
  baseUrl: string;
  staffToken: string;
  integrations: FixtureIntegration[];
}

interface PropertyPlan {
  name: string;
  external_id: string;
  city: string;
  units: { name: string; external_unit_id: string; inactive?: boolean }[];
  archived?: boolean;
  ownership?: 'owned' | 'cohosted';
}

const BRANDS: { brand: string; integration: { name: string; slug: string; disabled?: boolean }; properties: PropertyPlan[]; uncovered?: PropertyPlan[] }[] = [
  {
    brand: 'Seaside Stays',
    integration: { name: 'Acme Channel Manager', slug: 'acme-channel' },
    properties: [
      { name: 'Sea View Villa', external_id: 'SEA-VIEW', city: 'Goa', units: [
        { name: 'Ocean Room', external_unit_id: 'SEA-VIEW-1' },
        { name: 'Garden Room', external_unit_id: 'SEA-VIEW-2' },
        { name: 'Sunset Suite', external_unit_id: 'SEA-VIEW-3' },
        { name: 'Family Suite', external_unit_id: 'SEA-VIEW-4' },
      ] },
      { name: 'Hilltop Cottage', external_id: 'HILLTOP', city: 'Coorg', units: [{ name: 'The Cottage', external_unit_id: 'HILLTOP-1' }] },
      { name: 'Lake House', external_id: 'LAKE-HOUSE', city: 'Udaipur', units: [
        { name: 'Lake Room', external_unit_id: 'LAKE-1' },
        { name: 'Courtyard Room', external_unit_id: 'LAKE-2' },
        { name: 'Attic Room', external_unit_id: 'LAKE-3', inactive: true },
      ] },
      { name: 'Old Fort Inn', external_id: 'OLD-FORT', city: 'Jaipur', archived: true, units: [
        { name: 'Rampart Room', external_unit_id: 'FORT-1' },
        { name: 'Tower Room', external_unit_id: 'FORT-2' },
      ] },
    ],
    uncovered: [
      { name: 'Shared Palms (cohosted)', external_id: 'PALMS', city: 'Kochi', ownership: 'cohosted', units: [{ name: 'Palm Room', external_unit_id: 'PALMS-1' }] },
    ],
  },
  {
    brand: 'Mountain Retreats',
    integration: { name: 'Globe OTA', slug: 'globe-ota' },
    properties: [
      { name: 'Pine Lodge', external_id: 'PINE', city: 'Manali', units: [
        { name: 'Pine Room', external_unit_id: 'PINE-1' },
        { name: 'Cedar Room', external_unit_id: 'PINE-2' },
      ] },
      { name: 'Snow Peak', external_id: 'SNOW', city: 'Gulmarg', units: [{ name: 'Peak Room', external_unit_id: 'SNOW-1' }] },
    ],
  },
  {
    brand: 'Dormant Homes',
    integration: { name: 'Legacy Connector', slug: 'legacy-connector', disabled: true },
    properties: [{ name: 'Quiet Bay', external_id: 'QUIET-BAY', city: 'Puri', units: [{ name: 'Bay Room', external_unit_id: 'BAY-1' }] }],
  },
];

/** Seeds the demo world and returns its fixtures (credentials in the clear: shown once). */
export function seedDemoWorld(sim: Simulator, options: { baseUrl: string; staffToken: string; webhookUrl?: string | null }): Fixtures {
  const { store, clock } = sim;
  const { entropy, vault, changes } = sim.platform.deps;
  const ctx = { changes };
  const today = dateAt(clock.now());
  const integrations: FixtureIntegration[] = [];

  for (const [index, plan] of BRANDS.entries()) {
    store.transaction((tx) => {
      const brand = createBrand(tx, plan.brand);
      const covered: number[] = [];
      for (const p of [...plan.properties, ...(plan.uncovered ?? [])]) {
        const property = createProperty(tx, { brand_id: brand.id, name: p.name, external_id: p.external_id, city: p.city, ownership: p.ownership ?? 'owned' });
        for (const u of p.units) {
          const unit = createUnit(tx, ctx, property.id, { name: u.name, external_unit_id: u.external_unit_id });
          if (u.inactive) setUnitActive(tx, ctx, unit.id, false, { from: today, to: addDays(today, 730) });
        }
        if (p.archived) setArchived(tx, ctx, property.id, true);
        // A little texture beyond the defaults: a festive season rate, a minimum stay, a block and a cap.
        setRates(tx, ctx, property.id, addDays(today, 30), addDays(today, 44), { base_rate: 9500, extra_adult_rate: 1200 });
        setRestrictions(tx, ctx, property.id, addDays(today, 30), addDays(today, 44), { min_stay: 2 });
        if (p.units.length >= 3) {
          setNights(tx, ctx, property.id, addDays(today, 60), addDays(today, 61), { is_blocked: true, block_scope: 'ota_only' });
          setNights(tx, ctx, property.id, addDays(today, 90), addDays(today, 96), { units_cap: 2 });
        }
        if (!p.ownership || p.ownership === 'owned') {
          if (!plan.uncovered?.includes(p)) covered.push(property.id);
        }
      }
      const { integration, credentials } = createIntegration(tx, { entropy, vault, now: clock.now() }, {
        brand_id: brand.id,
        name: plan.integration.name,
        slug: plan.integration.slug,
        webhook_url: index === 0 ? (options.webhookUrl ?? null) : null,
      });
      setCoverage(tx, integration.id, covered);
      if (plan.integration.disabled) updateIntegration(tx, integration.id, (i) => ({ ...i, disabled: true }));
      integrations.push({
        id: integration.id,
        slug: integration.slug,
        status: plan.integration.disabled ? 'disabled' : 'active',
        apiKey: credentials.api_key,
        webhookSecret: credentials.webhook_secret,
        properties: [],
      });
    });
  }
  const fixtures: Fixtures = { baseUrl: options.baseUrl, staffToken: options.staffToken, integrations };
  for (const fi of fixtures.integrations) fi.properties = coveredProperties(sim, fi.id);
  return fixtures;
}

/** Every property an integration covers (archived ones included) with every unit of each. */
export function coveredProperties(sim: Simulator, integrationId: number): FixtureProperty[] {
  const integration = sim.store.get('integrations', String(integrationId));
  return (integration?.coverage ?? []).map((pid) => {
    const p = sim.store.get('properties', String(pid))!;
    const unitIds = sim.store.get('propertyUnits', String(pid))?.unit_ids ?? [];
    return {
      doorloom_id: p.id,
      external_id: p.external_id,
      archived: p.archived,
      units: unitIds.map((id) => sim.store.get('units', String(id))!).map((u) => ({ inventory_id: u.id, external_unit_id: u.external_unit_id, active: u.active })),
    };
  });
}
