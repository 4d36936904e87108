/**
 * §4.7 POST /sync: validation first, then the charge (one accepted sync per
 * 24 hours, six calls per rolling day including refusals), then a queued job
 * that emits one event per type, per property, per calendar month within the
 * horizon, property by property, in sequence order.
 */
import { addDays, daysBetween, endOfMonth, type IsoDate } from '../../protocol/calendar.ts';
import { DomainError } from './errors.ts';
import { eventKey, horizonOf, receives, type EventLog } from './event-log.ts';
import type { SyncJob } from './event-records.ts';
import type { EventType, Integration } from './model.ts';
import { windowedPayload } from './payloads.ts';
import type { Transaction } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';
import { DEFAULT_READINGS, type Readings } from './readings.ts';

export const SYNC_INTERVAL_MS = 24 * 3_600_000;
export const SYNC_DAILY_CAP = 6;

export const SYNC_TYPES = ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed'] as const;
type SyncType = (typeof SYNC_TYPES)[number];

/** §4.7: short names and `.changed` spellings both accepted; answered as `.changed` names, in document order. */
export function normaliseTypes(types: string[] | undefined, faults: Faults = NO_FAULTS): SyncType[] {
  // A release whose default is the commonest type rather than all five (a fault).
  if (!types && faults.has('sync-default-types-availability-only')) return ['availability.changed'];
  if (!types) return [...SYNC_TYPES];
  // A release that queues every type whatever the body names (a fault).
  if (faults.has('sync-types-ignored')) return [...SYNC_TYPES];
  const wanted = new Set(types.map((t) => (t.endsWith('.changed') ? t : `${t}.changed`)));
  return SYNC_TYPES.filter((t) => wanted.has(t));
}

// Stryker disable all: only the sync-changed-spelling-refused fault answers with it (conformance --mutants proves it caught)
/** Fault `sync-changed-spelling-refused`: a release whose enum holds only the short names refuses each `.changed` entry. */
export function changedSpellingErrors(body: unknown, faults: Faults): Record<string, string[]> {
  const types = (body as SyncRequest | null)?.types;
  if (!faults.has('sync-changed-spelling-refused') || !Array.isArray(types)) return {};
  return Object.fromEntries(types.flatMap((t, i) => (typeof t === 'string' && t.endsWith('.changed') ? [[`types.${i}`, ['Must be one of: availability, rates, restrictions, inventory, property.']]] : [])));
}
// Stryker restore all

/** Calendar-month chunks from `from` to `to` inclusive (§4.7; months of the platform zone). */
export function monthChunks(from: IsoDate, to: IsoDate): { from: IsoDate; to: IsoDate }[] {
  const out: { from: IsoDate; to: IsoDate }[] = [];
  // Stops on reaching `to`, never by comparing a day past it (past 9999-12-31 the text sorts first).
  for (let start = from; start <= to; ) {
    const end = endOfMonth(start);
    out.push({ from: start, to: end < to ? end : to });
    if (end >= to) break;
    start = addDays(end, 1);
  }
  return out;
}

// Stryker disable all: only the sync-chunks-half-months fault runs it
/** A month's chunk split on the 15th (only for the `sync-chunks-half-months` fault). */
function halves(chunk: { from: IsoDate; to: IsoDate }): { from: IsoDate; to: IsoDate }[] {
  const mid = `${chunk.from.slice(0, 8)}15`;
  return chunk.from < mid && mid < chunk.to ? [{ from: chunk.from, to: mid }, { from: addDays(mid, 1), to: chunk.to }] : [chunk];
}
// Stryker restore all

// Stryker disable all: only the chunk-straddles-months fault runs it
/** Fixed-length chunks (only for the `chunk-straddles-months` fault). */
function fixedChunks(from: IsoDate, to: IsoDate, days: number): { from: IsoDate; to: IsoDate }[] {
  const out: { from: IsoDate; to: IsoDate }[] = [];
  for (let start = from; start <= to; ) {
    const end = addDays(start, days - 1);
    out.push({ from: start, to: end < to ? end : to });
    if (daysBetween(end, to) <= 0) break;
    start = addDays(start, days);
  }
  return out;
}
// Stryker restore all

export interface SyncRequest {
  property_ids?: number[];
  types?: string[];
}

export type SyncOutcome =
  | { kind: 'queued'; job: SyncJob; reply: { queued_properties: number; horizon_days: number; types: SyncType[] } }
  | { kind: 'refused'; error: DomainError };

