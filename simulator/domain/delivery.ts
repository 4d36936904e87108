/**
 * Webhook delivery rules (§3.1, §3.3, §6.2, §6.6), pure: what is due next for
 * an integration, and how an attempt's outcome moves the event and the
 * integration's webhook health. The worker that does the HTTP lives in
 * simulator/webhooks/ and calls these inside store transactions.
 */
import { timestamp } from '../../protocol/calendar.ts';
import { API_VERSION } from '../../spec/document-tables.ts';
import { eventKey } from './event-log.ts';
import type { StoredEvent } from './event-records.ts';
import type { Integration } from './model.ts';
import { settleSupersedable, supersedeFailed } from './supersession.ts';
import { enforceRetention } from './replay.ts';
import type { Transaction } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';
import { DEFAULT_READINGS, type Readings } from './readings.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Retry delays after the 1st, 2nd, ... failure; then hourly (spec x-assumptions.webhook-delivery). */
export const RETRY_SCHEDULE_MS = [10 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE];
export const RETRY_AFTER_SCHEDULE_MS = HOUR;
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;
/** §3.1: five consecutive failures with no success for six hours. */
export const AUTO_PAUSE_FAILURES = 5;
export const AUTO_PAUSE_AFTER_MS = 6 * HOUR;

/** The six hours of §3.1, or the five or seven of a release that got them wrong (faults). */
function autoPauseAfterMs(faults: Faults): number {
  if (faults.has('auto-pause-after-5h')) return 5 * HOUR;
  if (faults.has('auto-pause-after-7h')) return 7 * HOUR;
  return AUTO_PAUSE_AFTER_MS;
}
/** Probes while auto-paused (spec webhooks.ping x-assumption). */
export const PROBE_INTERVAL_MS = 5 * MINUTE;

export function retryDelay(attempts: number): number {
  return RETRY_SCHEDULE_MS[attempts - 1] ?? RETRY_AFTER_SCHEDULE_MS;
}

export type Work =
  | { kind: 'deliver'; due: number; event: StoredEvent }
  | { kind: 'probe'; due: number };

/** Statuses that no longer hold up the queue. */
const SETTLED = new Set(['delivered', 'superseded', 'dead']);

/**
 * The head of the integration's queue: the lowest sequence not yet settled.
 * Moves the stored pointer past settled (and expired) events so the search
 * never rescans them.
 */
export function headEvent(tx: Transaction, integration: Integration): StoredEvent | null {
  const stream = tx.get('eventStreams', String(integration.id));
  if (!stream) return null;
  const latest = tx.get('integrations', String(integration.id))?.last_sequence ?? 0;
  let seq = Math.max(stream.next_delivery ?? 1, stream.first_retained);
  let head: StoredEvent | null = null;
  for (; seq <= latest; seq++) {
    const e = tx.get('events', eventKey(integration.id, seq));
    if (e && !SETTLED.has(e.status)) {
      head = e;
      break;
    }
  }
  if (seq !== stream.next_delivery) tx.put('eventStreams', String(integration.id), { ...stream, next_delivery: seq });
  return head;
}

/**
 * What the worker should do next for an integration, and when; null when
 * nothing is to be sent (no URL, disabled, paused by staff or gone, queue
 * empty, or an attempt already in flight: §6.2 one at a time).
 */
export function nextWork(tx: Transaction, integration: Integration, now: number, faults: Faults = NO_FAULTS, readings: Readings = DEFAULT_READINGS): Work | null {
  const w = integration.webhook;
  // A release that treats "no URL" as nothing left to do and settles the queue (a fault): §2.1 says wait for one.
  if (w.url === null && !integration.disabled && faults.has('unconfigured-events-dropped')) {
    for (let head = headEvent(tx, integration); head && head.status !== 'delivering'; head = headEvent(tx, integration)) finishAttempt(tx, head, { status: 204 }, now, faults, readings);
  }
  if (integration.disabled || w.url === null) return null;
  // Probes only for an auto pause (3.1.T4 note), or for any pause under the other reading.
  if (w.paused_at !== null) return w.paused_reason === 'auto' || readings.has('probe-resumes-any-pause') ? { kind: 'probe', due: w.next_probe_at ?? w.paused_at + PROBE_INTERVAL_MS } : null;
  // §6.7: what left retention is not delivered either.
  enforceRetention(tx, integration.id, now, faults);
  const head = headEvent(tx, integration);
  if (!head || head.status === 'delivering') return null;
  if (faults.has('webhook-overtakes') && head.status === 'failed' && (head.next_attempt_at ?? 0) > now) {
    const later = tx.get('events', eventKey(integration.id, head.sequence + 1));
    if (later && later.status === 'pending') return { kind: 'deliver', due: now, event: later };
  }
  if (faults.has('webhook-pair-swapped') && head.status === 'pending' && head.type === 'availability.changed') {
    // A release that sends the booking first: the create's booking.changed overtakes its availability.changed.
    const pair = tx.get('events', eventKey(integration.id, head.sequence + 1));
    // One create's pair: recorded back to back (a busy clock may tick between the two).
    if (pair && pair.status === 'pending' && pair.type === 'booking.changed' && pair.occurred_at - head.occurred_at < 1000) return { kind: 'deliver', due: pair.occurred_at, event: pair };
  }
  let due = head.next_attempt_at ?? head.occurred_at;
  // After a resume the waiting retry goes at once: the backlog drains in order (§3.1).
  if (w.resumed_at != null && head.status === 'failed' && w.resumed_at >= (head.last_attempt_at ?? 0)) due = Math.min(due, w.resumed_at);
  return { kind: 'deliver', due, event: head };
}

