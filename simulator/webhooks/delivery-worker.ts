/**
 * The delivery worker: per integration, one event at a time in sequence
 * order, each waiting for a 2xx before the next (§6.2); probes while
 * auto-paused (§3.1). It runs on the virtual clock: `advance()` steps the
 * clock through every due attempt, so six hours of retries take
 * milliseconds; in normal serving `start()` ticks in real time. While
 * either drives delivery, an integration whose attempt ends with more due
 * goes straight on to it (what the next tick would start), so a backlog
 * drains at the speed of the partner's answers.
 */
import type { Readings } from '../domain/readings.ts';
import type { Clock, VirtualClock } from '../domain/clock.ts';
import type { Vault } from '../domain/credentials.ts';
import { beginAttempt, DELIVERY_TIMEOUT_MS, finishAttempt, finishProbe, nextWork, pingBody, type Outcome, type Work } from '../domain/delivery.ts';
import { signingSecrets } from '../domain/integrations.ts';
import type { StoredEvent } from '../domain/event-records.ts';
import type { Integration } from '../domain/model.ts';
import type { Store, Transaction } from '../store/store.ts';
import { JournalFailedError, StoreClosedError } from '../store/errors.ts';
import { requeueInFlight } from '../domain/recovery.ts';
import { openingOnce } from './opened-secrets.ts';
import { INTEGRATION_HEADER, SIGNATURE_HEADER, signatureHeader } from '../../protocol/signature.ts';
import type { Transport } from './transport.ts';
import { NO_FAULTS, type Faults } from '../domain/faults.ts';

/**
 * Which process delivers which integration, when several share one store
 * (issue 39): a lease per integration, held by one process at a time for as
 * long as it lives (PgStore: a session-level advisory lock, gone with the
 * session when the process dies, so another takes over).
 */
export interface DeliveryLeases {
  /** Takes the lease of `id` if it is free; true when this process holds it (now or already). */
  tryLease(id: number): Promise<boolean>;
  /** Whether this process holds the lease of `id`. */
  holds(id: number): boolean;
}

/**
 * With a store several processes share: every process's attempts, kept in
 * the shared database, so the staff plane answers the same through any
 * process (issue 39; PgStore).
 */
export interface SharedAttempts {
  /** Records an attempt; it is shared once the store's next flush resolves. */
  addAttempt(attempt: Delivery): void;
  /** The integration's last `limit` attempts, whichever process made them, oldest first. */
  recentAttempts(integrationId: number, limit: number): Promise<Delivery[]>;
}

export interface DeliveryWorkerDeps {
  store: Store;
  /** With a store several processes share: only the integrations whose lease this process holds are delivered here. */
  leases?: DeliveryLeases;
  /** With a store several processes share: where the staff plane reads every process's attempts. */
  attempts?: SharedAttempts;
  clock: VirtualClock;
  vault: Vault;
  transport: Transport;
  timeoutMs?: number;
  faults?: Faults;
  /** The other reading of a tension in the document (simulator/domain/readings.ts). */
  readings?: Readings;
}

export interface Delivery {
  integration_id: number;
  kind: 'event' | 'ping';
  sequence: number | null;
  outcome: Outcome;
  at: number;
}

/** Work under way: a delivery's event is already marked in flight (§6.2). */
type Begun = { kind: 'deliver'; event: StoredEvent } | { kind: 'probe' };

