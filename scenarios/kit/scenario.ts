/**
 * How a scenario is written and run. A scenario is a script over a
 * `ScenarioRun`: staff and host actions, clock moves, the partner's
 * behaviour, and checks; every one of them lands on the timeline. Every
 * scenario ends with `converged()`: the partner's state equals the platform's
 * (convergence.ts). `runScenario()` returns the result and writes the
 * timeline report; it never throws and never exits (only the CLI does).
 */
import { randomBytes } from 'node:crypto';
import { PartnerApi } from '../partner/api-client.ts';
import type { EventRow, JsonObject } from '../partner/api-types.ts';
import { BookingDesk, type BookingRequest } from '../partner/bookings.ts';
import { realSleep } from '../partner/clock.ts';
import { CredentialVault, NO_BREAKAGES, type Breakages, type ReceiverConfig } from '../partner/config.ts';
import { addDays, platformDate } from '../partner/dates.ts';
import type { ApiCall, DeliveryRecord, PartnerObserver } from '../partner/observer.ts';
import { ReferencePartner } from '../partner/partner.ts';
import { signatureHeaderFor } from '../partner/signature.ts';
import { emptyState, type PartnerState } from '../partner/state.ts';
import { MemoryStateStore } from '../partner/state-store.ts';
import { compareWithPlatform, describeDifference, type Divergence } from './convergence.ts';
import { FaultyNetwork } from './network.ts';
import { writeScenarioReport, type ScenarioReport } from './report.ts';
import type { Staff } from './staff.ts';
import { Timeline, type Actor, type Level } from './timeline.ts';
import { LIVE_DELIVERY_MS, LiveWorld, SimWorld, type LiveOptions, type PropertyInfo, type World } from './world.ts';
import { ScenarioNotObserved } from './not-observed.ts';

/** The nights the reference partner keeps in the scenarios (two snapshot windows: 92 + 28). */
export const SCENARIO_HORIZON_DAYS = 120;

export interface ScenarioDefinition {
  /** kebab-case, the file name and the CLI name. */
  name: string;
  number: number;
  title: string;
  /** One line: what happens and what it proves. */
  story: string;
  /** Whether it can run against a live target (partner API only), and why or why not. */
  live: { capable: boolean; note: string };
  run(s: ScenarioRun): Promise<void>;
}

export function defineScenario(d: ScenarioDefinition): ScenarioDefinition {
  return d;
}

export interface RunOptions {
  /** Run against a live deployment instead of the in-process simulator. */
  live?: LiveOptions;
  /** Break the reference partner on purpose (certification tests). */
  breakages?: Partial<Breakages>;
  /** Where the timeline goes (default reports/scenarios/); null writes nothing. */
  reportDir?: string | null;
  /** File name of the report (default: the scenario name). */
  reportName?: string;
}

export interface ScenarioResult extends ScenarioReport {
  files: { md: string; html: string } | null;
}

/** A check of the scenario did not hold. */
export class ScenarioFailure extends Error {
  override name = 'ScenarioFailure';
}

/** The partner's state differs from the platform's. */
export class DivergenceFailure extends ScenarioFailure {
  override name = 'DivergenceFailure';
  constructor(label: string, readonly divergence: Divergence) {
    super(`not converged (${label}): ${divergence.total} difference(s); first: ${describeDifference(divergence.differences[0]!)}`);
  }
}

export class ScenarioRun {
  /** The partner's secrets vault, as its operator keeps it. */
  readonly vault: CredentialVault;
  /** The partner's disk: survives restarts and crashes. */
  readonly store = new MemoryStateStore();
  readonly network = new FaultyNetwork();
  /** Every webhook delivery the partner's listener answered, in order. */
  readonly deliveries: DeliveryRecord[] = [];
  /** Every API call the partner made, in order. */
  readonly calls: ApiCall[] = [];
  /** The front desk: another process of the same partner that sells rooms through the API (its own reservations). */
  readonly frontDesk: BookingDesk;
  /** Reads the platform for checks (the integration's current key; not part of the partner). */
  readonly checker: PartnerApi;
  readonly breakages: Breakages;
  private current: ReferencePartner | null = null;
  private lastState: PartnerState | null = null;
  private port = 0;
  private gateStatus: number | null = null;
  private readonly hooks: { match: (c: ApiCall) => boolean; action: () => Promise<void> }[] = [];
  private readonly prefix: string;

