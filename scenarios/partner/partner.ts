/**
 * The reference partner: the pieces of this folder put together the way the
 * API document asks a partner to work.
 *
 * - Webhooks (receiver.ts) are verified (signature.ts, §5.4; X-Service-
 *   Integration, §6.3) and applied if newer (apply.ts, §6.4), then persisted,
 *   and only then acknowledged with a 2xx.
 * - Replayed events go through the same handler (§6.4).
 * - On start, and whenever asked, it catches up (catch-up.ts, §6.8): replay
 *   from the stored cursor; snapshots (snapshots.ts, watermark rule §4.8) or
 *   POST /sync when the cursor is past retention or on a cold start, then
 *   bookings by `updated_since` (§6.9); snapshots for a newly covered or a
 *   drifted property.
 * - Bookings are created with a stored Idempotency-Key and identical body on
 *   every retry (bookings.ts, §4.5).
 * - Its minute timer (`tick`) reads GET /me at most once a minute (§5.7),
 *   onboards new properties and snapshots nights that came into its horizon.
 */
import { PartnerApi } from './api-client.ts';
import type { EventEnvelope, JsonObject } from './api-types.ts';
import { applyEvent, applyRecord, forgetNights, nightValues, type Applied } from './apply.ts';
import { BookingDesk, pollBookings, type BookingRequest } from './bookings.ts';
import { decideCatchUp, type CatchUpStep } from './catch-up.ts';
import { NO_BREAKAGES, type Breakages, type PartnerConfig } from './config.ts';
import { addDays, platformDate } from './dates.ts';
import type { DeliveryRecord } from './observer.ts';
import { startReceiver, type DeliveryAnswer, type IncomingDelivery, type Receiver } from './receiver.ts';
import { replayFrom } from './replay.ts';
import { INTEGRATION_HEADER, SIGNATURE_HEADER, verifySignature, DEFAULT_TOLERANCE_SECONDS } from './signature.ts';
import { missingRanges, takeSnapshots, type Window } from './snapshots.ts';
import { emptyState, NIGHT_TYPES, type PartnerState, type Reservation } from './state.ts';

/** Nights kept from today on, unless configured (at most the integration's horizon_days). */
export const DEFAULT_HORIZON_DAYS = 120;

export class ReferencePartner {
  readonly api: PartnerApi;
  readonly desk: BookingDesk;
  private readonly breakages: Breakages;
  private receiver: Receiver | null = null;
  private saving: Promise<void> = Promise.resolve();
  private readonly drifted = new Set<number>();
  /** The steps of the last catch-up (§6.8), for logs and tests. */
  lastCatchUp: CatchUpStep[] = [];
  /** The integration's horizon_days, once GET /me has told it. */
  private integrationHorizon: number | null = null;

  /**
   * The `ackBeforeStore` breakage: what deliveries wrote since the last
   * write-behind batch, as the places they wrote (a path into the state) and
   * the value each held before; saves write those old values.
   */
  private heldBack = new Map<string, { path: string[]; before: unknown }>();
  /** The `ackBeforeStore` breakage: bumped by every delivery, so only the last one's quiet period writes the batch. */
  private deliveries = 0;
  private stopped = false;

  private constructor(private readonly config: PartnerConfig, private readonly current: PartnerState) {
    this.breakages = { ...NO_BREAKAGES, ...config.breakages };
    this.api = new PartnerApi({
      baseUrl: config.baseUrl, credentials: config.credentials, clock: config.clock, sleep: config.sleep,
      fetch: config.fetch, observer: config.observer,
    });
    this.desk = new BookingDesk({
      api: this.api, state: () => this.current, save: () => this.persist(), sleep: config.sleep,
      breakages: this.breakages, observer: config.observer,
    });
  }

  /**
   * Loads the saved state, opens the webhook listener, re-drives
   * reservations whose answer was never read, and catches up (§6.8).
   */
  static async start(config: PartnerConfig): Promise<ReferencePartner> {
    const partner = await ReferencePartner.open(config);
    await partner.begin();
    return partner;
  }