export class DeliveryWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Integrations whose attempt stopped because the disk refused a write: their head goes back in the queue once it accepts. */
  private readonly stalled = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  /** How many `settle()` calls are under way. */
  private settling = 0;
  private readonly secrets: Vault;
  /** Every attempt, newest last (the last 10,000 to 11,000), for the staff plane and tests. */
  // Stryker disable next-line ArrayDeclaration: the staff plane's delivery journal (GET /integrations/:id/deliveries), the simulator's own instrument: no partner sees it
  readonly log: Delivery[] = [];

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.secrets = openingOnce(deps.vault);
  }

  private get faults(): Faults {
    return this.deps.faults ?? NO_FAULTS;
  }

  private get clock(): Clock {
    return this.deps.clock;
  }

  /** Starts attempts that are due now; does not wait for them. */
  tick(): void {
    const now = this.clock.now();
    // Stryker disable all: storage failures (issue 17): a head stalled because the disk refused a write goes back in the queue
    for (const id of this.stalled) {
      this.stalled.delete(id);
      // A lease lost with the connection (issue 39): whoever holds it now requeues the head when it takes it over.
      if (this.deps.leases && !this.deps.leases.holds(id)) continue;
      // Issue 17: as a restart would (recovery.ts), once the store takes writes again.
      this.deps.store.transaction((tx) => requeueInFlight(tx, id, now));
    }
    // Stryker restore all
    for (const integration of this.deps.store.values('integrations')) {
      if (this.inFlight.has(integration.id)) continue;
      // §6.2 one at a time across processes too: another process holds this integration's lease and delivers it.
      // Stryker disable next-line all: only a store several processes share has leases (simulator/store/pg-processes.test.ts)
      if (this.deps.leases && !this.deps.leases.holds(integration.id)) continue;
      const begun = this.deps.store.transaction((tx) => {
        const work = nextWork(tx, integration, now, this.faults, this.deps.readings);
        return work && work.due <= now ? begin(tx, work, now) : null;
      });
      if (!begun) continue;
      const run = this.run(integration, begun)
        .catch(this.stallOn(integration.id))
        .finally(() => this.inFlight.delete(integration.id));
      this.inFlight.set(integration.id, run);
    }
  }

  // Stryker disable all: storage failures (issue 17): runs only when the disk refused an attempt's write
  /** What stops an integration's attempts when the disk refuses a write: its head goes back in the queue once it accepts. */
  private stallOn(integrationId: number): (e: unknown) => void {
    return (e) => {
      // The process is stopping: the head stays in flight for the next start or the lease's next holder (StoreClosedError).
      if (e instanceof StoreClosedError) return;
      if (!(e instanceof JournalFailedError)) throw e;
      this.stalled.add(integrationId);
    };
  }
  // Stryker restore all

  // Stryker disable all: how the staff plane's clock.advance drives the worker (settle, nextDue, advance): the control plane's own
  // plumbing, not the platform's; every attempt it starts is nextWork's and begin's, which stay mutated
  /** Runs attempts until nothing is due at the current time and nothing is in flight. */
  async settle(): Promise<void> {
    this.settling += 1;
    try {
      await this.claim();
      for (let guard = 0; guard < 100_000; guard++) {
        this.tick();
        if (this.inFlight.size === 0) return;
        await Promise.race(this.inFlight.values());
      }
    } finally {
      this.settling -= 1;
    }
  }

  /** The earliest time any integration has work due, or null. */
  nextDue(): number | null {
    let due: number | null = null;
    for (const integration of this.deps.store.values('integrations')) {
      // Only what this process can start: work another process's lease holds would keep advance() waiting for it for ever.
      if (this.deps.leases && !this.deps.leases.holds(integration.id)) continue;
      const work = this.deps.store.transaction((tx) => nextWork(tx, integration, this.clock.now(), this.faults, this.deps.readings));
      if (work && (due === null || work.due < due)) due = work.due;
    }
    return due;
  }

  /** Moves the virtual clock forward by `ms`, stopping at every due attempt on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.clock.now() + ms;
    if (this.faults.has('stepped-clock-fails-unsent')) this.timeOutUnsent(target);
    await this.settle();
    for (let due = this.nextDue(); due !== null && due <= target; due = this.nextDue()) {
      if (due > this.clock.now()) this.deps.clock.set(due);
      await this.settle();
    }
    this.deps.clock.set(Math.max(target, this.clock.now()));
    await this.settle();
  }
  // Stryker disable all: runs only under the stepped-clock-fails-unsent fault (conformance --mutants proves it caught)
  /**
   * A release that jumps its clock and takes every head that fell due more than a delivery time-out before the new
   * time for an attempt that timed out: recorded failed, never posted (a fault; §6.2 counts only an answer that is
   * no 2xx, or none, as a failure).
   */
  private timeOutUnsent(target: number): void {
    const timeout = this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    for (const integration of this.deps.store.values('integrations')) {
      if (this.inFlight.has(integration.id)) continue;
      this.deps.store.transaction((tx) => {
        const work = nextWork(tx, integration, target, this.faults, this.deps.readings);
        if (work?.kind !== 'deliver' || target - work.due <= timeout) return;
        finishAttempt(tx, beginAttempt(tx, work.event, target), { error: 'timed out' }, target, this.faults, this.deps.readings);
      });
    }
  }

  // Stryker disable all: the staff plane's delivery journal (GET /integrations/:id/deliveries), the simulator's own instrument: no partner sees it
  /** The integration's last `limit` attempts, oldest first: every process's with a shared store, this process's otherwise. */
  async recent(integrationId: number, limit = 200): Promise<Delivery[]> {
    if (this.deps.attempts) return this.deps.attempts.recentAttempts(integrationId, limit);
    return this.log.filter((d) => d.integration_id === integrationId).slice(-limit);
  }
  // Stryker restore all

  /** Sends a ping now (staff "ping"; §6.6), outside the queue. */
  async ping(integrationId: number): Promise<Outcome> {
    const integration = this.deps.store.get('integrations', String(integrationId));
    // Stryker disable next-line all: the staff ping's own answer when no URL is set (control plane): nothing is posted either way
    if (!integration?.webhook.url) return { error: 'no webhook URL is configured' };
    if (this.faults.has('ping-consumes-sequence')) {
      this.deps.store.transaction((tx) => tx.put('integrations', String(integrationId), { ...tx.get('integrations', String(integrationId))!, last_sequence: integration.last_sequence + 1 }));
    }
    // Stryker disable next-line StringLiteral: the kind only labels the staff plane's delivery journal
    return this.send(integration, 'ping', null, pingBody(integration, this.clock.now()));
  }

  // Stryker disable all: real-time serving's timer (npm start): the in-process run moves the clock through the control plane instead;
  // whether the next due attempt starts on this run's tick or chained to the previous attempt is the same platform instant
  /** Real-time serving: tick every `intervalMs`. */
  start(intervalMs = 100): void {
    this.stop();
    const { store } = this.deps;
    this.timer = setInterval(() => {
      if (store.section) {
        // A shared store (issue 39): each tick is a section (caught up, the one writer), one at a time.
        if (this.ticking) return;
        this.ticking = true;
        store.section(async () => {
          await this.claim();
          this.tick();
        }).catch((e: unknown) => {
          // A tick under way when the process stops finds the store closed: nothing of it was written (StoreClosedError).
          if (!(e instanceof JournalFailedError) && !(e instanceof StoreClosedError)) throw e;
        }).finally(() => {
          this.ticking = false;
        });
        return;
      }
      try {
        this.tick();
      } catch (e) {
        // The disk refuses writes (issue 17): nothing begun; the next tick tries again.
        if (!(e instanceof JournalFailedError)) throw e;
      }
    }, intervalMs);
    this.timer.unref();
  }

  /** A shared tick is under way. */
  private ticking = false;
  /** When to try again for the leases other processes hold (a takeover is noticed within about this much after the holder died). */
  private nextClaimAt = 0;

  /**
   * With leases: takes the lease of every integration nobody holds (at most
   * once a second for those another process holds). A lease taken over from
   * a process that died mid-attempt finds its head still `delivering`: that
   * attempt goes back in the queue, due at once, as a restart would
   * (domain/recovery.ts; at least once, §6.2). Runs in a section.
   */
  private async claim(): Promise<void> {
    const leases = this.deps.leases;
    if (!leases) return;
    const now = Date.now();
    if (now < this.nextClaimAt) return;
    this.nextClaimAt = now + CLAIM_INTERVAL_MS;
    for (const integration of [...this.deps.store.values('integrations')]) {
      if (leases.holds(integration.id) || !(await leases.tryLease(integration.id))) continue;
      if (!this.inFlight.has(integration.id)) this.deps.store.transaction((tx) => requeueInFlight(tx, integration.id, this.clock.now()));
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Whether a tick is bound to follow: a settle is under way or real-time serving ticks. */
  private get driving(): boolean {
    return this.settling > 0 || this.timer !== null;
  }
  // Stryker restore all

  /**
   * Performs begun work, then, while delivery is driven, whatever the same
   * integration has due next. An attempt's outcome is recorded and the next
   * attempt begun in one transaction: nextWork reads the outcome just
   * written, exactly as the next tick would have.
   */
  private async run(integration: Integration, first: Begun): Promise<void> {
    for (let step: Begun | null = first; step; ) {
      const current: Begun = step;
      // The event goes out only once it is durable: a crash cannot then hand its sequence to another
      // event. The flush also makes the previous attempt's outcome durable before anything else goes out.
      await this.deps.store.flush();
      const fresh = this.deps.store.get('integrations', String(integration.id)) ?? integration;
      const outcome = current.kind === 'probe'
        ? await this.send(fresh, 'ping', null, pingBody(fresh, this.clock.now()))
        : await this.send(fresh, 'event', current.event.sequence, current.event.body);
      const record = () => this.deps.store.transaction((tx) => {
        const now = this.clock.now();
        if (current.kind === 'probe') finishProbe(tx, integration.id, outcome, now, this.faults);
        else finishAttempt(tx, current.event, outcome, now, this.faults, this.deps.readings);
        return this.following(tx, integration.id, now);
      });
      // A shared store: the outcome is recorded in a section (issue 39); the others, at once, as before.
      // Stryker disable next-line all: only the PostgreSQL store has sections (simulator/store/pg-processes.test.ts)
      step = this.deps.store.section ? await this.deps.store.section(record) : record();
    }
    await this.deps.store.flush();
  }

  // Stryker disable all: chaining what the next tick would start anyway, at the same platform instant (settle and the serving timer
  // tick again as soon as an attempt ends): the worker's scheduling plumbing; nextWork and begin decide what goes, and stay mutated
  /** What the next tick would start for this integration, begun; null when nothing is due now or nothing drives delivery. */
  private following(tx: Transaction, integrationId: number, now: number): Begun | null {
    if (!this.driving) return null;
    const integration = tx.get('integrations', String(integrationId));
    if (!integration) return null;
    const work = nextWork(tx, integration, now, this.faults, this.deps.readings);
    return work && work.due <= now ? begin(tx, work, now) : null;
  }
  // Stryker restore all

  private async send(integration: Integration, kind: Delivery['kind'], sequence: number | null, body: string): Promise<Outcome> {
    const fresh = this.deps.store.get('integrations', String(integration.id)) ?? integration;
    const now = this.clock.now();
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      [INTEGRATION_HEADER]: fresh.slug,
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(fresh, this.secrets, now).map((s) => (this.faults.has('signature-wrong-secret') ? `${s}x` : s)), Math.floor(now / 1000), body),
    };
    // §6.3: every webhook names the integration.
    if (this.faults.has('integration-header-missing')) delete headers[INTEGRATION_HEADER];
    // A release that PUTs its webhooks (a fault): §2.6 posts them.
    const sent = await this.deps.transport.post(fresh.webhook.url!, headers, body, this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS, this.faults.has('webhook-put') ? 'PUT' : 'POST');
    // A release that takes a post nobody answered for a delivery (a fault): §6 waits for a 2xx.
    const outcome: Outcome = this.faults.has('unanswered-delivered') && 'error' in sent ? { status: 200 } : sent;
    // Stryker disable all: the staff plane's delivery journal (GET /integrations/:id/deliveries), the simulator's own instrument: no partner sees it
    const attempt: Delivery = { integration_id: fresh.id, kind, sequence, outcome, at: now };
    this.log.push(attempt);
    this.deps.attempts?.addAttempt(attempt);
    // Trimmed in batches: a splice per delivery past the bound would shift the whole log every time.
    if (this.log.length > 11_000) this.log.splice(0, this.log.length - 10_000);
    // Stryker restore all
    return outcome;
  }
}

/** How often a process tries for the delivery leases other processes hold. */
const CLAIM_INTERVAL_MS = 1000;

/** Starts work: a delivery marks its event in flight, so it is neither superseded nor sent twice (§6.2); a probe needs nothing. */
function begin(tx: Transaction, work: Work, now: number): Begun {
  return work.kind === 'deliver' ? { kind: 'deliver', event: beginAttempt(tx, work.event, now) } : { kind: 'probe' };
}
