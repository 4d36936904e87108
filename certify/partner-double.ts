/**
 * TEST DOUBLE: a small partner system for certification's own tests, not a
 * template (the reference partner in scenarios/partner/ is the template).
 * It does what the certification contract asks of a partner, with the
 * fewest moving parts, and can be broken on purpose in one way at a time so
 * the tests can show each breach failing exactly its requirement.
 *
 * - one HTTP server: POST /webhook (the receiver), GET /state (the state probe);
 * - every API call goes through one serial queue that honours Retry-After
 *   for all of them and re-reads the certification file after a 401;
 * - rates per night, apply-if-newer by sequence; superseded replay rows skipped;
 * - a delivery that skips past the cursor triggers a replay from the cursor;
 * - orders from the certification file are placed once each, with a key and
 *   body kept for every retry; 409 UNAVAILABLE is final;
 * - GET /me once a minute; GET /bookings by updated_since every 3 s; at start
 *   one rates snapshot, then replay from its watermark.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { addDays, dateAt } from '../protocol/calendar.ts';
import { verifySignature } from '../protocol/signature.ts';
import { readCertificationFile, type CertificationFile, type Order } from './credentials-file.ts';

export const BREAKAGES = ['skipSignature', 'newKeyPerRetry', 'pollMeEverySecond', 'ignoreRetryAfter', 'applySuperseded', 'applySupersededInOrder', 'reserialisedSignature', 'rejectDuplicates'] as const;
export type Breakage = (typeof BREAKAGES)[number];

export interface DoubleOptions {
  credentialsPath: string;
  port?: number;
  breakage?: Breakage | null;
  log?: (line: string) => void;
  /** Every API call waits this long before it goes out: a partner on a slow machine (issue 38). */
  callDelayMs?: number;
}

interface Night {
  value: Record<string, unknown>;
  sequence: number;
}