  constructor(readonly definition: ScenarioDefinition, readonly world: World, readonly timeline: Timeline, options: RunOptions) {
    this.breakages = { ...NO_BREAKAGES, ...options.breakages };
    this.vault = new CredentialVault(world.apiKey, [world.webhookSecret]);
    this.prefix = world.mode === 'live' ? `SCN-${randomBytes(3).toString('hex')}-` : '';
    const credentials = { apiKey: () => this.world.apiKey, webhookSecrets: () => [] };
    this.checker = new PartnerApi({ baseUrl: world.baseUrl, credentials, clock: { now: () => world.now() }, sleep: (ms) => this.wait(ms, 'the checker waits') });
    const deskState = emptyState();
    this.frontDesk = new BookingDesk({
      api: new PartnerApi({ baseUrl: world.baseUrl, credentials, clock: { now: () => world.now() }, sleep: (ms) => this.wait(ms, 'the front desk waits'), observer: this.observer('front desk') }),
      state: () => deskState, save: async () => {}, sleep: (ms) => this.wait(ms, 'the front desk waits'), breakages: NO_BREAKAGES,
    });
  }

  get live(): boolean {
    return this.world.mode === 'live';
  }

  /** The running partner. */
  get partner(): ReferencePartner {
    if (!this.current) throw new ScenarioFailure('the partner is not running');
    return this.current;
  }

  /** Platform staff and hosts (simulator only). */
  get staff(): Staff {
    if (!this.world.staff) throw new ScenarioFailure('this step needs staff powers, which a live target does not give');
    return this.world.staff;
  }

  // ---- narrative and checks --------------------------------------------------------------

  /** A line of the story on the timeline. */
  step(text: string): void {
    this.timeline.add('scenario', text, '');
  }

  log(actor: Actor, action: string, outcome: string, level: Level = 'info', sequence?: string): void {
    this.timeline.add(actor, action, outcome, { level, sequence });
  }

  /** A check: on the timeline either way; a failed one stops the run. */
  check(holds: boolean, claim: string, detail?: string): void {
    this.timeline.add('check', claim, holds ? `ok${detail ? ` · ${detail}` : ''}` : `FAILED${detail ? ` · ${detail}` : ''}`, { level: holds ? 'ok' : 'fail' });
    if (!holds) throw new ScenarioFailure(`${claim}${detail ? ` (${detail})` : ''}`);
  }

  /**
   * Convergence: the partner's state equals fresh snapshots of every covered
   * property over the partner's window, the property list, and the booking
   * list, field for field. Live targets get a few seconds to settle.
   */
  async converged(label: string): Promise<void> {
    const state = () => this.current?.state ?? this.lastState ?? emptyState();
    let d = await compareWithPlatform(this.checker, state(), this.window());
    if (this.live && d.total > 0) {
      // Live, the platform delivers in real time: the comparison waits for the event that makes it fair, the partner's
      // cursor at the platform's latest sequence (every event issued processed), not four tries two seconds apart
      // (issue 38). A difference left then is a divergence; a partner that never gets there is not observed.
      const cap = (this.world as LiveWorld).options.deliverTimeoutMs ?? LIVE_DELIVERY_MS;
      let latest = 0;
      for (const end = Date.now() + cap; ;) {
        latest = await this.latestSequence();
        if ((state().cursor ?? 0) >= latest) break;
        if (Date.now() > end) throw new ScenarioNotObserved(`the partner's cursor reaching the platform's latest sequence ${latest} (it stood at ${state().cursor}), before comparing states (${label})`, `${cap / 1000} s of real time`);
        await realSleep(200);
      }
      d = await compareWithPlatform(this.checker, state(), this.window());
    }
    const c = d.compared;
    if (d.total === 0) {
      this.timeline.add('check', `converged: ${label}`, `equal · ${c.properties} properties × 3 types × ${c.window.from}..${c.window.to}, ${c.bookings} booking(s), ${c.reservations} reservation(s)`, { level: 'ok' });
      return;
    }
    this.timeline.add('check', `converged: ${label}`, `DIVERGED · ${describeDifference(d.differences[0]!)} (${d.total} difference(s))`, { level: 'fail' });
    throw new DivergenceFailure(label, d);
  }

