/**
 * Where a scenario runs.
 *
 * - `SimWorld`: the in-process simulator on a loopback port with a frozen
 *   virtual clock and the demo world; webhooks leave through the real fetch
 *   transport to the partner's real receiver; staff powers through /_staff.
 *   Time moves only when the scenario moves it, and deliveries happen when
 *   they fall due on the way (POST /_staff/clock/advance).
 * - `LiveWorld`: a live deployment, partner API only. No staff, no clock:
 *   waiting is real (capped), deliveries come when the platform sends them.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_ROOT } from '../../simulator/http/app.ts';
import { STAFF_ROOT } from '../../simulator/staff/routes.ts';
import { VirtualClock } from '../../simulator/domain/clock.ts';
import { createSimulator, type Simulator } from '../../simulator/simulator.ts';
import { seedDemoWorld } from '../../simulator/demo-world.ts';
import { CredentialVault } from '../partner/config.ts';
import { PartnerApi } from '../partner/api-client.ts';
import { realSleep } from '../partner/clock.ts';
import { ScenarioNotObserved } from './not-observed.ts';
import { Staff } from './staff.ts';
import type { Timeline } from './timeline.ts';

/** How long a live run waits for the platform to deliver everything issued to the partner, by default. */
export const LIVE_DELIVERY_MS = 120_000;

/** Scenarios start at 2026-09-15 12:00 platform time (06:30 UTC). */
export const SCENARIO_START = Date.parse('2026-09-15T06:30:00Z');
const STAFF_TOKEN = 'stf_scenarios_staff_token';

export interface PropertyInfo {
  doorloom_id: number;
  external_id: string;
  units: { inventory_id: number; external_unit_id: string | null; active: boolean }[];
}

export interface LiveOptions {
  /** `{base_url}/api/integrations/v1` of the live deployment. */
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  /** The webhook URL staff registered for the integration; it must reach the partner's listener. */
  webhookPublicUrl: string;
  /** Where the partner's listener binds (default 127.0.0.1:8787); put a tunnel or proxy from the public URL to it. */
  listenHost?: string;
  listenPort?: number;
  /** The property (doorloom_id or external_id) the live scenarios may book on; scenario 10 needs a one-unit property. */
  property?: string;
  /** A live wait never lasts longer than this (a simulated "two hours" becomes this), default 15 s. */
  maxWaitMs?: number;
  /** How long to wait for the platform to deliver everything (then not observed, never failed), default 120 s. */
  deliverTimeoutMs?: number;
}

export interface World {
  readonly mode: 'simulator' | 'live';
  readonly baseUrl: string;
  readonly slug: string;
  readonly integrationId: number;
  /** What the platform currently accepts (the checker and the front desk use it). */
  apiKey: string;
  /** The webhook secret the integration was handed (the partner's vault starts with it). */
  readonly webhookSecret: string;
  readonly staff: Staff | null;
  readonly sim: Simulator | null;
  readonly properties: PropertyInfo[];
  /** The platform's clock. */
  now(): number;
  /** The newest sequence of the integration, when the world can look (in-process); null otherwise. */
  latestSequence(): number | null;
  /** Lets time pass: the virtual clock steps through every due delivery; live, a real (capped) wait. */
  elapse(ms: number): Promise<void>;
  /** Jumps the clock without attempting deliveries on the way (simulator only). */
  jump(ms: number): Promise<void>;
  /** Runs deliveries (and queued syncs) due now; live, waits until the partner holds the newest sequence. */
  deliver(partnerCursor: () => number | null): Promise<void>;
  /** Where the partner listens, and the URL the platform must post to. */
  listener(path: string): { host: string; port: number; publicUrl: (localUrl: string) => string };
  close(): Promise<void>;
}

export class SimWorld implements World {
  readonly mode = 'simulator' as const;
  readonly slug: string;
  readonly integrationId: number;
  apiKey: string;
  readonly staff: Staff;
  readonly properties: PropertyInfo[];
  readonly webhookSecret: string;

  private constructor(readonly sim: Simulator, private readonly server: Server, readonly baseUrl: string, staff: Staff, fixtures: ReturnType<typeof seedDemoWorld>) {
    const acme = fixtures.integrations[0]!;
    this.slug = acme.slug;
    this.integrationId = acme.id;
    this.apiKey = acme.apiKey;
    this.webhookSecret = acme.webhookSecret;
    this.staff = staff;
    this.properties = acme.properties;
  }