interface EventEnvelope {
  type: string;
  sequence: number;
  property: { doorloom_id: number };
  data: { dates?: Array<Record<string, unknown> & { date: string }> };
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export class PartnerDouble {
  private file: CertificationFile;
  private server!: Server;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private readonly pending = new Set<string>();
  private readonly placed = new Set<number>();
  private retryAfterUntil = 0;
  /** Ends the calls in flight when the double stops: no time-out of its own (a call given up on while the platform still answers it 429 would make the next call look early, §7). */
  private readonly stopping = new AbortController();
  private lastMe = -Infinity;
  private updatedSince: string | null = null;
  /** The highest sequence processed in order. */
  cursor = 0;
  /** Sequences answered 2xx by webhook (the rejectDuplicates breakage refuses them a second time). */
  private readonly received = new Set<number>();
  readonly nights = new Map<string, Night>();

  private constructor(private readonly o: DoubleOptions) {
    this.file = readCertificationFile(o.credentialsPath);
  }

  static async start(o: DoubleOptions): Promise<PartnerDouble> {
    const d = new PartnerDouble(o);
    await d.listen(o.port ?? 0);
    d.every(250, () => d.watchOrders());
    d.every(o.breakage === 'pollMeEverySecond' ? 1_000 : 5_000, () => d.once('me', () => d.me()));
    d.every(3_000, () => d.once('poll', () => d.pollBookings()));
    d.once('me', () => d.me());
    d.once('start', () => d.coldStart());
    return d;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
  }

  get stateUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/state`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const t of this.timers) clearInterval(t);
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
    await this.queue.catch(() => undefined);
  }

  private log(line: string): void {
    this.o.log?.(line);
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  /** Queues `task` unless one of the same name is already waiting (no pile-up behind a Retry-After). */
  private once(name: string, task: () => Promise<void>): void {
    if (this.pending.has(name) || this.stopped) return;
    this.pending.add(name);
    this.queue = this.queue.then(async () => {
      this.pending.delete(name);
      if (!this.stopped) await task();
    }).catch((e) => this.log(`task ${name} failed: ${(e as Error).message}`));
  }

  private reload(): void {
    try {
      this.file = readCertificationFile(this.o.credentialsPath);
    } catch {
      // Mid-rename: the next read gets it.
    }
  }

  // ------------------------------------------------------------ API

  private async api(method: 'GET' | 'POST', path: string, init: { body?: string; key?: string } = {}): Promise<Answer> {
    if (this.o.callDelayMs) await sleep(this.o.callDelayMs);
    let refreshed = false;
    for (let limited = 0; ;) {
      // §7: no call before the Retry-After has passed, looked at again after each wait: a refusal another of its calls
      // met meanwhile moves it on (with a window longer than its calls take, a call woken by an older one went early).
      for (let wait; (wait = this.retryAfterUntil - Date.now()) > 0 && this.o.breakage !== 'ignoreRetryAfter';) await sleep(wait);
      const headers: Record<string, string> = { Authorization: `Bearer ${this.file.apiKey}`, Accept: 'application/json' };
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      if (init.key !== undefined) headers['Idempotency-Key'] = init.key;
      const res = await fetch(this.file.baseUrl + path, { method, headers, body: init.body, signal: this.stopping.signal });
      const text = await res.text();
      const answer: Answer = { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
      if (res.status === 401 && !refreshed) {
        refreshed = true;
        const before = this.file.apiKey;
        this.reload();
        if (this.file.apiKey !== before) continue;
      }
      if (res.status === 429 && answer.body?.code === 'RATE_LIMITED' && limited < 8) {
        limited += 1;
        this.retryAfterUntil = Date.now() + Number(res.headers.get('retry-after') ?? '1') * 1000;
        // BROKEN on purpose (ignoreRetryAfter): straight back in.
        continue;
      }
      return answer;
    }
  }

  private async me(): Promise<void> {
    if (this.o.breakage !== 'pollMeEverySecond' && Date.now() - this.lastMe < 60_000) return;
    this.lastMe = Date.now();
    await this.api('GET', '/me');
  }

  private async pollBookings(): Promise<void> {
    const since = this.updatedSince === null ? '' : `&updated_since=${encodeURIComponent(this.updatedSince)}`;
    const res = await this.api('GET', `/bookings?per_page=200${since}`);
    if (res.status !== 200) return;
    for (const b of res.body.data as Array<{ updated_at: string }>) {
      if (this.updatedSince === null || Date.parse(b.updated_at) > Date.parse(this.updatedSince)) this.updatedSince = b.updated_at;
    }
  }

  /** One rates snapshot of the first property, then replay from its watermark (§4.8). */
  private async coldStart(): Promise<void> {
    const property = this.file.properties[0];
    if (!property) return;
    const today = dateAt(Date.now());
    const res = await this.api('GET', `/properties/${property.doorloom_id}/rates?from=${today}&to=${addDays(today, 60)}`);
    if (res.status !== 200) return;
    const snap = res.body.data as { sequence: number; data: { dates: Array<Record<string, unknown> & { date: string }> } };
    for (const { date, ...value } of snap.data.dates) this.hold(property.doorloom_id, date, value, snap.sequence, false);
    this.cursor = snap.sequence;
    await this.replay();
  }

  /** GET /events from the cursor, following next_after_sequence while has_more (§4.6). */
  private async replay(): Promise<void> {
    for (;;) {
      const res = await this.api('GET', `/events?after_sequence=${this.cursor}&limit=100&include_superseded=true`);
      if (res.status !== 200) return;
      const superseded: EventEnvelope[] = [];
      for (const row of res.body.data as Array<{ status: string; event: EventEnvelope }>) {
        // BROKEN on purpose (applySupersededInOrder): superseded rows applied in order like any other.
        if (row.status === 'superseded' && this.o.breakage !== 'applySupersededInOrder') superseded.push(row.event);
        else this.apply(row.event, false);
      }
      // BROKEN on purpose (applySuperseded): §3.3 says they must not be applied.
      if (this.o.breakage === 'applySuperseded') for (const e of superseded) this.apply(e, true);
      this.cursor = Math.max(this.cursor, res.body.cursor.next_after_sequence);
      if (!res.body.cursor.has_more) return;
    }
  }

  private watchOrders(): void {
    this.reload();
    for (const order of this.file.orders) {
      if (this.placed.has(order.n)) continue;
      this.placed.add(order.n);
      this.once(`order-${order.n}`, () => this.place(order));
    }
  }

  /** §4.5: one key and one body text per order, reused on every retry; 409 UNAVAILABLE is final. */
  private async place(order: Order): Promise<void> {
    let key = `cert-${randomUUID()}`;
    const body = JSON.stringify(order.request);
    for (let attempt = 1; attempt <= 6; attempt++) {
      // BROKEN on purpose (newKeyPerRetry): §4.5 rule 1 wants the same key for the same request.
      if (attempt > 1 && this.o.breakage === 'newKeyPerRetry') key = `cert-${randomUUID()}`;
      let res: Answer;
      try {
        res = await this.api('POST', '/bookings', { body, key });
      } catch {
        await sleep(500);
        continue;
      }
      if (res.status < 300 || res.status === 409 && res.body?.code === 'UNAVAILABLE') return;
      if (res.status === 429 || res.status >= 500 || res.body?.code === 'IN_PROGRESS') {
        await sleep(500);
        continue;
      }
      return;
    }
  }

  // ------------------------------------------------------------ receiver

  private apply(event: EventEnvelope, force: boolean): void {
    if (event.type !== 'rates.changed') return;
    for (const { date, ...value } of event.data.dates ?? []) this.hold(event.property.doorloom_id, date, value, event.sequence, force);
  }

  private hold(property: number, date: string, value: Record<string, unknown>, sequence: number, force: boolean): void {
    const key = `${property}:${date}`;
    const held = this.nights.get(key);
    if (force || !held || sequence > held.sequence) this.nights.set(key, { value, sequence });
  }

  private verified(header: string | undefined, raw: string): boolean {
    if (this.o.breakage === 'skipSignature') return true;
    // BROKEN on purpose (reserialisedSignature): the HMAC over the re-serialised JSON, not the bytes received.
    const body = this.o.breakage === 'reserialisedSignature' ? reserialise(raw) : raw;
    const now = Math.floor(Date.now() / 1000);
    if (verifySignature(header, body, this.file.webhookSecrets, now).ok) return true;
    // Perhaps the secret was rotated: the certification file has the new one.
    this.reload();
    return verifySignature(header, body, this.file.webhookSecrets, now).ok;
  }

  private receive(headers: Record<string, string | string[] | undefined>, body: string): number {
    if (!this.verified(headers['x-service-signature'] as string | undefined, body)) return 400;
    if (headers['x-service-integration'] !== this.file.integration.slug) return 400;
    let event: EventEnvelope & { type: string };
    try {
      event = JSON.parse(body);
    } catch {
      return 400;
    }
    if (event.type === 'ping') return 200;
    // BROKEN on purpose (rejectDuplicates): §6.4 says re-applying a full-state event is a no-op, acknowledged.
    if (this.o.breakage === 'rejectDuplicates' && this.received.has(event.sequence)) return 500;
    this.received.add(event.sequence);
    this.apply(event, false);
    if (event.sequence === this.cursor + 1) this.cursor = event.sequence;
    else if (event.sequence > this.cursor + 1) this.once('replay', () => this.replay());
    return 200;
  }

  private state(query: URLSearchParams): { status: number; body: string } {
    const night = this.nights.get(`${query.get('property_id')}:${query.get('date')}`);
    return night ? { status: 200, body: JSON.stringify(night.value) } : { status: 404, body: '{}' };
  }

  private async listen(port: number): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        let answer = { status: 404, body: '' };
        if (req.method === 'POST' && url.pathname === '/webhook') answer = { status: this.receive(req.headers, Buffer.concat(chunks).toString('utf8')), body: '' };
        else if (req.method === 'GET' && url.pathname === '/state') answer = this.state(url.searchParams);
        res.writeHead(answer.status, { 'Content-Type': 'application/json', Connection: 'close' }).end(answer.body);
      });
    });
    await new Promise<void>((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(port, '127.0.0.1', () => ok());
    });
  }
}

function reserialise(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return raw;
  }
}