  /** The comparison as of now (used to report where the state stood when a run failed). */
  divergenceNow(): Promise<Divergence> {
    return compareWithPlatform(this.checker, this.current?.state ?? this.lastState ?? emptyState(), this.window());
  }

  // ---- the partner -----------------------------------------------------------------------

  /** Starts the reference partner (it loads its state, listens, catches up) and, the first time, registers its webhook. */
  async startPartner(options: { path?: string; retiredPaths?: string[]; recovery?: 'snapshots' | 'sync' } = {}): Promise<ReferencePartner> {
    const path = options.path ?? (this.live ? new URL((this.world as LiveWorld).options.webhookPublicUrl).pathname : '/webhook');
    const listener = this.world.listener(path);
    const first = this.port === 0;
    const receiver: ReceiverConfig = {
      host: listener.host, port: this.port || listener.port, path, retiredPaths: options.retiredPaths, gate: () => this.gateStatus,
    };
    this.step(first ? 'the partner starts for the first time' : 'the partner starts again');
    this.current = await ReferencePartner.start({
      baseUrl: this.world.baseUrl,
      slug: this.world.slug,
      credentials: this.vault,
      clock: { now: () => this.world.now() },
      sleep: (ms) => this.wait(ms, 'the partner waits'),
      store: this.store,
      horizonDays: SCENARIO_HORIZON_DAYS,
      recovery: options.recovery,
      receiver,
      fetch: this.network.fetch,
      observer: this.observer('partner'),
      breakages: this.breakages,
    });
    this.port = this.current.port;
    if (first && this.world.staff) await this.world.staff.setWebhook(this.world.integrationId, listener.publicUrl(this.current.url));
    return this.current;
  }

  /** A clean stop: the last save completes, the listener closes. */
  async stopPartner(why: string): Promise<void> {
    this.step(`the partner stops: ${why}`);
    await this.current?.stop();
    this.lastState = this.current?.state ?? this.lastState;
    this.current = null;
  }

  /** The process dies: the listener is gone, only what was saved survives. */
  async crashPartner(why: string): Promise<void> {
    this.log('partner', 'process dies', why, 'note');
    await this.current?.stop();
    this.lastState = this.current?.state ?? this.lastState;
    this.current = null;
  }

  /** Something in front of the partner answers every delivery with `status` (null: back to normal). */
  outage(status: number | null, why: string): void {
    this.gateStatus = status;
    this.log('scenario', status === null ? `the partner's endpoint recovers: ${why}` : `the partner's endpoint answers ${status}: ${why}`, '');
  }

  /** Once the partner makes a matching call, `action` runs right after its answer, before the partner goes on. */
  whenPartnerCalls(method: string, path: RegExp, action: () => Promise<void>): void {
    this.hooks.push({ match: (c) => c.method === method && path.test(c.path.split('?')[0]!), action });
  }

  // ---- time and deliveries ---------------------------------------------------------------

  /** Time passes (simulator: the virtual clock, stepping through every due delivery; live: a real, capped wait). */
  async elapse(ms: number, why: string): Promise<void> {
    this.log('clock', `${formatDuration(ms)} pass: ${why}`, this.live ? `waiting ${formatDuration(Math.min(ms, (this.world as LiveWorld).options.maxWaitMs ?? 15_000))} for real` : 'deliveries that fall due on the way are made');
    await this.world.elapse(ms);
  }

  /** The clock jumps ahead without any delivery attempted on the way (simulator only). */
  async jump(ms: number, why: string): Promise<void> {
    if (!this.world.sim) throw new ScenarioFailure('jumping the clock needs the simulator');
    this.log('clock', `jumps ${formatDuration(ms)}: ${why}`, 'no delivery attempted on the way');
    await this.world.jump(ms);
  }

  /** Deliveries due now are made (simulator), or the platform is given time to deliver everything (live). */
  async deliver(): Promise<void> {
    await this.world.deliver(() => this.current?.state.cursor ?? null);
  }

