/**
 * The partner's copy of the platform, in one serialisable document:
 * - per property and per night, availability, rates and restrictions, each
 *   stamped with the sequence it is current as of (apply-if-newer, §6.4);
 * - per property, the property record and inventory, stamped the same way;
 * - the bookings of the integration, kept by revision;
 * - its own reservations (what it asked the platform to book, with the
 *   Idempotency-Key and exact body, so a retry after a crash is identical);
 * - the replay cursor (§4.6) and the highest `updated_at` polled (§6.9).
 */
import type { Booking, JsonObject } from './api-types.ts';

export const NIGHT_TYPES = ['availability', 'rates', 'restrictions'] as const;
export type NightType = (typeof NIGHT_TYPES)[number];

/** A value with the sequence it is current as of. */
export interface Stamped<T> {
  value: T;
  sequence: number;
}

export interface PropertyCopy {
  doorloom_id: number;
  external_id: string;
  /**
   * True once the partner has the whole property (snapshots, or a sync it
   * asked for); false while it only holds what events told it about a
   * property it had not onboarded yet (§6.8 new property).
   */
  complete: boolean;
  /** Per type, the `data.sequence` of the last snapshot taken (§4.8 watermark rule). */
  watermarks: Partial<Record<NightType, number>>;
  /** property.changed / the property list `property` member. */
  record: Stamped<JsonObject> | null;
  /** inventory.changed / the property list `inventory` member. */
  inventory: Stamped<JsonObject> | null;
  /** Per type, per night (`YYYY-MM-DD`). */
  nights: Record<NightType, Record<string, Stamped<JsonObject>>>;
}

export interface BookingCopy {
  booking: Booking;
  /** The event that brought this revision, or null (create answer, polling). */
  sequence: number | null;
}

/**
 * - `sending`: asked, answer not yet known (re-driven with the same key and body);
 * - `placed`: on the platform (201, or 200 `duplicate: true`, §4.5 rule 4);
 * - `declined`: 409 UNAVAILABLE, the guest is told (§4.5 rule 7);
 * - `failed`: any other refusal; the guest holds a reservation the platform does not have.
 */
export type ReservationStatus = 'sending' | 'placed' | 'declined' | 'failed';

export interface Reservation {
  external_booking_id: string;
  idempotency_key: string;
  /** The exact JSON text sent, so every retry is byte-identical. */
  body: string;
  status: ReservationStatus;
  attempts: number;
  booking_id: number | null;
  /** The last answer: status and error code; for a 409 UNAVAILABLE the `errors.availability` body. */
  answer: { status: number; code: string | null; availability?: JsonObject } | null;
}

export interface PartnerState {
  version: 1;
  /** §4.6 replay cursor: the highest sequence processed in order; null before the first start (cold start, §6.8). */
  cursor: number | null;
  /** §6.9: the highest `updated_at` processed by polling. */
  bookings_updated_since: string | null;
  properties: Record<string, PropertyCopy>;
  bookings: Record<string, BookingCopy>;
  reservations: Record<string, Reservation>;
}

export function emptyState(): PartnerState {
  return { version: 1, cursor: null, bookings_updated_since: null, properties: {}, bookings: {}, reservations: {} };
}

export function emptyPropertyCopy(doorloom_id: number, external_id: string): PropertyCopy {
  return { doorloom_id, external_id, complete: false, watermarks: {}, record: null, inventory: null, nights: { availability: {}, rates: {}, restrictions: {} } };
}

/** The copy of a property, created empty when the partner has not seen it yet. */
export function propertyCopy(state: PartnerState, doorloom_id: number, external_id: string): PropertyCopy {
  const key = String(doorloom_id);
  const copy = state.properties[key] ?? emptyPropertyCopy(doorloom_id, external_id);
  state.properties[key] = copy;
  return copy;
}
