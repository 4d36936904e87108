/**
 * §4.6 GET /events: events after a cursor, read by sequence from the
 * per-integration index (a page touches only the events it examines, never
 * the whole log), with the top-level cursor and 30-day retention (§6.7).
 */
import { timestamp } from '../../protocol/calendar.ts';
import type { StoredEvent } from './event-records.ts';
import { eventKey, RETENTION_DAYS } from './event-log.ts';
import type { EventType, Integration } from './model.ts';
import type { Transaction } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';
import { DEFAULT_READINGS, type Readings } from './readings.ts';
import { notFound } from './errors.ts';

const DAY_MS = 86_400_000;
/**
 * A page stops after examining this many events even when filters matched
 * fewer than `limit`: `next_after_sequence` then moves past what was
 * examined and `has_more` stays true (spec x-assumption on listEvents).
 */
export const MAX_EXAMINED_PER_PAGE = 5000;

export interface ReplayQuery {
  after_sequence: number;
  limit: number;
  property_id?: number;
  'types[]'?: EventType[];
  include_superseded: boolean;
}

export interface ReplayPage {
  rows: StoredEvent[];
  cursor: { after_sequence: number; next_after_sequence: number; has_more: boolean; latest_sequence: number; retention_days: number };
}

/** Drops events past retention from the front of the log; returns the first retained sequence. */
export function enforceRetention(tx: Transaction, integrationId: number, now: number, faults: Faults = NO_FAULTS): number {
  const stream = tx.get('eventStreams', String(integrationId));
  if (!stream) return 1;
  // A release that keeps 29 days while retention_days says 30 (a fault).
  const cutoff = now - (faults.has('retention-29-days') ? RETENTION_DAYS - 1 : RETENTION_DAYS) * DAY_MS;
  let first = stream.first_retained;
  let undelivered = stream.undelivered;
  // An attempt in flight stops the sweep: its outcome lands on the event first.
  for (let e = tx.get('events', eventKey(integrationId, first)); e && e.occurred_at < cutoff && e.status !== 'delivering'; e = tx.get('events', eventKey(integrationId, first))) {
    // An event that leaves retention undelivered is dead (spec EventRow status x-assumption); it is then gone.
    // A release that counts every event leaving retention off the count (a fault): delivered ones were never on it, so
    // after a healthy month the count goes below 0 (§2.1: events waiting or being retried, 0 when healthy).
    if (e.status === 'pending' || e.status === 'failed' || faults.has('retention-uncounts-delivered')) undelivered -= 1;
    tx.delete('events', eventKey(integrationId, first));
    first += 1;
    // A release whose sweep lets one event go per read (a fault): the rest stay replayable past 30 days.
    if (faults.has('retention-sweeps-one')) break;
  }
  if (first !== stream.first_retained) tx.put('eventStreams', String(integrationId), { ...stream, first_retained: first, undelivered });
  return first;
}

export function replay(tx: Transaction, integration: Integration, q: ReplayQuery, now: number, faults: Faults = NO_FAULTS, readings: Readings = DEFAULT_READINGS): ReplayPage {
  if (q.property_id !== undefined && readings.has('events-foreign-property-404') && !integration.coverage.includes(q.property_id)) throw notFound();
  const first = enforceRetention(tx, integration.id, now, faults);
  const latest = tx.get('integrations', String(integration.id))?.last_sequence ?? integration.last_sequence;
  const types = q['types[]'] && q['types[]'].length > 0 ? new Set(q['types[]']) : null;
  const rows: StoredEvent[] = [];
  let seq = Math.max(q.after_sequence + 1, first);
  let examined = 0;
  // A release whose property filter forgets the integration (a fault): §1, another integration's events are never shown.
  if (q.property_id !== undefined && faults.has('events-filter-any-integration') && !integration.coverage.includes(q.property_id)) {
    rows.push(...Array.from(tx.values('events')).filter((e) => e.property_id === q.property_id && e.sequence > q.after_sequence).slice(0, q.limit));
    seq = latest + 1;
  }
  while (seq <= latest && rows.length < q.limit && examined < MAX_EXAMINED_PER_PAGE) {
    const e = tx.get('events', eventKey(integration.id, seq));
    examined += 1;
    if (e && (!types || types.has(e.type)) && (q.property_id === undefined || e.property_id === q.property_id) && (q.include_superseded || e.status !== 'superseded' || faults.has('superseded-in-replay'))) {
      rows.push(e);
    }
    seq += 1;
  }
  // A release that treats reading as processing: what a page returns counts as delivered.
  if (faults.has('replay-acknowledges')) acknowledge(tx, integration.id, rows, now);
  const next = Math.max(q.after_sequence, seq - 1) + (faults.has('cursor-off-by-one') && rows.length === q.limit && seq - 1 < latest ? 1 : 0);
  return {
    rows,
    cursor: { after_sequence: q.after_sequence, next_after_sequence: next, has_more: next < latest, latest_sequence: latest, retention_days: RETENTION_DAYS },
  };
}

// Stryker disable all: runs only under the replay-acknowledges fault (conformance --mutants proves it caught), not the platform's behaviour.
function acknowledge(tx: Transaction, integrationId: number, rows: StoredEvent[], now: number): void {
  const waiting = rows.filter((e) => e.status === 'pending' || e.status === 'failed');
  for (const e of waiting) tx.put('events', eventKey(integrationId, e.sequence), { ...e, status: 'delivered', delivered_at: now, next_attempt_at: null });
  const stream = tx.get('eventStreams', String(integrationId));
  if (stream && waiting.length > 0) tx.put('eventStreams', String(integrationId), { ...stream, undelivered: Math.max(0, stream.undelivered - waiting.length) });
}
// Stryker restore all

/** The page as JSON text, each row's `event` spliced in as stored so it is byte-identical to the delivery. */
export function replayText(page: ReplayPage, faults: Faults = NO_FAULTS): string {
  const rows = page.rows.map((e) =>
    `{"sequence":${e.sequence},"status":${JSON.stringify(e.status)},"delivered_at":${e.delivered_at === null || faults.has('delivered-at-never-shown') ? 'null' : JSON.stringify(timestamp(e.delivered_at))},"event":${e.body}}`);
  return `{"success":true,"message":"Events retrieved.","data":[${rows.join(',')}],"cursor":${JSON.stringify(page.cursor)}}`;
}
