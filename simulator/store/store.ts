/**
 * The store interface: the domain's only way to state. Tables of records
 * keyed by string; writes happen only inside a transaction, which applies
 * all of its writes or none (nothing is ever half-written).
 */
import type { EventStream, StoredEvent, SupersedableSet, SyncJob } from '../domain/event-records.ts';
import type {
  Booking, Brand, IdempotencyRecord, Integration, NightRates, NightRestrictions, NightSettings,
  Property, RateWindow, Settings, SyncWindow, Unit,
} from '../domain/model.ts';

export interface Tables {
  brands: Brand;
  integrations: Integration;
  /** key: SHA-256 of an API key → the integration it authenticates. */
  apiKeys: { integration_id: number };
  /** key: SHA-256 of a rotated-out API key → its integration (so refused calls can be attributed). */
  retiredKeys: { integration_id: number };
  properties: Property;
  units: Unit;
  /** key: property id → its unit ids, ascending (an index: no scan of every unit). */
  propertyUnits: { unit_ids: number[] };
  /** key: `${property_id}:${date}`. */
  nights: NightSettings;
  /** key: `${property_id}:${date}`; nights without a record use the property default. */
  rates: NightRates & { property_id: number; date: string };
  restrictions: NightRestrictions & { property_id: number; date: string };
  bookings: Booking;
  /** key: `${integration_id}:${external_booking_id}` → booking id (unique per integration). */
  bookingKeys: { booking_id: number };
  /** key: `${unit_id}:${date}` → the booking holding that unit that night. */
  holds: { booking_id: number };
  /** key: `${integration_id}:${Idempotency-Key}`. */
  idempotency: IdempotencyRecord;
  /** Volatile (see VOLATILE_TABLES). */
  rateWindows: RateWindow;
  syncWindows: SyncWindow;
  /** key: counter name → last value issued. */
  counters: { value: number };
  settings: Settings;
  /** key: `${integration_id}:${sequence}`: the per-integration event log, indexed by sequence. */
  events: StoredEvent;
  /** key: integration id → retention pointer and undelivered count. */
  eventStreams: EventStream;
  /** key: supersession key → the still-undelivered events that a newer one may supersede. */
  supersedable: SupersedableSet;
  /** key: `${integration_id}:${accepted_at}` → a queued full re-sync. */
  syncJobs: SyncJob;
}

export type TableName = keyof Tables;

/**
 * Tables a durable store keeps in memory only: a restart starts them empty.
 * Rate-limit windows last a minute and every call charges one, so keeping
 * them on disk would turn every read into a synced write; a restart opening
 * fresh windows is the documented price (docs/simulator.md, "The data directory"; ARCHITECTURE.md "What survives what").
 */
export const VOLATILE_TABLES: ReadonlySet<TableName> = new Set<TableName>(['rateWindows']);

export interface StoreReader {
  get<T extends TableName>(table: T, key: string): Tables[T] | undefined;
  /**
   * Every record of a table, in insertion order. After a file store restarts
   * from its snapshot, keys that are array indices ("5001") come first in
   * ascending order (JSON object order), then the others in insertion order.
   */
  values<T extends TableName>(table: T): Iterable<Tables[T]>;
  size(table: TableName): number;
}

export interface Transaction extends StoreReader {
  put<T extends TableName>(table: T, key: string, value: Tables[T]): void;
  delete(table: TableName, key: string): void;
  /** Runs `fn` after the transaction commits; never when it is dropped. */
  onCommit(fn: () => void): void;
}

export interface Store extends StoreReader {
  /**
   * Runs `fn` against a view that sees its own writes; commits them all when
   * it returns, drops them all when it throws. Synchronous on purpose: two
   * requests can never interleave inside one domain operation.
   */
  transaction<R>(fn: (tx: Transaction) => R): R;
  /** Resolves once every committed transaction is durable (a no-op in memory). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * Only a store several processes share has sections (PgStore; the memory
   * and file stores have none, and run everything as before). Runs `work`
   * as one section: it waits until this process may write the shared state
   * and has caught up on what the others wrote, so the synchronous
   * transactions `work` runs see the latest state and no other process
   * writes meanwhile; what they wrote is durable once it resolves. A section
   * opened inside another joins it. `waitTurn`: a section that starts from
   * outside (a request) waits for its turn when this process has kept the
   * others waiting long enough; one that work in a section may await (a
   * delivery, a sync step) never does, or the two would wait on each other.
   */
  section?<R>(work: () => R | Promise<R>, options?: { waitTurn?: boolean }): Promise<R>;
  /**
   * With a section: runs `wait` with the current section suspended (a
   * create's deliberate latency, §4.5 rule 3), so other processes can write
   * meanwhile and see a key `in_progress`; the section resumes after it.
   */
  outside?<R>(wait: () => Promise<R>): Promise<R>;
  /**
   * Only a store several processes share: this process, as the idempotency
   * claims it makes name it (§4.5 rule 3), for as long as its connection to
   * the shared state lives.
   */
  readonly owner?: string;
  /**
   * With `owner`: true once the process a claim names is gone (PgStore: its
   * PostgreSQL session, and the owner lock it held, ended). The shared
   * database says so; there is no heartbeat of our own.
   */
  ownerGone?(owner: string): Promise<boolean>;
}

/** Runs `work` in a section of a shared store; at once (and synchronously) in a store without sections. */
export function inSection<R>(store: Store, work: () => R | Promise<R>, options?: { waitTurn?: boolean }): R | Promise<R> {
  return store.section ? store.section(work, options) : work();
}

/** Runs `wait` outside the current section of a shared store; just `wait()` in a store without sections. */
export function outsideSection<R>(store: Store, wait: () => Promise<R>): Promise<R> {
  return store.outside ? store.outside(wait) : wait();
}
