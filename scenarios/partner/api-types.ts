/**
 * The API shapes the partner reads, in the document's own words (§2). Only
 * the members the partner uses are typed; payloads stay plain JSON so the
 * partner stores exactly what the platform sent.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const EVENT_TYPES = [
  'availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** §2.5 event envelope. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  version: string;
  sequence: number;
  occurred_at: string;
  integration: { id: number; slug: string };
  property: { doorloom_id: number; external_id: string; master_property_id: number };
  window: { from: string; to: string };
  data: JsonObject;
}

/** §2.6 event row of GET /events. */
export interface EventRow {
  sequence: number;
  status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'dead' | 'superseded';
  delivered_at: string | null;
  event: EventEnvelope;
}

/** §4.6 the top-level `cursor` sibling of `data`. */
export interface ReplayCursor {
  after_sequence: number;
  next_after_sequence: number;
  has_more: boolean;
  latest_sequence: number;
  retention_days: number;
}

/** §2.7 `data` of a snapshot response; the payload is at `data.data`. */
export interface SnapshotEnvelope {
  sequence: number;
  property: { doorloom_id: number; external_id: string };
  window: { from: string; to: string };
  data: JsonObject;
}

/** One entry of the property list (spec listProperties x-assumption). */
export interface PropertyRecord {
  doorloom_id: number;
  external_id: string;
  property: JsonObject;
  inventory: JsonObject;
}

/** §2.3 booking object; kept whole, these members drive apply-if-newer and polling. */
export interface Booking extends JsonObject {
  id: number;
  external_booking_id: string;
  revision: number;
  updated_at: string;
}

/** §4.4 and the property list: top-level `pagination`. */
export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  last_page: number;
}

/** §2.1 the integration object of GET /me (the members the partner reads). */
export interface Me {
  id: number;
  slug: string;
  status: 'active' | 'paused' | 'disabled';
  webhook: { url: string | null; last_sequence: number; undelivered_events: number; paused_reason: string | null };
  horizon_days: number;
  covered_properties: number;
}
