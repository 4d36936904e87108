/**
 * The delivery worker: per integration, one event at a time in sequence
 * order, each waiting for a 2xx before the next (§6.2); probes while
 * auto-paused (§3.1). It runs on the virtual clock: `advance()` steps the
 * clock through every due attempt, so six hours of retries take
 * milliseconds; in normal serving `start()` ticks in real time.
 */
import type { Clock, VirtualClock } from '../domain/clock.ts';
import type { Vault } from '../domain/credentials.ts';
import { beginAttempt, DELIVERY_TIMEOUT_MS, finishAttempt, finishProbe, nextWork, pingBody, type Outcome, type Work } from '../domain/delivery.ts';
import { signingSecrets } from '../domain/integrations.ts';
import type { Integration } from '../domain/model.ts';
import type { Store } from '../store/store.ts';
import { INTEGRATION_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import type { Transport } from './transport.ts';
import { NO_FAULTS, type Faults } from '../domain/faults.ts';

export interface DeliveryWorkerDeps {
  store: Store;
  clock: VirtualClock;
  vault: Vault;
  transport: Transport;
  timeoutMs?: number;
  faults?: Faults;
}

export interface Delivery {
  integration_id: number;
  kind: 'event' | 'ping';
  sequence: number | null;
  outcome: Outcome;
  at: number;
}

export class DeliveryWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** Every attempt, newest last (bounded), for the staff plane and tests. */
  readonly log: Delivery[] = [];

  constructor(private readonly deps: DeliveryWorkerDeps) {}

  private get faults(): Faults {
    return this.deps.faults ?? NO_FAULTS;
  }

  private get clock(): Clock {
    return this.deps.clock;
  }

  /** Starts attempts that are due now; does not wait for them. */
  tick(): void {
    const now = this.clock.now();
    for (const integration of this.deps.store.values('integrations')) {
      if (this.inFlight.has(integration.id)) continue;
      const work = this.deps.store.transaction((tx) => nextWork(tx, integration, now, this.faults));
      if (!work || work.due > now) continue;
      const run = this.perform(integration, work).finally(() => this.inFlight.delete(integration.id));
      this.inFlight.set(integration.id, run);
    }
  }

  /** Runs attempts until nothing is due at the current time and nothing is in flight. */
  async settle(): Promise<void> {
    for (let guard = 0; guard < 100_000; guard++) {
      this.tick();
      if (this.inFlight.size === 0) return;
      await Promise.race(this.inFlight.values());
    }
  }

  /** The earliest time any integration has work due, or null. */
  nextDue(): number | null {
    let due: number | null = null;
    for (const integration of this.deps.store.values('integrations')) {
      const work = this.deps.store.transaction((tx) => nextWork(tx, integration, this.clock.now(), this.faults));
      if (work && (due === null || work.due < due)) due = work.due;
    }
    return due;
  }

  /** Moves the virtual clock forward by `ms`, stopping at every due attempt on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.clock.now() + ms;
    await this.settle();
    for (let due = this.nextDue(); due !== null && due <= target; due = this.nextDue()) {
      if (due > this.clock.now()) this.deps.clock.set(due);
      await this.settle();
    }
    this.deps.clock.set(Math.max(target, this.clock.now()));
    await this.settle();
  }

  /** Sends a ping now (staff "ping"; §6.6), outside the queue. */
  async ping(integrationId: number): Promise<Outcome> {
    const integration = this.deps.store.get('integrations', String(integrationId));
    if (!integration?.webhook.url) return { error: 'no webhook URL is configured' };
    if (this.faults.has('ping-consumes-sequence')) {
      this.deps.store.transaction((tx) => tx.put('integrations', String(integrationId), { ...tx.get('integrations', String(integrationId))!, last_sequence: integration.last_sequence + 1 }));
    }
    return this.send(integration, 'ping', null, pingBody(integration, this.clock.now()));
  }

  /** Real-time serving: tick every `intervalMs`. */
  start(intervalMs = 100): void {
    this.stop();
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async perform(integration: Integration, work: Work): Promise<void> {
    if (work.kind === 'probe') {
      const outcome = await this.send(integration, 'ping', null, pingBody(integration, this.clock.now()));
      this.deps.store.transaction((tx) => finishProbe(tx, integration.id, outcome, this.clock.now()));
      await this.deps.store.flush();
      return;
    }
    const event = this.deps.store.transaction((tx) => beginAttempt(tx, work.event, this.clock.now()));
    // The event goes out only once it is durable: a crash cannot then hand its sequence to another event.
    await this.deps.store.flush();
    const outcome = await this.send(integration, 'event', event.sequence, event.body);
    this.deps.store.transaction((tx) => finishAttempt(tx, event, outcome, this.clock.now(), this.faults));
    await this.deps.store.flush();
  }

  private async send(integration: Integration, kind: Delivery['kind'], sequence: number | null, body: string): Promise<Outcome> {
    const fresh = this.deps.store.get('integrations', String(integration.id)) ?? integration;
    const now = this.clock.now();
    const headers = {
      'Content-Type': 'application/json',
      [INTEGRATION_HEADER]: fresh.slug,
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(fresh, this.deps.vault, now).map((s) => (this.faults.has('signature-wrong-secret') ? `${s}x` : s)), Math.floor(now / 1000), body),
    };
    const outcome = await this.deps.transport.post(fresh.webhook.url!, headers, body, this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS);
    this.log.push({ integration_id: fresh.id, kind, sequence, outcome, at: now });
    if (this.log.length > 10_000) this.log.splice(0, this.log.length - 10_000);
    return outcome;
  }
}
