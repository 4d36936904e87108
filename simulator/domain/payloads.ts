/**
 * Event payloads (§2.5 `data`), one builder per type. Snapshots (§2.7) and
 * the property list call the same builders, so `data.data` of a snapshot is
 * byte-identical to the `data` of the matching event for the same state.
 * The shapes are assumptions (spec: *Payload schemas).
 */
import type { Faults } from './faults.ts';
import { nights, type IsoDate } from '../../protocol/calendar.ts';
import { ratesOn, restrictionsOn } from './catalog.ts';
import { availabilityPayload, unitsOf, type AvailabilityPayload } from './inventory.ts';
import type { EventType, Property } from './model.ts';
import type { StoreReader } from '../store/store.ts';

export const PLATFORM_TIME_ZONE = 'Asia/Kolkata';

export function ratesPayload(r: StoreReader, property: Property, from: IsoDate, to: IsoDate) {
  return { currency: 'INR' as const, dates: nights(from, to).map((date) => ({ date, ...ratesOn(r, property, date) })) };
}

export function restrictionsPayload(r: StoreReader, property: Property, from: IsoDate, to: IsoDate) {
  return { dates: nights(from, to).map((date) => ({ date, ...restrictionsOn(r, property, date) })) };
}

export function inventoryPayload(r: StoreReader, property: Property) {
  const units = unitsOf(r, property.id);
  return {
    total_units: units.filter((u) => u.active).length,
    units: units.map((u) => ({
      inventory_id: u.id,
      external_unit_id: u.external_unit_id,
      name: u.name,
      active: u.active,
      max_adults: u.max_adults,
      max_children: u.max_children,
    })),
  };
}

export function propertyPayload(property: Property) {
  return {
    doorloom_id: property.id,
    external_id: property.external_id,
    master_property_id: property.master_property_id,
    name: property.name,
    archived: property.archived,
    city: property.city,
    time_zone: PLATFORM_TIME_ZONE,
  };
}

/** The windowed payload of a type for a property (booking.changed is built from the booking). */
export function windowedPayload(r: StoreReader, type: Exclude<EventType, 'booking.changed'>, property: Property, from: IsoDate, to: IsoDate, faults?: Faults): AvailabilityPayload | object {
  switch (type) {
    case 'availability.changed': return availabilityPayload(r, property, from, to, faults);
    case 'rates.changed': return ratesPayload(r, property, from, to);
    case 'restrictions.changed': return restrictionsPayload(r, property, from, to);
    case 'inventory.changed': return inventoryPayload(r, property);
    case 'property.changed': return propertyPayload(property);
  }
}
