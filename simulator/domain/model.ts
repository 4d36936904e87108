/**
 * The platform's records as the simulator stores them. Field names follow
 * the API document where it has them (§2); the rest is internal.
 */
import type { IsoDate } from '../../protocol/calendar.ts';

export const EVENT_TYPES = [
  'availability.changed',
  'rates.changed',
  'restrictions.changed',
  'inventory.changed',
  'property.changed',
  'booking.changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled', 'completed', 'refunded'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export interface Brand {
  id: number;
  name: string;
}

export type IntegrationStatus = 'active' | 'paused' | 'disabled';
export type PausedReason = 'manual' | 'auto' | 'gone';

/** A webhook secret at rest: encrypted, never stored in the clear (§5.2). */
export type SealedSecret = string;

export interface WebhookState {
  url: string | null;
  event_types: EventType[];
  consecutive_failures: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  paused_at: number | null;
  paused_reason: PausedReason | null;
  /** When the current run of failures began (§3.1 auto-pause: six hours of it). */
  failing_since?: number | null;
  /** When the next probe is due while auto-paused. */
  next_probe_at?: number | null;
  /** When delivery last resumed: a waiting retry is then due at once (§3.1 drain after recovery). */
  resumed_at?: number | null;
}

export interface Integration {
  id: number;
  slug: string;
  name: string;
  brand_id: number;
  /** `disabled` wins over the webhook pause; `paused` is derived from webhook.paused_at. */
  disabled: boolean;
  /** SHA-256 of the one live API key (§5.2, §5.3). */
  api_key_hash: string;
  webhook_secret: SealedSecret;
  /** The rotated-out secret, still verifying until `expires_at` (§5.4). */
  previous_webhook_secret: { secret: SealedSecret; expires_at: number } | null;
  webhook: WebhookState;
  last_sequence: number;
  horizon_days: number;
  /** Covered property ids (§1 coverage: owned properties only). */
  coverage: number[];
  rate_limit: { limit: number; window_seconds: number };
  created_at: number;
}

export interface Property {
  id: number;
  brand_id: number;
  /** The partner alias; the document types it as a string, so every property has one. */
  external_id: string;
  name: string;
  city: string;
  /** §1: coverage only ever includes properties the brand owner owns outright. */
  ownership: 'owned' | 'cohosted';
  archived: boolean;
  master_property_id: number;
  /** Rates and restrictions for nights without an override. */
  default_rates: NightRates;
  default_restrictions: NightRestrictions;
}

export interface Unit {
  /** The platform unit id (`inventory_id`). */
  id: number;
  property_id: number;
  external_unit_id: string | null;
  name: string;
  active: boolean;
  max_adults: number;
  max_children: number;
}

export type BlockScope = 'everywhere' | 'ota_only';

/** Staff settings for one night of a property (§2.4). */
export interface NightSettings {
  property_id: number;
  date: IsoDate;
  is_blocked: boolean;
  block_scope: BlockScope | null;
  units_cap: number | null;
}

export interface NightRates {
  base_rate: number;
  extra_adult_rate: number;
  extra_child_rate: number;
}

export interface NightRestrictions {
  min_stay: number;
  max_stay: number;
  closed_to_arrival: boolean;
  closed_to_departure: boolean;
  stop_sell: boolean;
}

export interface BookingUnit {
  inventory_id: number;
  external_unit_id: string | null;
  adults: number;
  children: number;
  meal_plan: 'EP' | 'CP' | 'MP' | 'AP' | null;
  stay_price: number;
}

export interface Booking {
  id: number;
  /** Null for bookings made by staff for no integration. */
  integration_id: number | null;
  external_booking_id: string;
  revision: number;
  origin: 'partner' | 'platform';
  status: BookingStatus;
  property_id: number;
  check_in: IsoDate;
  check_out: IsoDate;
  units: BookingUnit[];
  pricing: {
    currency: 'INR';
    total: number;
    advance: number;
    balance: number;
    includes_gst: boolean | null;
    breakdown: Record<string, unknown> | null;
  };
  guest: { name: string; phone_code: string; mobile: string; email: string | null; country: string | null };
  payment: { status: 'paid' | 'partial' | 'unpaid' | null; amount_collected: number; collected_by: 'partner' | 'host' | null; reference: string | null };
  source: { channel: string | null; reference: string | null };
  notes: string | null;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyRecord {
  integration_id: number;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  status: number | null;
  /** The response body exactly as first sent, for byte-for-byte replay (§4.5 rule 1). */
  body: string | null;
  created_at: number;
  expires_at: number;
  /**
   * With a store several processes share: the process that claimed the key
   * (Store.owner), so a claim whose process died can be told from one still
   * being processed (§4.5 rule 3). Absent in one process.
   */
  owner?: string;
}

export interface RateWindow {
  started_at: number;
  count: number;
}

export interface SyncWindow {
  /** When the last accepted sync was charged. */
  last_accepted_at: number | null;
  /** Calls that counted toward the daily cap, newest last (§8). */
  calls: number[];
}

/** Platform-wide switches and settings. */
export interface Settings {
  api_enabled: boolean;
  staff_token_hash: string;
  /** Extra time a create stays "in progress" (spec x-assumption-in-progress). */
  create_latency_ms: number;
  clock: { offsetMs: number; frozenAt: number | null };
}
