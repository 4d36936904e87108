/**
 * §3.3: when a newer event of the same type and property fully covers the
 * window of an event that is still undelivered, the older one becomes
 * `superseded`: left out of replay unless asked for, never delivered, never
 * to be applied. booking.changed events supersede only older events of the
 * same booking (spec x-assumption on BookingChangedEvent).
 */
import type { StoredEvent } from './event-records.ts';
import type { Transaction } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';

/** Statuses of an event still waiting to be delivered; `delivering` is in flight and is left alone. */
const UNDELIVERED = new Set(['pending', 'failed']);

/** What a newer event may supersede: the same integration, type and property (and booking). Two faults widen it. */
export function supersessionKey(e: Pick<StoredEvent, 'integration_id' | 'type' | 'property_id' | 'booking_id'>, faults: Faults = NO_FAULTS): string {
  const type = faults.has('supersede-across-types') ? '*' : e.type;
  const booking = faults.has('supersede-across-bookings') ? '*' : e.booking_id ?? '';
  return `${e.integration_id}|${type}|${e.property_id}|${booking}`;
}

/** Supersedes what `newer` covers and registers `newer` as supersedable; returns how many were superseded. */
export function supersede(tx: Transaction, newer: StoredEvent, faults: Faults = NO_FAULTS): number {
  const key = supersessionKey(newer, faults);
  const kept: number[] = [];
  let count = 0;
  for (const seq of tx.get('supersedable', key)?.sequences ?? []) {
    const eventKey = `${newer.integration_id}:${seq}`;
    const older = tx.get('events', eventKey);
    if (!older) continue;
    if (older.status === 'delivering') {
      // In flight: it may still fail and become supersedable again.
      kept.push(seq);
      continue;
    }
    if (!UNDELIVERED.has(older.status) && !(faults.has('supersede-delivered') && older.status === 'delivered')) continue;
    // A release that supersedes on any overlap, not only a full cover (a fault).
    const covered = faults.has('supersede-partial-overlap') ? older.from <= newer.to && older.to >= newer.from : older.from >= newer.from && older.to <= newer.to;
    if (covered) {
      tx.put('events', eventKey, { ...older, status: 'superseded', next_attempt_at: null });
      count += 1;
    } else kept.push(seq);
  }
  kept.push(newer.sequence);
  tx.put('supersedable', key, { sequences: kept });
  return count;
}

/** Takes a delivered (or otherwise settled) event out of the supersedable set. */
export function settleSupersedable(tx: Transaction, event: StoredEvent, faults: Faults = NO_FAULTS): void {
  const key = supersessionKey(event, faults);
  const set = tx.get('supersedable', key);
  if (set) tx.put('supersedable', key, { sequences: set.sequences.filter((s) => s !== event.sequence) });
}
