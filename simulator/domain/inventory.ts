/**
 * Nightly availability of a property (§2.4) and the availability payload
 * shared by snapshots, availability.changed events and the 409 body.
 */
import type { Faults } from './faults.ts';
import { nights, type IsoDate } from '../../protocol/calendar.ts';
import type { NightSettings, Property, Unit } from './model.ts';
import type { StoreReader } from '../store/store.ts';

/** §2.4 availability date entry. */
export interface AvailabilityDate {
  date: IsoDate;
  available_units: number;
  total_units: number;
  is_blocked: boolean;
  block_scope: NightSettings['block_scope'];
  units_cap: number | null;
}

export interface AvailabilityUnit {
  inventory_id: number;
  external_unit_id: string | null;
  name: string;
  active: boolean;
  unavailable_dates: IsoDate[];
}

export interface AvailabilityPayload {
  total_units: number;
  units: AvailabilityUnit[];
  dates: AvailabilityDate[];
}

/** Units of a property in inventory_id order (the allocation order too). */
export function unitsOf(r: StoreReader, propertyId: number): Unit[] {
  const ids = r.get('propertyUnits', String(propertyId))?.unit_ids ?? [];
  return ids.map((id) => r.get('units', String(id))).filter((u): u is Unit => u !== undefined);
}

export function holdKey(unitId: number, date: IsoDate): string {
  return `${unitId}:${date}`;
}

export function nightKey(propertyId: number, date: IsoDate): string {
  return `${propertyId}:${date}`;
}

/** One night: sellable units are the free active units, at most cap minus booked, none when blocked. */
export function availabilityOn(r: StoreReader, propertyId: number, units: Unit[], date: IsoDate, faults?: Faults): AvailabilityDate {
  const active = units.filter((u) => u.active);
  const settings = r.get('nights', nightKey(propertyId, date));
  const booked = units.filter((u) => r.get('holds', holdKey(u.id, date))).length;
  const free = active.filter((u) => !r.get('holds', holdKey(u.id, date))).length;
  const isBlocked = settings?.is_blocked ?? false;
  const cap = settings?.units_cap ?? null;
  // A release that stores the cap but sells every free unit (faults: the cap's one place).
  const sellable = isBlocked ? 0 : cap === null || faults?.has('cap-not-applied') ? free : Math.max(0, Math.min(free, cap - booked));
  return {
    date,
    available_units: sellable,
    total_units: active.length,
    is_blocked: isBlocked,
    block_scope: isBlocked ? (settings?.block_scope ?? 'everywhere') : null,
    units_cap: cap,
  };
}

/** The availability payload for a window, both ends inclusive (§4.8). */
export function availabilityPayload(r: StoreReader, property: Property, from: IsoDate, to: IsoDate, faults?: Faults): AvailabilityPayload {
  const units = unitsOf(r, property.id);
  const window = nights(from, to);
  return {
    total_units: units.filter((u) => u.active).length,
    units: units.filter((u) => u.active).map((u) => ({
      inventory_id: u.id,
      external_unit_id: u.external_unit_id,
      name: u.name,
      active: u.active,
      unavailable_dates: window.filter((d) => r.get('holds', holdKey(u.id, d))),
    })),
    dates: window.map((d) => availabilityOn(r, property.id, units, d, faults)),
  };
}
