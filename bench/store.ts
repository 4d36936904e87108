/**
 * The file store against the memory store (issue "simulator on file"):
 *
 * 1. create throughput: POST /bookings through the Koa app over real HTTP
 *    (keep-alive), sequential and with concurrency, memory-backed vs
 *    file-backed, with 1,000 and with 100,000 bookings already stored
 *    (written straight into the store), all in one run;
 * 2. a compaction of the 100,000-booking state under a concurrent stream of
 *    creates: its duration, its longest event-loop hold, and the throughput
 *    and worst request latency meanwhile;
 * 3. restart of a data directory holding 100,000 bookings and 1,000,000
 *    events: the real CLI (`node --import tsx simulator/cli.ts`) spawned
 *    until it prints its banner, from a fresh snapshot, and from a snapshot
 *    plus a journal at the compaction threshold (the worst case after a kill).
 *
 * Run alone: `npm run bench:store` (`BENCH_QUICK=1` for a small smoke run).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { API_ROOT } from '../simulator/http/app.ts';
import { addDays, dateAt, timestamp } from '../protocol/calendar.ts';
import { eventKey } from '../simulator/domain/event-log.ts';
import type { Booking } from '../simulator/domain/model.ts';
import { createSimulator } from '../simulator/simulator.ts';
import { seedDemoWorld } from '../simulator/demo-world.ts';
import { makeHarness, type Harness } from '../simulator/testing.ts';
import { FileStore, type CompactionReport, type FileStoreOptions } from '../simulator/store/file-store.ts';
import { MemoryStore } from '../simulator/store/memory-store.ts';
import type { Store } from '../simulator/store/store.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';

export interface ThroughputResult {
  store: 'memory' | 'file';
  preloaded: number;
  sequentialPerSecond: number;
  concurrentPerSecond: number;
  concurrency: number;
  /** Journal write + fdatasync rounds per create in the concurrent phase (group commit: below 1). */
  syncsPerConcurrentCreate: number | null;
}

export interface CompactionUnderLoad {
  preloaded: number;
  compaction: CompactionReport;
  createsPerSecondDuring: number;
  createsDuring: number;
  worstRequestMs: number;
  /** Longest event-loop delay seen while it ran. */
  maxEventLoopDelayMs: number;
}

export interface RestartResult {
  bookings: number;
  events: number;
  snapshotBytes: number;
  journalBytes: number;
  /** From spawning `node --import tsx simulator/cli.ts --data DIR` to its banner. */
  readyMs: number;
}

export interface StoreBenchResult {
  throughput: ThroughputResult[];
  /** file / memory at the largest preload, sequential and concurrent. */
  ratioAtLargest: { sequential: number; concurrent: number };
  compaction: CompactionUnderLoad;
  restart: RestartResult[];
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'bench-store-'));
}

/** A realistic event body: a booking.changed envelope as the event log writes it (about 1 KB). */
function eventBody(sequence: number, integration: { id: number; slug: string }, property: { id: number; external_id: string }, data: string, at: number): string {
  return `{"id":"01J${sequence.toString(36).toUpperCase().padStart(23, '0')}","type":"booking.changed","version":"2026-09","sequence":${sequence},`
    + `"occurred_at":${JSON.stringify(timestamp(at))},"integration":{"id":${integration.id},"slug":${JSON.stringify(integration.slug)}},`
    + `"property":{"doorloom_id":${property.id},"external_id":${JSON.stringify(property.external_id)},"master_property_id":${property.id}},`
    + `"window":{"from":"2026-10-01","to":"2026-10-02"},"data":${data}}`;
}

/**
 * Writes `bookings` past bookings (with their keys and holds) and `events`
 * delivered events straight into the store, in transactions of a few
 * thousand records, for integration 1 of the demo world.
 */