  static async open(timeline: Timeline | null, start = SCENARIO_START): Promise<SimWorld> {
    const clock = new VirtualClock(() => Date.now(), { offsetMs: 0, frozenAt: start });
    const sim = createSimulator({ clock, staffToken: STAFF_TOKEN });
    const server = sim.app.listen(0, '127.0.0.1');
    await new Promise<void>((ok) => server.once('listening', ok));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: STAFF_TOKEN });
    return new SimWorld(sim, server, origin + API_ROOT, new Staff(origin + STAFF_ROOT, STAFF_TOKEN, timeline), fixtures);
  }

  now(): number {
    return this.sim.clock.now();
  }

  latestSequence(): number {
    return this.sim.store.get('integrations', String(this.integrationId))?.last_sequence ?? 0;
  }

  async elapse(ms: number): Promise<void> {
    await this.staff.advanceClock(ms / 1000);
  }

  async jump(ms: number): Promise<void> {
    await this.staff.setClock(new Date(this.now() + ms).toISOString());
  }

  async deliver(): Promise<void> {
    // Queued syncs emit their events (they would, one property per turn of the event loop), then
    // every delivery due now is made, in order, waiting for each answer (§6.2).
    for (let round = 0; round < 10; round++) {
      this.sim.sync.drain();
      await this.staff.advanceClock(0);
      if (this.sim.events.syncJobs().length === 0) return;
    }
  }

  listener(): { host: string; port: number; publicUrl: (localUrl: string) => string } {
    return { host: '127.0.0.1', port: 0, publicUrl: (local) => local };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
    this.sim.webhooks.stop();
    await this.sim.store.close();
  }
}

export class LiveWorld implements World {
  readonly mode = 'live' as const;
  readonly staff = null;
  readonly sim = null;
  readonly baseUrl: string;
  apiKey: string;

  readonly webhookSecret: string;

  private constructor(private readonly o: LiveOptions, readonly slug: string, readonly integrationId: number, readonly properties: PropertyInfo[]) {
    this.baseUrl = o.baseUrl.replace(/\/$/, '');
    this.apiKey = o.apiKey;
    this.webhookSecret = o.webhookSecret;
  }

  /** Checks the target before anything runs: the key works and the webhook URL reaches this listener. */
  static async open(o: LiveOptions): Promise<LiveWorld> {
    const api = new PartnerApi({ baseUrl: o.baseUrl.replace(/\/$/, ''), credentials: { apiKey: () => o.apiKey, webhookSecrets: () => [o.webhookSecret] }, clock: { now: () => Date.now() }, sleep: realSleep });
    const me = await api.ok<{ id: number; slug: string; webhook: { url: string | null } }>('GET', '/me');
    if (me.body.data.webhook.url !== o.webhookPublicUrl) {
      throw new Error(`the integration's webhook URL is ${me.body.data.webhook.url ?? 'not set'}; ask platform staff to set it to ${o.webhookPublicUrl} (--webhook-public-url), which must reach this machine's ${o.listenHost ?? '127.0.0.1'}:${o.listenPort ?? 8787}`);
    }
    const properties = (await api.properties()).map((p) => ({
      doorloom_id: p.doorloom_id,
      external_id: p.external_id,
      units: ((p.inventory.units ?? []) as { inventory_id: number; external_unit_id: string | null; active: boolean }[]).map((u) => ({ inventory_id: u.inventory_id, external_unit_id: u.external_unit_id, active: u.active })),
    }));
    return new LiveWorld(o, me.body.data.slug, me.body.data.id, properties);
  }

  get options(): LiveOptions {
    return this.o;
  }

  now(): number {
    return Date.now();
  }

  latestSequence(): null {
    return null;
  }

  async elapse(ms: number): Promise<void> {
    await realSleep(Math.min(ms, this.o.maxWaitMs ?? 15_000));
  }

  async jump(): Promise<void> {
    throw new Error('moving the clock needs the simulator (a live target has no staff plane)');
  }

  async deliver(partnerCursor: () => number | null): Promise<void> {
    const api = new PartnerApi({ baseUrl: this.baseUrl, credentials: { apiKey: () => this.apiKey, webhookSecrets: () => [] }, clock: { now: () => Date.now() }, sleep: realSleep });
    // Ends on the event (the partner's cursor at the platform's latest sequence); a cap that runs out is not observed,
    // never a failure: on real time a slow platform or machine looks the same as one that never delivers (issue 38).
    const deadline = Date.now() + (this.o.deliverTimeoutMs ?? LIVE_DELIVERY_MS);
    for (;;) {
      const latest = await api.latestSequence();
      if ((partnerCursor() ?? 0) >= latest) return;
      if (Date.now() > deadline) throw new ScenarioNotObserved(`the platform's delivery of every event up to sequence ${latest} to the partner (its cursor ${partnerCursor()})`, `${(this.o.deliverTimeoutMs ?? LIVE_DELIVERY_MS) / 1000} s of real time`);
      await realSleep(200);
    }
  }

  listener(path: string): { host: string; port: number; publicUrl: () => string } {
    void path;
    return { host: this.o.listenHost ?? '127.0.0.1', port: this.o.listenPort ?? 8787, publicUrl: () => this.o.webhookPublicUrl };
  }

  async close(): Promise<void> {}
}
