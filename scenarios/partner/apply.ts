/**
 * Apply-if-newer (§6.4). Event payloads are full state, so the partner keeps,
 * per property, type and night (per property for the record and inventory,
 * per booking for bookings), the sequence its value is current as of, and
 * applies an event only where the event is newer. Replays, redeliveries and
 * overlapping windows are then dropped harmlessly, whichever path they came by.
 *
 * A snapshot (§4.8) is current as of its watermark `data.sequence`: it
 * replaces whatever is stamped at or below it, and events above it apply on top.
 */
import type { Booking, EventEnvelope, JsonObject, SnapshotEnvelope } from './api-types.ts';
import { NIGHT_TYPES, propertyCopy, type NightType, type PartnerState, type Stamped } from './state.ts';

export interface Applied {
  /** Nights, records or bookings written. */
  applied: number;
  /** Nights, records or bookings left alone because what the partner holds is as new or newer. */
  dropped: number;
  /** True when the event named a property the partner did not know (§6.8: onboard it). */
  unknownProperty: boolean;
}

const NIGHT_TYPE_OF: Partial<Record<EventEnvelope['type'], NightType>> = {
  'availability.changed': 'availability',
  'rates.changed': 'rates',
  'restrictions.changed': 'restrictions',
};

/**
 * The per-night values of a night payload. Availability also records, per
 * night, which units are held (`units[].unavailable_dates`), so a moved or
 * cancelled booking shows as the right unit freed.
 */
export function nightValues(type: NightType, payload: JsonObject): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const dates = (payload.dates ?? []) as JsonObject[];
  const units = type === 'availability' ? ((payload.units ?? []) as JsonObject[]) : [];
  for (const entry of dates) {
    const { date, ...rest } = entry;
    const value: JsonObject = { ...rest };
    if (type === 'availability') {
      value.held = units
        .filter((u) => ((u.unavailable_dates ?? []) as string[]).includes(date as string))
        .map((u) => u.inventory_id as number)
        .sort((a, b) => a - b);
    }
    out.set(date as string, value);
  }
  return out;
}

function newer<T>(held: Stamped<T> | null | undefined, sequence: number): boolean {
  return held == null || sequence > held.sequence;
}

/**
 * Applies one event if newer, night by night. `force` writes regardless of
 * stamps (only the `applySuperseded` breakage uses it).
 */
export function applyEvent(state: PartnerState, event: EventEnvelope, force = false): Applied {
  const result: Applied = { applied: 0, dropped: 0, unknownProperty: state.properties[String(event.property.doorloom_id)] === undefined };
  if (event.type === 'booking.changed') {
    const written = applyBooking(state, event.data as Booking, event.sequence, force);
    result[written ? 'applied' : 'dropped'] += 1;
    return result;
  }
  const copy = propertyCopy(state, event.property.doorloom_id, event.property.external_id);
  const nightType = NIGHT_TYPE_OF[event.type];
  if (nightType) {
    const held = copy.nights[nightType];
    for (const [date, value] of nightValues(nightType, event.data)) {
      if (force || newer(held[date], event.sequence)) {
        held[date] = { value, sequence: event.sequence };
        result.applied += 1;
      } else result.dropped += 1;
    }
    return result;
  }
  const slot = event.type === 'inventory.changed' ? 'inventory' : 'record';
  if (force || newer(copy[slot], event.sequence)) {
    copy[slot] = { value: event.data, sequence: event.sequence };
    result.applied += 1;
  } else result.dropped += 1;
  return result;
}

/**
 * A booking by revision (create answers and polling carry no sequence).
 * Equal revision is the same state: nothing to write. The `duplicate` flag of
 * a create answer is not part of the booking (§2.3).
 */
export function applyBooking(state: PartnerState, booking: Booking, sequence: number | null, force = false): boolean {
  const held = state.bookings[String(booking.id)];
  if (!force && held && booking.revision <= held.booking.revision) return false;
  const { duplicate: _duplicate, ...clean } = booking;
  state.bookings[String(booking.id)] = { booking: clean as Booking, sequence };
  return true;
}

/**
 * §4.8: a snapshot stamped with `stamp` (its `data.sequence` unless the
 * `ignoreWatermark` breakage is on) replaces every night stamped at or below
 * it; nights stamped above it came from newer events and stay.
 */
export function applySnapshot(state: PartnerState, type: NightType, snapshot: SnapshotEnvelope, stamp: number): Applied {
  const copy = propertyCopy(state, snapshot.property.doorloom_id, snapshot.property.external_id);
  const held = copy.nights[type];
  const result: Applied = { applied: 0, dropped: 0, unknownProperty: false };
  for (const [date, value] of nightValues(type, snapshot.data)) {
    const current = held[date];
    if (!current || current.sequence <= stamp) {
      held[date] = { value, sequence: stamp };
      result.applied += 1;
    } else result.dropped += 1;
  }
  copy.watermarks[type] = stamp;
  return result;
}

/** A record of the property list, current as of `stamp` (the latest sequence read before the list). */
export function applyRecord(state: PartnerState, doorloomId: number, externalId: string, slot: 'record' | 'inventory', value: JsonObject, stamp: number): boolean {
  const copy = propertyCopy(state, doorloomId, externalId);
  const current = copy[slot];
  if (current && current.sequence > stamp) return false;
  copy[slot] = { value, sequence: stamp };
  return true;
}

/** Forgets every night of a property (a drifted copy is rebuilt from a snapshot, §6.8). */
export function forgetNights(state: PartnerState, doorloomId: number): void {
  const copy = state.properties[String(doorloomId)];
  if (!copy) return;
  for (const type of NIGHT_TYPES) copy.nights[type] = {};
  copy.watermarks = {};
}
