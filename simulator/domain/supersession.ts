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
    // A release that drops an event in flight from the set, as if it were delivered (a fault).
    if (older.status === 'delivering' && !faults.has('in-flight-escapes-supersession')) {
      // In flight: an attempt cannot be recalled. It stays in the set: if the attempt fails, the event is still
      // undelivered and this newer event covers it (supersedeFailed, §3.3).
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

/**
 * §3.3 for an event whose attempt was in flight when a newer event covering it was recorded: the attempt failed, so it
 * is still undelivered, and that newer event (in its set since) supersedes it now. Without this it escaped supersession
 * for good and was delivered after all. Returns whether it was superseded.
 */
export function supersedeFailed(tx: Transaction, failed: StoredEvent, faults: Faults = NO_FAULTS): boolean {
  const key = supersessionKey(failed, faults);
  const set = tx.get('supersedable', key);
  if (!set?.sequences.includes(failed.sequence)) return false;
  const covering = set.sequences.some((seq) => {
    if (seq <= failed.sequence) return false;
    const newer = tx.get('events', `${failed.integration_id}:${seq}`);
    return newer !== undefined && (faults.has('supersede-partial-overlap') ? failed.from <= newer.to && failed.to >= newer.from : failed.from >= newer.from && failed.to <= newer.to);
  });
  if (!covering) return false;
  tx.put('events', `${failed.integration_id}:${failed.sequence}`, { ...failed, status: 'superseded', next_attempt_at: null });
  tx.put('supersedable', key, { sequences: set.sequences.filter((s) => s !== failed.sequence) });
  return true;
}