/** Marks the head in flight; it is then neither superseded nor sent twice. */
export function beginAttempt(tx: Transaction, event: StoredEvent, now: number): StoredEvent {
  const next = { ...event, status: 'delivering' as const, attempts: event.attempts + 1, next_attempt_at: null, last_attempt_at: now };
  tx.put('events', eventKey(event.integration_id, event.sequence), next);
  return next;
}

/** An attempt's outcome: the HTTP status, or none (time-out, refused connection). */
export type Outcome = { status: number } | { error: string };

export function isSuccess(o: Outcome): boolean {
  return 'status' in o && o.status >= 200 && o.status < 300;
}

export function finishAttempt(tx: Transaction, event: StoredEvent, outcome: Outcome, now: number, faults: Faults = NO_FAULTS, readings: Readings = DEFAULT_READINGS): void {
  const key = eventKey(event.integration_id, event.sequence);
  // Gone from the log (past retention) while in flight: only the webhook's health is recorded.
  const stored = tx.get('events', key);
  const current = stored ?? event;
  const integration = tx.get('integrations', String(event.integration_id))!;
  const w = integration.webhook;
  if (isSuccess(outcome)) {
    if (stored) tx.put('events', key, { ...current, status: 'delivered', delivered_at: now, next_attempt_at: null });
    if (!faults.has('supersede-delivered')) settleSupersedable(tx, current, faults);
    const stream = tx.get('eventStreams', String(event.integration_id))!;
    // The head moves past the delivered event; an event delivered out of turn (a fault) leaves it where it is.
    const head = stream.next_delivery ?? event.sequence;
    tx.put('eventStreams', String(event.integration_id), { ...stream, undelivered: Math.max(0, stream.undelivered - 1), next_delivery: head === event.sequence ? event.sequence + 1 : head });
    tx.put('integrations', String(integration.id), {
      ...integration,
      webhook: { ...w, consecutive_failures: faults.has('failures-not-reset') ? w.consecutive_failures : 0, last_success_at: now, failing_since: null },
    });
    return;
  }
  const gone = 'status' in outcome && outcome.status === 410;
  // A release that stamps every attempt as delivered_at: a failed row then claims a delivery.
  const stamped = faults.has('delivered-at-on-failure') ? { delivered_at: now } : {};
  if (stored) {
    const failed = { ...current, ...stamped, status: 'failed' as const, next_attempt_at: gone ? now : now + retryDelay(current.attempts) };
    tx.put('events', key, failed);
    // §3.3: covered while in flight, it is superseded now that it is undelivered; no longer waiting (§2.1).
    if (supersedeFailed(tx, failed, faults)) {
      const stream = tx.get('eventStreams', String(event.integration_id))!;
      tx.put('eventStreams', String(event.integration_id), { ...stream, undelivered: stream.undelivered - 1 });
    }
  }
  const failures = w.consecutive_failures + 1;
  const failingSince = w.failing_since ?? now;
  // 3.1.T1 note: by default the six hours run from the first failure after the last success; the other reading, from that success.
  const noSuccessSince = readings.has('six-hours-from-last-success') && w.last_success_at !== null ? w.last_success_at : failingSince;
  let webhook = { ...w, consecutive_failures: failures, last_failure_at: now, failing_since: failingSince };
  if (w.paused_at === null) {
    // §3.1: a 410 pauses at once (gone); sustained failure pauses automatically.
    if (gone) webhook = { ...webhook, paused_at: now, paused_reason: 'gone', next_probe_at: null };
    // A release that pauses on the count alone, without the six hours of no success; or after five or seven hours.
    // A release that pauses once the six hours are up, whatever the count (a fault).
    else if ((failures >= AUTO_PAUSE_FAILURES || faults.has('auto-pause-on-six-hours-alone')) && (now - noSuccessSince >= autoPauseAfterMs(faults) || faults.has('auto-pause-without-six-hours'))) {
      webhook = { ...webhook, paused_at: now, paused_reason: 'auto', next_probe_at: now + PROBE_INTERVAL_MS };
    }
  }
  tx.put('integrations', String(integration.id), { ...integration, webhook });
}

/** §3.1: the first 2xx to a probe resumes delivery, which drains in order. */
export function finishProbe(tx: Transaction, integrationId: number, outcome: Outcome, now: number, faults: Faults = NO_FAULTS): void {
  const integration = tx.get('integrations', String(integrationId))!;
  const w = integration.webhook;
  if (w.paused_at === null) return;
  // A release whose probe records the answer but never resumes: only staff can.
  const webhook = isSuccess(outcome) && !faults.has('probe-never-resumes')
    ? { ...w, paused_at: null, paused_reason: null, consecutive_failures: 0, failing_since: null, next_probe_at: null, resumed_at: now }
    : { ...w, next_probe_at: now + PROBE_INTERVAL_MS };
  tx.put('integrations', String(integrationId), { ...integration, webhook });
}

/** §6.6: the ping reports last_sequence without consuming a sequence (spec webhooks.ping). */
export function pingBody(integration: Integration, now: number): string {
  return JSON.stringify({
    type: 'ping',
    version: API_VERSION,
    occurred_at: timestamp(now),
    integration: { id: integration.id, slug: integration.slug },
    last_sequence: integration.last_sequence,
  });
}