  /**
   * The first half of `start`: loads the saved state and opens the webhook
   * listener, so a deployment can expose the partner's state (a state probe)
   * before the catch-up of `begin` runs.
   */
  static async open(config: PartnerConfig): Promise<ReferencePartner> {
    const loaded = await config.store.load();
    const partner = new ReferencePartner(config, loaded ?? emptyState());
    await partner.listen();
    if (loaded && (partner.breakages.dropCursorOnRestart || partner.breakages.cursorFromNowOnRestart)) {
      // BROKEN on purpose: the cursor was not kept, and with data on disk the partner assumes it is current.
      partner.current.cursor = await partner.api.latestSequence();
      partner.note(`restarted without its cursor; resuming from the newest sequence ${partner.current.cursor}`);
    } else if (loaded && partner.breakages.cursorFromZeroOnRestart) {
      // BROKEN on purpose: the stored cursor is ignored; the whole retained log is read again (§6.8: from the stored cursor).
      partner.current.cursor = 0;
      partner.note('restarted; replaying from sequence 0, not from the stored cursor');
    }
    return partner;
  }

  /** The second half of `start`: re-drives reservations whose answer was never read, and catches up (§6.8). */
  async begin(): Promise<void> {
    await this.desk.resume();
    await this.catchUp();
  }

  /** The listener's own URL (loopback); the registered webhook URL may be a public one in front of it. */
  get url(): string {
    return this.receiver?.url ?? '';
  }

  get port(): number {
    return this.receiver?.port ?? 0;
  }

  /** The partner's copy of the platform (read it; the partner owns it). */
  get state(): PartnerState {
    return this.current;
  }

  /** Closes the listener after the last save. */
  async stop(): Promise<void> {
    await this.receiver?.close();
    this.receiver = null;
    this.stopped = true;
    // A graceful stop writes what the ackBeforeStore batch still holds back; only a crash loses it.
    if (this.breakages.ackBeforeStore) await this.persistBatch();
    await this.saving;
  }

  /**
   * The nights the partner keeps: today to today + horizonDays − 1, in the
   * platform's calendar, never beyond the integration's own horizon_days
   * (§2.1: nights beyond it are not pushed, so a copy of them would go stale).
   */
  window(): Window {
    const today = platformDate(this.config.clock.now());
    const days = Math.min(this.config.horizonDays ?? DEFAULT_HORIZON_DAYS, this.integrationHorizon ?? Infinity);
    return { from: today, to: addDays(today, days - 1) };
  }

  /** §4.5 create with safe retries; see bookings.ts. */
  createBooking(request: BookingRequest): Promise<Reservation> {
    return this.desk.book(request);
  }

  /**
   * §6.8: decides from what it observes (cursor, first retained event,
   * covered properties, drifted ones) and carries the steps out.
   */
  async catchUp(): Promise<CatchUpStep[]> {
    const s = this.current;
    let first: number | null = null;
    let latest: number;
    if (s.cursor === null) latest = await this.api.latestSequence();
    else {
      const peek = await this.api.events(s.cursor, 1);
      first = peek.rows[0]?.sequence ?? null;
      latest = peek.cursor.latest_sequence;
    }
    // The property list: newly covered properties, and records stamped with `latest` (read before the list).
    const list = await this.api.properties();
    const steps = decideCatchUp({
      cursor: s.cursor,
      firstAfterCursor: first,
      latestSequence: latest,
      knownProperties: Object.values(s.properties).filter((p) => p.complete).map((p) => p.doorloom_id),
      coveredProperties: list.map((p) => p.doorloom_id),
      driftedProperties: [...this.drifted],
    }, this.config.recovery ?? 'snapshots');
    for (const r of list) {
      applyRecord(s, r.doorloom_id, r.external_id, 'record', r.property, latest);
      applyRecord(s, r.doorloom_id, r.external_id, 'inventory', r.inventory, latest);
    }
    this.lastCatchUp = steps;
    this.note(steps.length === 0 ? 'catch-up: nothing to do (§6.8)' : `catch-up plan: ${steps.map((x) => `${x.do}${'properties' in x ? ` ${x.properties.join(',')}` : ''} (${x.why})`).join('; ')}`);
    for (const step of steps) await this.carryOut(step, list.map((p) => p.doorloom_id), latest);
    await this.persist();
    return steps;
  }