  private async wait(ms: number, who: string): Promise<void> {
    if (this.live) return realSleep(ms);
    this.log('clock', `${formatDuration(ms)} pass while ${who}`, '');
    await this.world.elapse(ms);
  }

  // ---- the world -------------------------------------------------------------------------

  /** The platform's date `n` days from today. */
  day(n: number): string {
    return addDays(platformDate(this.world.now()), n);
  }

  /** A covered property by its alias (`SEA-VIEW`) or id. */
  property(ref: string): PropertyInfo {
    const p = this.world.properties.find((x) => x.external_id === ref || String(x.doorloom_id) === ref);
    if (!p) throw new ScenarioFailure(`no covered property ${ref}`);
    return p;
  }

  /** The property a live run may use (--property), or the simulator's stand-in. */
  liveProperty(simDefault: string): PropertyInfo {
    const ref = this.live ? (this.world as LiveWorld).options.property : simDefault;
    if (!ref) throw new ScenarioFailure('this scenario needs --property against a live target');
    return this.property(ref);
  }

  /** A POST /bookings body; the external id is unique per live run. */
  booking(ref: string, o: { property: PropertyInfo; checkIn: string; nights?: number; adults?: number; total?: number }): BookingRequest {
    return {
      external_booking_id: `${this.prefix}${ref}`,
      property: { doorloom_id: o.property.doorloom_id },
      units: [{ adults: o.adults ?? 2 }],
      check_in: o.checkIn,
      check_out: addDays(o.checkIn, o.nights ?? 2),
      guest: { name: `Guest ${ref}`, mobile: '9800000000' },
      pricing: { total: o.total ?? 12_000 },
    };
  }

  /**
   * The first stay of `nights` nights starting between `fromDay` and `toDay`
   * (days from today) whose every night has `available(units)` true, read from
   * availability snapshots: live targets have other bookings.
   */
  async findStay(property: PropertyInfo, fromDay: number, toDay: number, nights: number, available: (units: number) => boolean): Promise<string> {
    const snap = await this.checker.snapshot('availability', property.doorloom_id, this.day(fromDay), this.day(Math.min(toDay + nights, fromDay + 91)));
    const dates = (snap.data.dates ?? []) as { date: string; available_units: number }[];
    for (let i = 0; i + nights <= dates.length; i++) {
      if (dates.slice(i, i + nights).every((d) => available(d.available_units))) return dates[i]!.date;
    }
    throw new ScenarioFailure(`no stay of ${nights} nights with the availability needed on ${property.external_id} between day ${fromDay} and day ${toDay}`);
  }

  /** A call to the API with a key of the scenario's choosing (not the partner's); the status and error code. */
  async rawCall(key: string, method: 'GET' | 'POST', path: string): Promise<{ status: number; code: string | null }> {
    const res = await fetch(this.world.baseUrl + path, { method, headers: { Authorization: `Bearer ${key}` } });
    const body = await res.json().catch(() => null) as { code?: string } | null;
    return { status: res.status, code: body?.code ?? null };
  }

  /** The newest sequence of the integration (partner API). */
  latestSequence(): Promise<number> {
    return this.checker.latestSequence();
  }

  /** Every retained event row, superseded ones included (partner API). */
  async eventRows(): Promise<EventRow[]> {
    const rows: EventRow[] = [];
    for (let after = 0; ;) {
      const page = await this.checker.events(after);
      rows.push(...page.rows);
      after = page.cursor.next_after_sequence;
      if (!page.cursor.has_more) return rows;
    }
  }

