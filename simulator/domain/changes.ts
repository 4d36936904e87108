/**
 * The event-recording port. Every change the document says emits events
 * (§3.2, §4.5 rule 9, §6.5) is reported here, inside the transaction that
 * makes it, so a change and its events commit together or not at all. The
 * event log that turns changes into per-integration sequenced events plugs in
 * behind this port.
 */
import type { IsoDate } from '../../protocol/calendar.ts';
import type { Transaction } from '../store/store.ts';

export type Change =
  | { kind: 'availability'; property_id: number; from: IsoDate; to: IsoDate }
  | { kind: 'rates'; property_id: number; from: IsoDate; to: IsoDate }
  | { kind: 'restrictions'; property_id: number; from: IsoDate; to: IsoDate }
  | { kind: 'inventory'; property_id: number }
  | { kind: 'property'; property_id: number }
  | { kind: 'booking'; booking_id: number; origin: 'partner' | 'platform' };

export interface ChangeRecorder {
  record(tx: Transaction, change: Change): void;
}

// Stryker disable all: the log unit tests keep; a running simulator keeps none (simulator.ts)
/** Keeps committed changes in memory, in order; for tests and until an event log is plugged in. */
export class ChangeLog implements ChangeRecorder {
  readonly changes: Change[] = [];

  record(tx: Transaction, change: Change): void {
    tx.onCommit(() => this.changes.push(change));
  }
}