  private async carryOut(step: CatchUpStep, covered: number[], latest: number): Promise<void> {
    const s = this.current;
    switch (step.do) {
      case 'replay':
        return this.replay(step.after);
      case 'rebuild':
        if (step.with === 'sync' && (await this.requestSync(covered, latest))) return;
        return this.rebuildFromSnapshots(covered, latest);
      case 'poll-bookings': {
        const polled = await pollBookings(this.api, s);
        this.note(`polled bookings updated since ${step.since === 'stored' ? 'the stored updated_at' : 'the beginning'}: ${polled.seen} seen, ${polled.applied} newer; highest updated_at now ${s.bookings_updated_since}`);
        return;
      }
      case 'snapshot-properties':
        for (const id of step.properties) {
          if (this.drifted.has(id)) forgetNights(s, id);
          await this.snapshotProperty(id);
          this.drifted.delete(id);
        }
        return;
      case 'forget-properties':
        for (const id of step.properties) delete s.properties[String(id)];
        return;
    }
  }

  /** Walks GET /events from `after` through the webhook handler; a retention gap turns into a rebuild. */
  private async replay(after: number): Promise<void> {
    const s = this.current;
    const outcome = await replayFrom(this.api, after, {
      ingest: (event) => void this.ingest(event),
      pageDone: async (cursor) => {
        s.cursor = Math.max(s.cursor ?? 0, cursor);
        await this.persist();
      },
      // BROKEN on purpose when set: superseded rows applied in sequence order (§3.3 says never).
      ingestSuperseded: this.breakages.applySupersededInOrder,
      superseded: this.breakages.applySuperseded
        ? (events) => {
          // BROKEN on purpose: superseded rows taken as missed deliveries and written over what is held.
          for (const e of events) applyEvent(s, e, true);
        }
        : undefined,
    });
    if (outcome.kind === 'caught-up') {
      this.note(`replayed ${outcome.rows} events in ${outcome.pages} page(s), skipped ${outcome.superseded} superseded (§3.3); cursor ${outcome.cursor}`);
      return;
    }
    this.note(`replay found a retention gap after ${outcome.after} (first retained ${outcome.firstRetained ?? 'none'})`);
    const covered = (await this.api.properties()).map((p) => p.doorloom_id);
    await this.carryOut({ do: 'rebuild', with: this.config.recovery ?? 'snapshots', why: '§6.8 beyond retention' }, covered, outcome.latest);
    await this.carryOut({ do: 'poll-bookings', since: 'stored', why: '§6.9' }, covered, outcome.latest);
  }

  /** Snapshots of every covered property; the cursor goes to the lowest watermark, then replay picks up the rest. */
  private async rebuildFromSnapshots(covered: number[], latest: number): Promise<void> {
    const s = this.current;
    let lowest: number | null = null;
    for (const id of covered) {
      const stamp = await this.snapshotProperty(id);
      if (stamp !== null) lowest = lowest === null ? stamp : Math.min(lowest, stamp);
    }
    for (const id of Object.keys(s.properties)) if (!covered.includes(Number(id))) delete s.properties[id];
    // BROKEN on purpose when set: the cursor goes to "now", past whatever happened while the snapshots were served.
    s.cursor = this.breakages.snapshotWatermarkIgnored ? await this.api.latestSequence() : lowest ?? latest;
    await this.persist();
    this.note(`rebuilt ${covered.length} properties from snapshots; cursor ${s.cursor} (the lowest watermark, §4.8)`);
    await this.replay(s.cursor);
  }