/**
 * Validates, then charges. A refusal is returned, not thrown, because it is
 * charged too ("refusals included") and its transaction must commit.
 */
export function requestSync(tx: Transaction, integration: Integration, body: SyncRequest, now: number, faults: Faults = NO_FAULTS, readings: Readings = DEFAULT_READINGS): SyncOutcome | { kind: 'refused-charged'; error: DomainError } {
  // A release whose cap is 100 instead of §8's 500.
  if (faults.has('sync-property-cap-100') && (body.property_ids?.length ?? 0) > 100) throw new DomainError('VALIDATION_FAILED', { property_ids: ['At most 100 properties.'] });
  const ids = body.property_ids ?? integration.coverage;
  // A release that checks property_ids against every platform property, not the coverage (a fault): §4.7 each covered.
  const known = (id: number) => (faults.has('sync-foreign-property-accepted') ? tx.get('properties', String(id)) !== undefined : integration.coverage.includes(id));
  const uncovered = ids.findIndex((id) => !known(id));
  const notMapped = uncovered < 0 ? null : new DomainError('PROPERTY_NOT_MAPPED', { [`property_ids.${uncovered}`]: ['Unknown or uncovered property.'] });
  if (notMapped && faults.has('sync-charged-before-validation')) {
    tx.put('syncWindows', String(integration.id), { last_accepted_at: now, calls: [...(tx.get('syncWindows', String(integration.id))?.calls ?? []), now] });
    return { kind: 'refused-charged', error: notMapped };
  }
  if (notMapped && readings.has('sync-422-counts-toward-cap')) {
    countRefusal(tx, integration, now);
    return { kind: 'refused-charged', error: notMapped };
  }
  if (notMapped) throw notMapped;
  const types = normaliseTypes(body.types, faults);

  // Validation passed: only now is anything charged (§4.7).
  const window = tx.get('syncWindows', String(integration.id)) ?? { last_accepted_at: null, calls: [] };
  const calls = window.calls.filter((t) => now - t < SYNC_INTERVAL_MS);
  calls.push(now);
  const refuse = (error: DomainError): SyncOutcome => {
    tx.put('syncWindows', String(integration.id), { ...window, calls });
    return { kind: 'refused', error };
  };
  // A release that allows seven calls a day (a fault).
  const cap = faults.has('sync-cap-7') ? SYNC_DAILY_CAP + 1 : SYNC_DAILY_CAP;
  if (calls.length > cap) {
    // §7 Retry-After holds: the refusals in the window count too (§8 "refusals included", this one among them), so a
    // call goes through once all but cap - 1 of them are a day old: the oldest is not enough when several came together.
    // A release that answers the cap with a fixed Retry-After of a second (a fault).
    const retry = faults.has('sync-cap-retry-after-1s') ? 1 : Math.max(1, Math.ceil((calls[calls.length - cap]! + SYNC_INTERVAL_MS - now) / 1000));
    return refuse(new DomainError('RATE_LIMITED', {}, 'At most six sync calls a day, refusals included.', { 'Retry-After': String(retry) }));
  }
  // A release whose interval is 23 hours (a fault).
  const interval = faults.has('sync-interval-23h') ? SYNC_INTERVAL_MS - 3_600_000 : SYNC_INTERVAL_MS;
  if (window.last_accepted_at !== null && now - window.last_accepted_at < interval) {
    const retry = Math.max(1, Math.ceil((window.last_accepted_at + interval - now) / 1000));
    return refuse(new DomainError('SYNC_TOO_SOON', { retry_after: retry }, undefined, { 'Retry-After': String(retry) }));
  }
  tx.put('syncWindows', String(integration.id), { last_accepted_at: now, calls });
  const horizon = horizonOf(integration, now);
  const job: SyncJob = {
    integration_id: integration.id,
    accepted_at: now,
    property_ids: [...new Set(ids)],
    types,
    months: faults.has('chunk-straddles-months') ? fixedChunks(horizon.from, horizon.to, 30)
      : faults.has('sync-chunks-half-months') ? monthChunks(horizon.from, horizon.to).flatMap(halves) : monthChunks(horizon.from, horizon.to),
    next: 0,
  };
  tx.put('syncJobs', syncJobKey(job), job);
  return { kind: 'queued', job, reply: { queued_properties: job.property_ids.length, horizon_days: integration.horizon_days, types } };
}

