/**
 * The event side of the partner API (§4.6–§4.8): replay, snapshots, full
 * re-sync and the property list, over the same injected dependencies as
 * Platform plus the event log.
 */
import type { Readings } from './readings.ts';
import type { Clock } from './clock.ts';
import { success, type Reply } from './envelope.ts';
import type { EventLog } from './event-log.ts';
import { inventoryPayload, propertyPayload } from './payloads.ts';
import { replay, replayText, type ReplayQuery } from './replay.ts';
import { coveredProperty, snapshot, type SnapshotKind } from './snapshots.ts';
import { changedSpellingErrors, countRefusal, requestSync, runSyncStep, type SyncRequest } from './sync.ts';
import type { Caller } from './platform.ts';
import type { Property } from './model.ts';
import type { Store } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';

// Stryker disable all: message wording: an envelope's message is a string, never a text (§7)
const SNAPSHOT_MESSAGE: Record<SnapshotKind, string> = {
  availability: 'Availability snapshot.',
  rates: 'Rates snapshot.',
  restrictions: 'Restrictions snapshot.',
};
// Stryker restore all

export class EventApi {
  constructor(private readonly deps: { store: Store; clock: Clock; log: EventLog; faults?: Faults; readings?: Readings }) {}

  /** §4.6: the page as JSON text (events spliced in byte for byte). */
  listEvents(caller: Caller, query: ReplayQuery): string {
    return this.deps.store.transaction((tx) => replayText(replay(tx, caller.integration, query, this.deps.clock.now(), this.deps.faults, this.deps.readings), this.deps.faults));
  }

  /** §4.8 */
  snapshot(caller: Caller, kind: SnapshotKind, ref: string, from: string, to: string): Reply {
    const data = snapshot(this.deps.store, caller.integration, kind, ref, from, to, this.deps.clock.now(), this.deps.faults);
    return { status: 200, body: success(SNAPSHOT_MESSAGE[kind], data) };
  }

  /** §4.8: the covered property a snapshot's `{property}` names (platform id or alias); NOT_FOUND otherwise. */
  coveredProperty(caller: Caller, ref: string): Property {
    return coveredProperty(this.deps.store, caller.integration, ref, this.deps.faults);
  }

  /** §4.7: 202 with the queued job's summary; refusals are charged, then thrown. */
  requestSync(caller: Caller, body: SyncRequest): Reply {
    const outcome = this.deps.store.transaction((tx) => {
      const integration = tx.get('integrations', String(caller.integration.id)) ?? caller.integration;
      return requestSync(tx, integration, body, this.deps.clock.now(), this.deps.faults, this.deps.readings);
    });
    if (outcome.kind === 'refused' || outcome.kind === 'refused-charged') throw outcome.error;
    return { status: 202, body: success('Sync queued; events follow on the webhook in sequence order.', outcome.reply) };
  }

  /** Refusals of a sync body beyond the contract's (only a fault has any). */
  // Stryker disable all: only the sync-changed-spelling-refused fault has such refusals (conformance --mutants proves it caught)
  syncBodyErrors(body: unknown): Record<string, string[]> | null {
    const errors = changedSpellingErrors(body, this.deps.faults ?? NO_FAULTS);
    return Object.keys(errors).length > 0 ? errors : null;
  }
  // Stryker restore all

  /**
   * A sync the HTTP layer refused before the domain saw it (422, the body
   * invalid against the contract): counted toward the daily cap only under
   * the reading `sync-422-counts-toward-cap` (8.L11 note).
   */
  // Stryker disable all: only the sync-422-counts-toward-cap reading counts a refused sync (the other reading of the 8.L11 note, which conformance/readings.test.ts runs the suite under)
  refusedSync(caller: Caller): void {
    if (!this.deps.readings?.has('sync-422-counts-toward-cap')) return;
    this.deps.store.transaction((tx) => {
      const integration = tx.get('integrations', String(caller.integration.id)) ?? caller.integration;
      countRefusal(tx, integration, this.deps.clock.now());
    });
  }
  // Stryker restore all

  /** The property list (spec x-assumption on listProperties): covered properties by id, paged like GET /bookings. */
  listProperties(caller: Caller, page: number, perPage: number): Reply {
    const store = this.deps.store;
    const all = caller.integration.coverage.map((id) => store.get('properties', String(id))).filter((p): p is Property => p !== undefined);
    const items = all.slice((page - 1) * perPage, page * perPage).map((p) => ({
      doorloom_id: p.id,
      external_id: p.external_id,
      property: propertyPayload(p),
      inventory: inventoryPayload(store, p),
    }));
    const pagination = { page, per_page: perPage, total: all.length, last_page: Math.max(1, Math.ceil(all.length / perPage)) };
    return { status: 200, body: success('Properties retrieved.', items, { pagination }) };
  }

  /** Keys of queued sync jobs, oldest first. */
  syncJobs(): string[] {
    return Array.from(this.deps.store.values('syncJobs')).sort((a, b) => a.accepted_at - b.accepted_at).map((j) => `${j.integration_id}:${j.accepted_at}`);
  }

  /** Emits one property's worth of a sync job; false when that job is done. */
  syncStep(key: string): boolean {
    return this.deps.store.transaction((tx) => runSyncStep(tx, this.deps.log, key, this.deps.faults));
  }
}