  /**
   * §4.7: a full re-sync through the webhook. The cursor moves to the newest
   * sequence read before the request: everything after arrives by webhook.
   * Refused (429 SYNC_TOO_SOON): false, and the caller uses snapshots.
   */
  private async requestSync(covered: number[], latest: number): Promise<boolean> {
    const s = this.current;
    const res = await this.api.sync({});
    if (res.status !== 202) {
      this.note(`POST /sync answered ${res.status} ${(res.body as { code?: string } | null)?.code ?? ''}; rebuilding from snapshots instead`);
      return false;
    }
    s.cursor = latest;
    for (const id of covered) {
      const copy = s.properties[String(id)];
      if (copy) copy.complete = true;
    }
    for (const id of Object.keys(s.properties)) if (!covered.includes(Number(id))) delete s.properties[id];
    await this.persist();
    this.note(`POST /sync accepted; events follow on the webhook; cursor ${latest}`);
    return true;
  }

  /** Availability, rates and restrictions of one property over the window (§4.8); returns the lowest stamp. */
  private async snapshotProperty(id: number): Promise<number | null> {
    const result = await takeSnapshots(this.api, this.current, id, NIGHT_TYPES, [this.window()], { ignoreWatermark: this.breakages.ignoreWatermark });
    const copy = this.current.properties[String(id)];
    if (copy) copy.complete = true;
    await this.persist();
    return result.lowestStamp;
  }

  /**
   * §6.8 "single drifted property, use a snapshot": the copy of one property
   * is known to be wrong; it is forgotten and rebuilt from snapshots.
   */
  async repairProperty(id: number): Promise<void> {
    this.drifted.add(id);
    forgetNights(this.current, id);
    this.note(`property ${id} drifted: rebuilding its copy from snapshots (§6.8)`);
    await this.snapshotProperty(id);
    this.drifted.delete(id);
  }

  /**
   * The minute timer: GET /me (at most once a minute, §5.7); a change in
   * covered properties, an event about a property not onboarded yet, or a
   * paused webhook (§3.1: the API keeps working) triggers a catch-up; nights
   * that came into the horizon are snapshotted (§2.1: they are not pushed
   * until they change).
   */
  async tick(): Promise<void> {
    const me = await this.api.me();
    if (me) this.integrationHorizon = me.horizon_days;
    const complete = Object.values(this.current.properties).filter((p) => p.complete).length;
    const incomplete = Object.values(this.current.properties).some((p) => !p.complete);
    if (me?.status === 'paused') this.note(`GET /me: webhook paused (${me.webhook.paused_reason}); catching up by replay meanwhile`);
    if (me?.status === 'paused' || incomplete || (me !== null && me.covered_properties !== complete)) await this.catchUp();
    await this.rollHorizon();
  }

  /**
   * §6.9 slow reconciliation, on the integration's own timer: bookings by
   * `updated_since` from the highest `updated_at` processed, a safety net
   * under the webhook (a deployment runs it every few minutes).
   */
  async reconcileBookings(): Promise<void> {
    const polled = await pollBookings(this.api, this.current);
    this.note(`reconciled bookings updated since the stored updated_at: ${polled.seen} seen, ${polled.applied} newer; highest updated_at now ${this.current.bookings_updated_since}`);
    await this.persist();
  }

  /** Snapshots the nights of the window the partner holds nothing for. */
  async rollHorizon(): Promise<void> {
    const w = this.window();
    for (const copy of Object.values(this.current.properties).filter((p) => p.complete)) {
      for (const type of NIGHT_TYPES) {
        const missing = missingRanges(copy, type, w.from, w.to);
        if (missing.length === 0) continue;
        this.note(`${copy.external_id}: ${type} for ${missing.map((m) => `${m.from}..${m.to}`).join(', ')} came into the horizon; snapshotting`);
        await takeSnapshots(this.api, this.current, copy.doorloom_id, [type], missing, { ignoreWatermark: this.breakages.ignoreWatermark });
      }
    }
    await this.persist();
  }

  /** Polls bookings changed since the stored updated_at (§6.9, slow reconciliation). */
  async pollBookings(): Promise<void> {
    await pollBookings(this.api, this.current);
    await this.persist();
  }

