/**
 * The per-integration event log (§2.5, §6): turns each recorded change into
 * full-state events for every integration that covers the property and
 * subscribes to the type, with a strictly increasing sequence, inside the
 * transaction of the change. Newer events supersede still-undelivered older
 * ones they fully cover (§3.3).
 */
import { addDays, dateAt, timestamp, type IsoDate } from '../../protocol/calendar.ts';
import type { Change, ChangeRecorder } from './changes.ts';
import type { Clock } from './clock.ts';
import type { Entropy } from './ids.ts';
import type { EventType, Integration, Property } from './model.ts';
import { bookingView } from './bookings.ts';
import { windowedPayload } from './payloads.ts';
import { supersede } from './supersession.ts';
import { ulid } from './ulid.ts';
import type { Faults } from './faults.ts';
import type { StoreReader, Transaction } from '../store/store.ts';
import { API_VERSION } from '../../spec/document-tables.ts';

export const RETENTION_DAYS = 30;

const TYPE_OF: Record<Exclude<Change['kind'], 'booking'>, Exclude<EventType, 'booking.changed'>> = {
  availability: 'availability.changed',
  rates: 'rates.changed',
  restrictions: 'restrictions.changed',
  inventory: 'inventory.changed',
  property: 'property.changed',
};

export function eventKey(integrationId: number, sequence: number): string {
  return `${integrationId}:${sequence}`;
}

/** The horizon of pushed events: today to today + horizon_days − 1 (§2.1 horizon_days). */
export function horizonOf(integration: Integration, now: number): { from: IsoDate; to: IsoDate } {
  const today = dateAt(now);
  return { from: today, to: addDays(today, integration.horizon_days - 1) };
}

export interface AppendInput {
  type: EventType;
  property: Property;
  from: IsoDate;
  to: IsoDate;
  data: unknown;
  booking_id?: number | null;
}

export class EventLog implements ChangeRecorder {
  constructor(private readonly deps: { clock: Clock; entropy: Entropy; faults?: Faults }) {}

  record(tx: Transaction, change: Change): void {
    const now = this.deps.clock.now();
    if (change.kind === 'booking') return this.recordBooking(tx, change.booking_id, now);
    const type = TYPE_OF[change.kind];
    const property = tx.get('properties', String(change.property_id));
    if (!property) return;
    for (const integration of listeners(tx, type, property.id, this.deps.faults)) {
      const horizon = horizonOf(integration, now);
      let from = horizon.from;
      let to = horizon.to;
      if ('from' in change) {
        // §2.1: dates beyond the horizon are not pushed until they come into range. Past nights
        // (a stay may start yesterday, §4.5) are pushed as they change, so snapshots and events agree.
        from = change.from;
        to = change.to < horizon.to || this.deps.faults?.has('horizon-ignored') ? change.to : horizon.to;
        // A release that clips a change wholly beyond the horizon instead of dropping it (a fault): its window ends before it starts.
        if (from > to && !this.deps.faults?.has('beyond-horizon-clipped')) continue;
      }
      this.append(tx, integration, { type, property, from, to, data: windowedPayload(tx, type, property, from, to, this.deps.faults) });
    }
  }

  /** §6.1: every change to a booking of the integration is pushed as booking.changed. */
  private recordBooking(tx: Transaction, bookingId: number, _now: number): void {
    const booking = tx.get('bookings', String(bookingId));
    if (!booking || booking.integration_id === null) return;
    const integration = tx.get('integrations', String(booking.integration_id));
    // A release whose booking events skip the subscription filter (a fault).
    if (!integration || (!receives(integration, 'booking.changed', this.deps.faults) && !this.deps.faults?.has('booking-changed-ignores-subscription'))) return;
    const property = tx.get('properties', String(booking.property_id))!;
    this.append(tx, integration, {
      // A release that takes check_out for the last night (a fault).
      type: 'booking.changed', property, from: booking.check_in, to: addDays(booking.check_out, this.deps.faults?.has('booking-changed-window-to-checkout') ? 0 : -1),
      data: bookingView(tx, booking), booking_id: booking.id,
    });
  }

  /** Issues the next sequence of an integration for one event and stores the envelope as posted. */
  append(tx: Transaction, integration: Integration, input: AppendInput): number {
    const now = this.deps.clock.now();
    const current = tx.get('integrations', String(integration.id))!;
    const reuse = this.deps.faults?.has('sequence-reuse') && current.last_sequence % 5 === 4;
    const sequence = reuse ? current.last_sequence : current.last_sequence + 1;
    tx.put('integrations', String(integration.id), { ...current, last_sequence: sequence });
    // §2.5, field order as documented.
    const envelope = {
      // A release whose ids come from the clock's seconds alone hands one id to every event of the same second.
      id: this.deps.faults?.has('event-id-reused') ? ulid(Math.floor(now / 1000) * 1000, { hex: (n: number) => '0'.repeat(n * 2) }) : ulid(now, this.deps.entropy),
      type: input.type,
      version: this.deps.faults?.has('event-version-wrong') ? '2026-08' : API_VERSION,
      sequence,
      occurred_at: timestamp(now),
      integration: { id: current.id, slug: current.slug },
      property: { doorloom_id: input.property.id, external_id: input.property.external_id, master_property_id: input.property.master_property_id },
      window: { from: input.from, to: input.to },
      data: input.data,
    };
    const event = {
      integration_id: current.id, sequence, type: input.type, property_id: input.property.id, booking_id: input.booking_id ?? null,
      from: input.from, to: input.to, occurred_at: now, status: 'pending' as const, delivered_at: null,
      body: JSON.stringify(envelope), attempts: 0, next_attempt_at: null,
    };
    tx.put('events', eventKey(current.id, sequence), event);
    const stream = tx.get('eventStreams', String(current.id)) ?? { first_retained: 1, undelivered: 0 };
    const superseded = supersede(tx, event, this.deps.faults);
    // A release that keeps counting what it superseded as waiting (a fault).
    tx.put('eventStreams', String(current.id), { ...stream, undelivered: stream.undelivered + 1 - (this.deps.faults?.has('superseded-still-waiting') ? 0 : superseded) });
    return sequence;
  }
}

/** Integrations that receive events of `type` for a property: not disabled, covering it, subscribed (§3.1, §6). */
export function listeners(r: StoreReader, type: EventType, propertyId: number, faults?: Faults): Integration[] {
  return Array.from(r.values('integrations')).filter((i) => i.coverage.includes(propertyId) && receives(i, type, faults));
}

/** §3.1: a disabled integration records nothing; §6: subscription is by webhook.event_types. */
export function receives(integration: Integration, type: EventType, faults?: Faults): boolean {
  // A release that forgets the disabled flag, or the subscription, when it records (faults).
  return (!integration.disabled || Boolean(faults?.has('disabled-records-events')))
    && (integration.webhook.event_types.includes(type) || Boolean(faults?.has('subscription-ignored')));
}