export async function preload(store: Store, bookings: number, events: number): Promise<void> {
  const integration = store.get('integrations', '1')!;
  const property = store.get('properties', String(integration.coverage[0]))!;
  const now = Date.parse('2026-09-15T06:30:00Z');
  const firstId = (store.get('counters', 'booking')?.value ?? 5000) + 1;
  const firstDate = '2000-01-01';
  const views: string[] = [];
  const BATCH = 5000;
  for (let start = 0; start < bookings; start += BATCH) {
    store.transaction((tx) => {
      for (let i = start; i < Math.min(bookings, start + BATCH); i++) {
        const id = firstId + i;
        const unit = 900_000 + (i % 100); // units of an archive property: their holds never meet a live unit
        const checkIn = addDays(firstDate, Math.floor(i / 100));
        const booking: Booking = {
          id, integration_id: integration.id, external_booking_id: `PRE-${i}`, revision: 1, origin: 'partner', status: 'completed',
          property_id: property.id, check_in: checkIn, check_out: addDays(checkIn, 1),
          units: [{ inventory_id: unit, external_unit_id: `ARCH-${i % 100}`, adults: 2, children: 0, meal_plan: null, stay_price: 12000 }],
          pricing: { currency: 'INR', total: 12000, advance: 0, balance: 12000, includes_gst: null, breakdown: null },
          guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9800000000', email: null, country: null },
          payment: { status: null, amount_collected: 0, collected_by: null, reference: null },
          source: { channel: null, reference: null }, notes: null, created_at: now, updated_at: now,
        };
        tx.put('bookings', String(id), booking);
        tx.put('bookingKeys', `${integration.id}:${booking.external_booking_id}`, { booking_id: id });
        tx.put('holds', `${unit}:${checkIn}`, { booking_id: id });
        if (views.length < 1000) views.push(JSON.stringify({ id, external_booking_id: booking.external_booking_id, revision: 1, origin: 'partner', status: 'completed', property: { doorloom_id: property.id, external_id: property.external_id }, check_in: checkIn, check_out: booking.check_out, guests: { adults: 2, children: 0 }, units: booking.units, pricing: booking.pricing, guest: booking.guest, payment: booking.payment, source: booking.source, notes: null, created_at: timestamp(now), updated_at: timestamp(now) }));
      }
      tx.put('counters', 'booking', { value: firstId + Math.min(bookings, start + BATCH) - 1 });
    });
    await store.flush();
  }
  const firstSeq = integration.last_sequence + 1;
  for (let start = 0; start < events; start += BATCH) {
    store.transaction((tx) => {
      for (let i = start; i < Math.min(events, start + BATCH); i++) {
        const seq = firstSeq + i;
        tx.put('events', eventKey(integration.id, seq), {
          integration_id: integration.id, sequence: seq, type: 'booking.changed', property_id: property.id, booking_id: firstId + (i % Math.max(1, bookings)),
          from: '2026-10-01', to: '2026-10-02', occurred_at: now, status: 'delivered', delivered_at: now,
          body: eventBody(seq, integration, property, views[i % Math.max(1, views.length)] ?? '{}', now), attempts: 1, next_attempt_at: null,
        });
      }
      const i = tx.get('integrations', String(integration.id))!;
      tx.put('integrations', String(i.id), { ...i, last_sequence: firstSeq + Math.min(events, start + BATCH) - 1 });
      const stream = tx.get('eventStreams', String(i.id)) ?? { first_retained: 1, undelivered: 0 };
      tx.put('eventStreams', String(i.id), { ...stream, next_delivery: firstSeq + Math.min(events, start + BATCH) });
    });
    await store.flush();
  }
}

/** Serves the harness's app on a port; creates go through real HTTP with keep-alive. */
export class CreateClient {
  private next = 0;
  private readonly slots: { doorloom_id: number; units: number }[];

  private constructor(private readonly server: Server, private readonly url: string, private readonly apiKey: string, h: Harness) {
    this.slots = h.fixtures.integrations[0]!.properties
      .filter((p) => !p.archived)
      .map((p) => ({ doorloom_id: p.doorloom_id, units: p.units.filter((u) => u.active).length }))
      .filter((p) => p.units > 0);
  }