  /**
   * The one handler of events, whichever way they came (§6.4): apply if
   * newer, note properties not onboarded yet, advance the cursor (events come
   * in sequence order, §6.2). On a cold start the cursor stays unset until
   * the rebuild sets it.
   */
  private ingest(event: EventEnvelope, advance = true): Applied {
    const s = this.current;
    const result = applyEvent(s, event);
    if (advance && s.cursor !== null) s.cursor = Math.max(s.cursor, event.sequence);
    return result;
  }

  /** One catch-up at a time for gaps seen on the webhook; it runs beside the delivery, which is answered at once. */
  private gapCatchUp: Promise<void> | null = null;

  private replayGap(cursor: number, sequence: number): void {
    if (this.gapCatchUp) return;
    this.note(`delivery of sequence ${sequence} after cursor ${cursor}: catching up from the cursor (§6.8)`);
    this.gapCatchUp = this.catchUp()
      .then(() => undefined, (e: unknown) => this.note(`catch-up after a gap failed: ${(e as Error).message}`))
      .finally(() => {
        this.gapCatchUp = null;
      });
  }

  private async listen(): Promise<void> {
    this.receiver = await startReceiver(this.config.receiver ?? {}, (d) => this.onDelivery(d), (d, status) => {
      this.report(d, { type: typeOf(d.rawBody), sequence: sequenceOf(d.rawBody), status, outcome: status === 410 ? 'answered 410: path retired' : `answered ${status} (outage in front of the partner)` });
    });
  }