// Stryker disable all: only the sync-422-counts-toward-cap reading runs it (the other reading of the 8.L11 note, which conformance/readings.test.ts runs the suite under)
/**
 * 8.L11 note, under the reading `sync-422-counts-toward-cap`: a refused
 * (422) sync call counts toward the six calls a day, though it never opens
 * the 24-hour interval (§4.7). The HTTP layer refuses invalid bodies before
 * the domain sees them and calls this for each; the default reading counts
 * nothing.
 */
export function countRefusal(tx: Transaction, integration: Integration, now: number): void {
  const window = tx.get('syncWindows', String(integration.id)) ?? { last_accepted_at: null, calls: [] };
  tx.put('syncWindows', String(integration.id), { ...window, calls: [...window.calls.filter((t) => now - t < SYNC_INTERVAL_MS), now] });
}
// Stryker restore all

export function syncJobKey(job: Pick<SyncJob, 'integration_id' | 'accepted_at'>): string {
  return `${job.integration_id}:${job.accepted_at}`;
}

/**
 * Emits the events of the job's next property (every type, every month) in
 * one transaction; returns false when the job is finished and removed.
 */
export function runSyncStep(tx: Transaction, log: EventLog, key: string, faults: Faults = NO_FAULTS): boolean {
  const job = tx.get('syncJobs', key);
  if (!job) return false;
  const integration = tx.get('integrations', String(job.integration_id));
  const propertyId = job.property_ids[job.next];
  if (!integration || propertyId === undefined) {
    tx.delete('syncJobs', key);
    return false;
  }
  const property = tx.get('properties', String(propertyId));
  // A disabled integration records nothing (§3.1); coverage or subscriptions may have changed since.
  if (property && integration.coverage.includes(propertyId)) {
    // A release that re-sends what the log already holds for the property, old ids and sequences (a fault).
    if (faults.has('sync-reposts-old-events')) repostDelivered(tx, integration.id, propertyId, job.types);
    // A release that builds sync events from the snapshot builders only: no inventory or property events (a fault).
    const emitted = faults.has('sync-omits-inventory-and-property') ? job.types.filter((t) => t !== 'inventory.changed' && t !== 'property.changed') : job.types;
    for (const type of emitted.filter((t) => receives(integration, t as EventType, faults))) {
      for (const month of job.months) {
        const sequence = log.append(tx, integration, { type, property, from: month.from, to: month.to, data: windowedPayload(tx, type, property, month.from, month.to) });
        // A release whose sync writes the log but bypasses the delivery queue (a fault).
        if (faults.has('sync-events-log-only')) settleUnposted(tx, integration.id, sequence);
      }
    }
  }
  const next = job.next + 1;
  if (next >= job.property_ids.length) tx.delete('syncJobs', key);
  else tx.put('syncJobs', key, { ...job, next });
  return next < job.property_ids.length;
}

// Stryker disable all: only the sync-events-log-only fault runs it
/** Fault `sync-events-log-only`: the event is marked delivered without being posted. */
function settleUnposted(tx: Transaction, integrationId: number, sequence: number): void {
  const key = eventKey(integrationId, sequence);
  const event = tx.get('events', key);
  if (!event || event.status !== 'pending') return;
  tx.put('events', key, { ...event, status: 'delivered', delivered_at: event.occurred_at });
  const stream = tx.get('eventStreams', String(integrationId))!;
  tx.put('eventStreams', String(integrationId), { ...stream, undelivered: Math.max(0, stream.undelivered - 1) });
}
// Stryker restore all

// Stryker disable all: only the sync-reposts-old-events fault runs it
/** Fault `sync-reposts-old-events`: the property's delivered events of the synced types go back in the queue as they were. */
function repostDelivered(tx: Transaction, integrationId: number, propertyId: number, types: readonly string[]): void {
  const stream = tx.get('eventStreams', String(integrationId));
  if (!stream) return;
  let head = stream.next_delivery ?? 1;
  let reposted = 0;
  for (const event of tx.values('events')) {
    if (event.integration_id !== integrationId || event.property_id !== propertyId || event.status !== 'delivered' || !types.includes(event.type)) continue;
    tx.put('events', eventKey(integrationId, event.sequence), { ...event, status: 'pending', delivered_at: null, next_attempt_at: null });
    head = Math.min(head, event.sequence);
    reposted += 1;
  }
  tx.put('eventStreams', String(integrationId), { ...stream, undelivered: stream.undelivered + reposted, next_delivery: head });
}
// Stryker restore all