  static async start(h: Harness): Promise<CreateClient> {
    const server = h.sim.app.listen(0, '127.0.0.1');
    await new Promise<void>((ok) => server.once('listening', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}/bookings`;
    return new CreateClient(server, url, h.fixtures.integrations[0]!.apiKey, h);
  }

  /** One 1-night, 1-unit stay in a slot no other create takes: night 100 + k, property by turn, within its unit count. */
  private body(): Record<string, unknown> {
    const i = this.next++;
    const perNight = this.slots.reduce((s, p) => s + p.units, 0);
    let within = i % perNight;
    const slot = this.slots.find((p) => (within < p.units ? true : ((within -= p.units), false)))!;
    const checkIn = addDays(dateAt(Date.parse('2026-09-15T06:30:00Z')), 100 + Math.floor(i / perNight));
    return {
      external_booking_id: `BENCH-${i}-${randomBytes(3).toString('hex')}`, property: { doorloom_id: slot.doorloom_id }, units: [{ adults: 2 }],
      check_in: checkIn, check_out: addDays(checkIn, 1), guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
    };
  }

  async create(): Promise<number> {
    const t0 = performance.now();
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${randomBytes(8).toString('hex')}` },
      body: JSON.stringify(this.body()),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${text.slice(0, 300)}`);
    return performance.now() - t0;
  }

  /** `count` creates, `concurrency` at a time; returns creates per second and the slowest. */
  async run(count: number, concurrency: number): Promise<{ perSecond: number; worstMs: number }> {
    let left = count;
    let worstMs = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left -= 1;
        worstMs = Math.max(worstMs, await this.create());
      }
    }));
    return { perSecond: count / ((performance.now() - t0) / 1000), worstMs };
  }

  /** Creates until `done` settles; returns how many and how fast. */
  async runUntil(done: Promise<unknown>, concurrency: number): Promise<{ count: number; perSecond: number; worstMs: number }> {
    let stop = false;
    void done.finally(() => (stop = true));
    let count = 0;
    let worstMs = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (!stop) {
        worstMs = Math.max(worstMs, await this.create());
        count += 1;
      }
    }));
    return { count, perSecond: count / ((performance.now() - t0) / 1000), worstMs };
  }

  close(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

interface Bench {
  h: Harness;
  store: Store;
  client: CreateClient;
  close(): Promise<void>;
}

/** A harness on a memory or file store with `preloaded` bookings (and as many events), serving creates over HTTP. */
async function openBench(kind: 'memory' | 'file', preloaded: number, options?: FileStoreOptions): Promise<Bench> {
  const dir = kind === 'file' ? tempDir() : null;
  const store = dir ? await FileStore.open(dir, options) : new MemoryStore();
  const h = makeHarness({ store });
  await preload(store, preloaded, preloaded);
  // No rate limit in the way of a benchmark.
  store.transaction((tx) => {
    const i = tx.get('integrations', '1')!;
    tx.put('integrations', '1', { ...i, rate_limit: { limit: 1e9, window_seconds: 60 } });
  });
  await store.flush();
  // Start from a snapshot of the preloaded state, as a long-running simulator would have.
  if (store instanceof FileStore) await store.compact();
  const client = await CreateClient.start(h);
  return {
    h, store, client,
    async close() {
      await client.close();
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Memory and file side by side: both are built, warmed up, then measured in
 * alternating rounds (sequential, then concurrent), and each figure is the
 * median of its rounds, so a burst of load from elsewhere on the machine
 * hits both alike.
 */
export async function benchThroughput(preloaded: number, options = { sequential: 500, concurrent: 1000, concurrency: 8, rounds: 3 }): Promise<ThroughputResult[]> {
  const benches = { memory: await openBench('memory', preloaded), file: await openBench('file', preloaded) };
  try {
    for (const b of Object.values(benches)) await b.client.run(300, 4); // warm-up: JIT, connections
    const seq = { memory: [] as number[], file: [] as number[] };
    const con = { memory: [] as number[], file: [] as number[] };
    const syncs: number[] = [];
    for (let r = 0; r < options.rounds; r++) {
      for (const kind of ['memory', 'file'] as const) seq[kind].push((await benches[kind].client.run(options.sequential, 1)).perSecond);
    }
    for (let r = 0; r < options.rounds; r++) {
      for (const kind of ['memory', 'file'] as const) {
        const store = benches[kind].store;
        const before = store instanceof FileStore ? store.stats().syncRounds : 0;
        con[kind].push((await benches[kind].client.run(options.concurrent, options.concurrency)).perSecond);
        if (store instanceof FileStore) syncs.push((store.stats().syncRounds - before) / options.concurrent);
      }
    }
    return (['memory', 'file'] as const).map((kind) => ({
      store: kind, preloaded, concurrency: options.concurrency,
      sequentialPerSecond: median(seq[kind]), concurrentPerSecond: median(con[kind]),
      syncsPerConcurrentCreate: kind === 'file' ? median(syncs) : null,
    }));
  } finally {
    for (const b of Object.values(benches)) await b.close();
  }
}

export async function benchCompactionUnderLoad(preloaded: number, concurrency = 8, options?: FileStoreOptions): Promise<CompactionUnderLoad> {
  const b = await openBench('file', preloaded, options);
  try {
    await b.client.run(300, 4);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const compaction = (b.store as FileStore).compact();
    const during = await b.client.runUntil(compaction, concurrency);
    delay.disable();
    return {
      preloaded, compaction: await compaction, createsDuring: during.count, createsPerSecondDuring: during.perSecond,
      worstRequestMs: during.worstMs, maxEventLoopDelayMs: delay.max / 1e6,
    };
  } finally {
    await b.close();
  }
}

/** Spawns the real CLI on `dir` and resolves with the time to its banner; SIGTERMs it afterwards. */
export function timeCliStart(dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/cli.ts', '--port', '0', '--data', dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let readyMs: number | null = null;
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      if (readyMs === null && /base URL/.test(out) && out.endsWith('\n')) {
        readyMs = performance.now() - t0;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => (readyMs !== null ? resolve(readyMs) : reject(new Error(`the CLI exited with ${code} before serving\n${out}\n${err}`))));
  });
}

/**
 * A data directory as `npm start -- --data DIR` leaves it (vault key, demo
 * credentials, store), holding `bookings` bookings and `events` events.
 */
export async function buildDataDir(bookings: number, events: number): Promise<string> {
  const dir = tempDir();
  const vaultKey = randomBytes(32);
  writeFileSync(join(dir, 'vault.key'), vaultKey.toString('hex') + '\n', { mode: 0o600 });
  const store = await FileStore.open(dir, { compactAfterBytes: Number.MAX_SAFE_INTEGER });
  const sim = createSimulator({ store, vaultKey });
  const fixtures = seedDemoWorld(sim, { baseUrl: `http://127.0.0.1:4010${API_ROOT}`, staffToken: sim.staffToken! });
  writeFileSync(join(dir, 'demo-credentials.json'), JSON.stringify(fixtures, null, 2) + '\n', { mode: 0o600 });
  await preload(store, bookings, events);
  await store.flush();
  await store.compact();
  await store.close();
  return dir;
}

/** Rewrites `count` events (a status change each) through the journal only: no compaction. */
export async function churnJournal(dir: string, bytes: number): Promise<number> {
  const store = await FileStore.open(dir, { compactAfterBytes: Number.MAX_SAFE_INTEGER });
  try {
    const integration = store.get('integrations', '1')!;
    let seq = integration.last_sequence;
    while (store.stats().journalBytes < bytes && seq > 0) {
      store.transaction((tx) => {
        for (let k = 0; k < 5000 && seq > 0; k++, seq--) {
          const e = tx.get('events', eventKey(integration.id, seq));
          if (e) tx.put('events', eventKey(integration.id, seq), { ...e, attempts: e.attempts + 1 });
        }
      });
      await store.flush();
    }
    return store.stats().journalBytes;
  } finally {
    await store.close();
  }
}

export async function benchRestart(bookings: number, events: number): Promise<RestartResult[]> {
  const dir = await buildDataDir(bookings, events);
  try {
    const results: RestartResult[] = [];
    const opened = await FileStore.open(dir);
    const snapshotBytes = opened.stats().snapshotBytes;
    await opened.close();
    results.push({ bookings, events, snapshotBytes, journalBytes: 0, readyMs: await timeCliStart(dir) });
    // The worst case after a kill: the journal just short of the compaction threshold, max(64 MiB, an eighth of the snapshot).
    const journalBytes = await churnJournal(dir, Math.max(64 * 1024 * 1024, snapshotBytes / 8) - 4 * 1024 * 1024);
    results.push({ bookings, events, snapshotBytes, journalBytes, readyMs: await timeCliStart(dir) });
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStore(): Promise<StoreBenchResult> {
  const sizes = QUICK ? [1_000, 10_000] : [1_000, 100_000];
  const counts = QUICK ? { sequential: 200, concurrent: 400, concurrency: 8, rounds: 3 } : { sequential: 500, concurrent: 1000, concurrency: 8, rounds: 3 };
  const throughput: ThroughputResult[] = [];
  for (const preloaded of sizes) {
    throughput.push(...await benchThroughput(preloaded, counts));
    console.error(JSON.stringify(throughput.slice(-2)));
  }
  const largest = sizes.at(-1)!;
  const at = (kind: 'memory' | 'file') => throughput.find((t) => t.store === kind && t.preloaded === largest)!;
  const ratioAtLargest = {
    sequential: at('file').sequentialPerSecond / at('memory').sequentialPerSecond,
    concurrent: at('file').concurrentPerSecond / at('memory').concurrentPerSecond,
  };
  const compaction = await benchCompactionUnderLoad(largest);
  console.error(JSON.stringify(compaction));
  const restart = await benchRestart(QUICK ? 10_000 : 100_000, QUICK ? 100_000 : 1_000_000);
  return { throughput, ratioAtLargest, compaction, restart };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchStore(), null, 2));
}