  /** One webhook delivery: verify, check the integration, apply, persist, then 2xx. */
  private async onDelivery(d: IncomingDelivery): Promise<DeliveryAnswer> {
    const header = d.headers[SIGNATURE_HEADER] as string | undefined;
    const refuse = (why: string): DeliveryAnswer => {
      this.report(d, { type: typeOf(d.rawBody), sequence: sequenceOf(d.rawBody), status: 400, outcome: `refused: ${why}` });
      return { status: 400 };
    };
    if (!this.breakages.skipSignatureVerification) {
      // BROKEN on purpose when set: the HMAC over re-serialised JSON, not the bytes received.
      const signed = this.breakages.reserialisedBodySignature ? reserialised(d.rawBody) : d.rawBody;
      const verdict = verifySignature(header, signed, this.config.credentials.webhookSecrets(), Math.floor(this.config.clock.now() / 1000), this.config.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
      if (!verdict.ok) return refuse(`signature ${verdict.reason}`);
    }
    if (d.headers[INTEGRATION_HEADER] !== this.config.slug) return refuse(`X-Service-Integration is not ${this.config.slug}`);
    let body: { type?: string; sequence?: number; last_sequence?: number; integration?: { slug?: string } };
    try {
      body = JSON.parse(d.rawBody.toString('utf8'));
    } catch {
      return refuse('not JSON');
    }
    if (body.integration?.slug !== this.config.slug) return refuse('payload names another integration');
    if (body.type === 'ping') {
      this.report(d, { type: 'ping', sequence: null, status: 200, outcome: `ping: last_sequence ${body.last_sequence}, cursor ${this.current.cursor}` });
      return { status: 200 };
    }
    if (this.breakages.ackBeforeStore) this.holdBack(body as EventEnvelope);
    // §6.2: events come one at a time in sequence order, so one past cursor + 1 says some did not arrive (withheld while
    // delivery was paused, or superseded and never sent): the stored cursor stays, and a replay from it fills the rest (§6.8).
    const cursor = this.current.cursor;
    const gap = cursor !== null && typeof body.sequence === 'number' && body.sequence > cursor + 1;
    const result = this.ingest(body as EventEnvelope, !gap);
    if (gap) this.replayGap(cursor, body.sequence!);
    // Durable before the 2xx: an acknowledged event is never redelivered (§6.2).
    await this.persist();
    const unit = body.type === 'booking.changed' ? 'booking' : ['inventory.changed', 'property.changed'].includes(body.type ?? '') ? 'record' : 'nights';
    const outcome = result.applied > 0
      ? `applied ${result.applied} ${unit}${result.dropped > 0 ? `, ${result.dropped} not newer` : ''}`
      : `dropped: not newer (${result.dropped} ${unit} held as new or newer)`;
    this.report(d, { type: body.type ?? '?', sequence: body.sequence ?? null, status: 200, outcome: result.unknownProperty && body.type !== 'booking.changed' ? `${outcome}; property not onboarded yet` : outcome });
    return { status: 200 };
  }

  private report(d: IncomingDelivery, r: Pick<DeliveryRecord, 'type' | 'sequence' | 'status' | 'outcome'>): void {
    this.config.observer?.delivery?.({ ...r, path: d.path, signatureHeader: d.headers[SIGNATURE_HEADER] as string | undefined, rawBody: d.rawBody.toString('utf8') });
  }

  private note(message: string): void {
    this.config.observer?.note?.(message);
  }

  /**
   * Saves one after another; each save writes the state as it is then (never
   * older than at the call). A failed save fails its caller (a delivery is
   * then answered 500 and retried) without blocking the saves after it.
   */
  private persist(): Promise<void> {
    const next = this.saving.catch(() => undefined).then(() => this.save());
    this.saving = next;
    return next;
  }

  private save(): Promise<void> {
    if (this.heldBack.size === 0) return this.config.store.save(this.current);
    // BROKEN on purpose (ackBeforeStore): the cursor is written now, what deliveries wrote only by the batch.
    const doc = structuredClone(this.current) as unknown as Record<string, unknown>;
    for (const { path, before } of this.heldBack.values()) {
      let at = doc;
      for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
      if (before === undefined) delete at[path.at(-1)!];
      else at[path.at(-1)!] = structuredClone(before);
    }
    return this.config.store.save(doc as unknown as PartnerState);
  }

  /**
   * BROKEN on purpose (ackBeforeStore): notes where a delivery is about to
   * write, with what is there now, so saves leave it out until the
   * write-behind batch, once no delivery came for a few seconds.
   */
  private holdBack(event: EventEnvelope): void {
    const property = String(event.property?.doorloom_id);
    const nightType = ({ 'availability.changed': 'availability', 'rates.changed': 'rates', 'restrictions.changed': 'restrictions' } as const)[event.type as string];
    const paths: string[][] = [];
    if (event.type === 'booking.changed') paths.push(['bookings', String((event.data as { id?: number }).id)]);
    else if (this.current.properties[property] === undefined) paths.push(['properties', property]);
    else if (nightType) for (const date of nightValues(nightType, event.data as JsonObject).keys()) paths.push(['properties', property, 'nights', nightType, date]);
    else paths.push(['properties', property, event.type === 'inventory.changed' ? 'inventory' : 'record']);
    for (const path of paths) {
      const key = path.join('\u0000');
      if (this.heldBack.has(key)) continue;
      let value: unknown = this.current;
      for (const k of path) value = (value as Record<string, unknown> | undefined)?.[k];
      this.heldBack.set(key, { path, before: structuredClone(value) });
    }
    const delivery = ++this.deliveries;
    void this.config.sleep(WRITE_BEHIND_QUIET_MS).then(() => {
      if (delivery === this.deliveries && !this.stopped) void this.persistBatch();
    });
  }

  /** The `ackBeforeStore` breakage's write-behind batch: everything as it is now. */
  private persistBatch(): Promise<void> {
    this.heldBack.clear();
    return this.persist();
  }
}

/** The `ackBeforeStore` breakage writes its batch once no delivery came for this long. */
export const WRITE_BEHIND_QUIET_MS = 5_000;

/** What a receiver that parses before it verifies would hash (the `reserialisedBodySignature` breakage). */
function reserialised(raw: Buffer): Buffer {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))), 'utf8');
  } catch {
    return raw;
  }
}

function typeOf(raw: Buffer): string {
  try {
    return String(JSON.parse(raw.toString('utf8')).type ?? '?');
  } catch {
    return '?';
  }
}

function sequenceOf(raw: Buffer): number | null {
  try {
    const s = JSON.parse(raw.toString('utf8')).sequence;
    return typeof s === 'number' ? s : null;
  } catch {
    return null;
  }
}
