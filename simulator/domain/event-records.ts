/** The event log's records (§2.5, §2.6, §3.3). */
import type { IsoDate } from '../../protocol/calendar.ts';
import type { EventType } from './model.ts';

export const EVENT_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'dead', 'superseded'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export interface StoredEvent {
  integration_id: number;
  sequence: number;
  type: EventType;
  property_id: number;
  /** Set for booking.changed: supersession is per booking, not per window. */
  booking_id: number | null;
  from: IsoDate;
  to: IsoDate;
  occurred_at: number;
  status: EventStatus;
  delivered_at: number | null;
  /** The envelope exactly as posted and replayed (§2.6: byte for byte). */
  body: string;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at?: number | null;
}

export interface EventStream {
  /** Lowest sequence still retained (§6.7: 30 days). */
  first_retained: number;
  /** Events waiting or being retried (§2.1 webhook.undelivered_events). */
  undelivered: number;
  /** Lowest sequence not yet settled (delivered, superseded or dead): the head of the delivery queue. */
  next_delivery?: number;
}

export interface SupersedableSet {
  sequences: number[];
}

export interface SyncJob {
  integration_id: number;
  accepted_at: number;
  property_ids: number[];
  types: Exclude<EventType, 'booking.changed'>[];
  /** Calendar-month chunks of the horizon, fixed when the sync was accepted (§4.7). */
  months: { from: IsoDate; to: IsoDate }[];
  /** Index into property_ids of the next property to emit. */
  next: number;
}
