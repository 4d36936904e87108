/**
 * What a restart must undo: work that was in flight when the previous
 * process stopped, and that nothing will ever finish now. Runs once, in one
 * transaction, before the simulator serves (createSimulator).
 */
import { headEvent } from './delivery.ts';
import { eventKey } from './event-log.ts';
import type { StoredEvent } from './event-records.ts';
import type { IdempotencyRecord } from './model.ts';
import type { Transaction } from '../store/store.ts';

// Stryker disable all: restart and store-failure recovery, the simulator's own durability: a conformance run starts a fresh world per check (nothing in flight to recover) and never restarts the process or fails its store (its tests: simulator/store/restart.test.ts, crash.test.ts)

export interface RecoveryReport {
  /** Idempotency keys released: their request never got an answer. */
  releasedKeys: number;
  /** Events put back in the delivery queue: their attempt's outcome was never recorded. */
  requeuedEvents: number;
}

/**
 * §4.5 rule 3: a key still `in_progress` belonged to a request that died with
 * the process; keeping it would answer every retry 409 IN_PROGRESS for 24
 * hours, so it is released (the retry then runs afresh). §6.2: an event left
 * `delivering` may or may not have reached the partner; it goes back to
 * `failed`, due at once, and is delivered again (at-least-once delivery; the
 * attempt it already used still counts).
 */
export function recoverAfterRestart(tx: Transaction, now: number): RecoveryReport {
  const report: RecoveryReport = { releasedKeys: 0, requeuedEvents: 0 };
  // Collected first, written after: the scan reads the committed table, not this transaction's writes.
  const keys: IdempotencyRecord[] = [];
  for (const r of tx.values('idempotency')) if (r.state === 'in_progress') keys.push(r);
  // §6.2 one at a time, in order: only the head of an integration's queue is ever in flight, so
  // only heads are looked at (a restart never reads the whole event log).
  const events: StoredEvent[] = [];
  for (const integration of tx.values('integrations')) {
    const head = headEvent(tx, integration);
    if (head?.status === 'delivering') events.push(head);
  }
  for (const r of keys) tx.delete('idempotency', `${r.integration_id}:${r.key}`);
  for (const e of events) tx.put('events', eventKey(e.integration_id, e.sequence), { ...e, status: 'failed', next_attempt_at: now });
  report.releasedKeys = keys.length;
  report.requeuedEvents = events.length;
  return report;
}

/**
 * One integration's head put back in the queue when its attempt stopped
 * before its outcome was recorded (the store refused a write mid-attempt,
 * issue 17): the same rule as a restart's, for one queue.
 */
export function requeueInFlight(tx: Transaction, integrationId: number, now: number): boolean {
  const integration = tx.get('integrations', String(integrationId));
  const head = integration ? headEvent(tx, integration) : undefined;
  if (head?.status !== 'delivering') return false;
  tx.put('events', eventKey(head.integration_id, head.sequence), { ...head, status: 'failed', next_attempt_at: now });
  return true;
}