  /**
   * Someone who is not the platform posts to the partner's webhook: a forged
   * event signed with `secret`, with the signature time `t` given.
   */
  async postToPartner(label: string, body: string, headers: Record<string, string>): Promise<number> {
    const res = await fetch(this.partner.url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
    await res.arrayBuffer();
    this.log('attacker', label, `answered ${res.status}`, 'note');
    return res.status;
  }

  /** A forged event envelope as an attacker would build it, signed with a secret the platform never issued. */
  forgedEvent(event: JsonObject, secret: string): { body: string; headers: Record<string, string> } {
    const body = JSON.stringify(event);
    return { body, headers: { 'X-Service-Integration': this.world.slug, 'X-Service-Signature': signatureHeaderFor([secret], Math.floor(this.world.now() / 1000), body) } };
  }

  window(): { from: string; to: string } {
    return this.current?.window() ?? { from: this.day(0), to: this.day(SCENARIO_HORIZON_DAYS - 1) };
  }

  async close(): Promise<void> {
    await this.current?.stop();
    this.current = null;
  }

  private observer(actor: 'partner' | 'front desk'): PartnerObserver {
    return {
      call: async (c) => {
        const s = summarizeCall(c);
        this.timeline.add(actor, s.action, s.outcome, { sequence: s.sequence, level: s.level });
        if (actor !== 'partner') return;
        this.calls.push(c);
        const i = this.hooks.findIndex((h) => h.match(c));
        if (i >= 0) await this.hooks.splice(i, 1)[0]!.action();
      },
      delivery: (d) => {
        this.deliveries.push(d);
        this.timeline.add('webhook', describeDelivery(d), `${d.status} · ${d.outcome}`, { sequence: d.sequence === null ? '' : `#${d.sequence}`, level: d.status === 200 ? 'info' : 'note' });
      },
      note: (m) => void this.timeline.add(actor, 'decides', m, { level: 'note' }),
    };
  }
}

/** Runs one scenario; returns the result (with the divergence, when there was one) and writes the report. */
export async function runScenario(definition: ScenarioDefinition, options: RunOptions = {}): Promise<ScenarioResult> {
  const startedAt = Date.now();
  let world: World | null = null;
  const timeline = new Timeline(() => world?.now() ?? Date.now(), () => world?.latestSequence() ?? null);
  let run: ScenarioRun | null = null;
  let failure: string | null = null;
  let notObserved: string | null = null;
  let divergence: Divergence | null = null;
  try {
    if (options.live && !definition.live.capable) throw new ScenarioFailure(`${definition.name} cannot run against a live target: ${definition.live.note}`);
    world = options.live ? await LiveWorld.open(options.live) : await SimWorld.open(timeline);
    run = new ScenarioRun(definition, world, timeline, options);
    timeline.add('scenario', `${definition.title}`, world.mode === 'live' ? `live target ${world.baseUrl}` : 'in-process simulator, frozen virtual clock, demo world');
    await definition.run(run);
  } catch (e) {
    // A live wait that ran out judges nothing: neither passed nor failed (issue 38).
    if (e instanceof ScenarioNotObserved) notObserved = e.message;
    else failure = e instanceof ScenarioFailure ? e.message : `${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? String(e)}${e instanceof Error && e.stack ? `\n${e.stack.split('\n').slice(1, 6).join('\n')}` : ''}`;
    if (e instanceof DivergenceFailure) divergence = e.divergence;
    else if (run) {
      try {
        divergence = await run.divergenceNow();
        timeline.add('check', 'state when the run stopped', divergence.total === 0 ? 'partner still equal to the platform' : `DIVERGED · ${describeDifference(divergence.differences[0]!)} (${divergence.total} difference(s))`, { level: divergence.total === 0 || notObserved !== null ? 'note' : 'fail' });
      } catch {
        // The world itself is unusable; the failure message says why.
      }
    }
  } finally {
    await run?.close().catch(() => undefined);
    await world?.close().catch(() => undefined);
  }
  const breakages = Object.entries(options.breakages ?? {}).filter(([, on]) => on).map(([name]) => name);
  const report: ScenarioReport = {
    name: definition.name, number: definition.number, title: definition.title, story: definition.story, live: definition.live,
    mode: options.live ? 'live' : 'simulator', ok: failure === null && notObserved === null, breakages, failure, notObserved, divergence,
    timeline: timeline.entries, startedAt, durationMs: Date.now() - startedAt,
  };
  const files = options.reportDir === null ? null : writeScenarioReport(report, options.reportDir ?? undefined, options.reportName ?? definition.name);
  return { ...report, files };
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
  return `${Math.floor(s / 86_400)} day${s >= 2 * 86_400 ? 's' : ''}${Math.floor((s % 86_400) / 3600) ? ` ${Math.floor((s % 86_400) / 3600)} h` : ''}`;
}

/** A partner API call as one timeline line. */
export function summarizeCall(c: ApiCall): { action: string; outcome: string; sequence: string; level: Level } {
  const [path = '', query = ''] = c.path.split('?');
  const q = new URLSearchParams(query);
  const body = (c.body ?? {}) as Record<string, any>;
  const status = c.status === null ? `no answer (${c.error})` : `${c.status}${c.code ? ` ${c.code}` : ''}`;
  const level: Level = c.status === null || c.status >= 400 ? 'note' : 'info';
  const plain = { action: `${c.method} ${c.path}`, outcome: status, sequence: '', level };
  if (c.status === null || c.status >= 400) {
    if (c.method === 'POST' && path === '/bookings') return { ...plain, action: createAction(c), outcome: c.status === 409 && c.code === 'UNAVAILABLE' ? `${status} · ${unavailableText(body)}` : status };
    if (c.status === 429) return { ...plain, outcome: `${status} · Retry-After ${c.headers['retry-after'] ?? '?'} s` };
    return plain;
  }
  if (path === '/events') {
    const rows = (body.data ?? []) as EventRow[];
    const cur = body.cursor ?? {};
    const superseded = rows.filter((r) => r.status === 'superseded').length;
    return {
      action: `GET /events after_sequence=${q.get('after_sequence')}${q.get('limit') === '1' ? ' (peek)' : ''}`,
      outcome: `${status} · ${rows.length} row(s)${superseded ? `, ${superseded} superseded` : ''} · next ${cur.next_after_sequence} · latest ${cur.latest_sequence}`,
      sequence: rows.length === 0 ? '' : rows.length === 1 ? `#${rows[0]!.sequence}` : `#${rows[0]!.sequence}–${rows.at(-1)!.sequence}`,
      level,
    };
  }
  const snap = /^\/properties\/([^/]+)\/(availability|rates|restrictions)$/.exec(path);
  if (snap) {
    return { action: `GET ${snap[2]} snapshot of ${snap[1]} ${q.get('from')}..${q.get('to')}`, outcome: `${status} · watermark ${body.data?.sequence} · ${(body.data?.data?.dates ?? []).length} nights`, sequence: `W ${body.data?.sequence}`, level };
  }
  if (path === '/properties') return { ...plain, outcome: `${status} · ${(body.data ?? []).length} properties` };
  if (path === '/bookings' && c.method === 'GET') return { ...plain, outcome: `${status} · ${(body.data ?? []).length} booking(s)` };
  if (path === '/me') {
    const me = body.data ?? {};
    return { ...plain, outcome: `${status} · ${me.status}${me.webhook?.paused_reason ? ` (${me.webhook.paused_reason})` : ''} · last_sequence ${me.webhook?.last_sequence} · ${me.covered_properties} covered` };
  }
  if (path === '/sync') return { ...plain, outcome: `${status} · ${body.data?.queued_properties} properties queued` };
  if (path === '/bookings' && c.method === 'POST') {
    const b = body.data ?? {};
    return { ...plain, action: createAction(c), outcome: `${status} · ${b.duplicate ? 'duplicate: true, ' : ''}booking ${b.id} revision ${b.revision} ${b.status}` };
  }
  return plain;
}

function createAction(c: ApiCall): string {
  let ref = '?';
  try {
    ref = JSON.parse(c.requestBody ?? '{}').external_booking_id;
  } catch {
    // shown as ?
  }
  return `POST /bookings ${ref} · Idempotency-Key …${(c.idempotencyKey ?? '').slice(-8)}`;
}

function unavailableText(body: Record<string, any>): string {
  const a = body.errors?.availability;
  if (!a) return 'no availability body';
  const nights = (a.dates ?? []).map((d: { date: string; available_units: number }) => `${d.date}: ${d.available_units}`).join(', ');
  return `window ${a.window?.from}..${a.window?.to}, available_units ${nights}`;
}

function describeDelivery(d: DeliveryRecord): string {
  try {
    const e = JSON.parse(d.rawBody);
    if (e.type === 'ping') return `ping (last_sequence ${e.last_sequence})`;
    if (e.type === 'booking.changed') return `booking.changed · booking ${e.data?.id} revision ${e.data?.revision} ${e.data?.status}`;
    return `${e.type} · ${e.property?.external_id} ${e.window?.from}..${e.window?.to}`;
  } catch {
    return `${d.type} (unreadable body)`;
  }
}
