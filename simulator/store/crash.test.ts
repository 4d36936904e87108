/**
 * The real simulator (`node --import tsx simulator/cli.ts --data DIR`),
 * killed with SIGKILL at random moments while the test streams creates at
 * it, then restarted, at least 20 times (compaction is set to run every
 * 64 KiB of journal, so kills land in compactions too; a few kills land in
 * the middle of a restart). After each kill and restart:
 *
 * - the data files load (read in-process, without repairing them) and hold
 *   every booking that got a 201;
 * - every booking that got a 201 is there: all of them listed (GET
 *   /bookings), those answered since the previous restart and a sample of
 *   older ones read by id (GET /bookings/{id}), and at the end every one;
 * - replaying an acknowledged Idempotency-Key returns the stored response
 *   byte for byte (the same ones as read by id); a create that never got an
 *   answer, retried under its key, is answered (never 409 IN_PROGRESS: the
 *   restart released its claim);
 * - GET /events from 0: sequences strictly increasing from 1 without a gap,
 *   every sequence seen before still names the same event, none reused, and
 *   new events continue above the old maximum.
 *
 * The kill moments come from a seeded generator (CRASH_SEED to replay one);
 * what is checked holds whatever the timing, so the test does not depend on
 * the speed of the machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Fixtures } from '../demo-world.ts';
import { readDataDir } from './file-store.ts';
import { nodeArgs } from '../../build/node-command.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SEED = Number(process.env.CRASH_SEED ?? 20260915);
const KILLS_DURING_CREATES = 20;
const KILLS_DURING_RESTART = 3;
/** A hang guard, not a speed target: a start on a machine loaded twelve times over its cores was seen taking over 20 s. */
const START_TIMEOUT_MS = 300_000;
const WORKERS = 2;

/** mulberry32: small, seeded, good enough to spread kill moments. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Child {
  process: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

function spawnCli(dir: string, fixturesFile: string): Child {
  const child = spawn(process.execPath, [...nodeArgs('simulator/cli.ts'), '--port', '0', '--data', dir, '--fixtures-out', fixturesFile], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SIMULATOR_COMPACT_AFTER_BYTES: String(64 * 1024) },
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s));
  return { process: child, exited: new Promise((resolve) => child.once('exit', () => resolve())), output: () => out };
}

async function serving(child: Child): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${START_TIMEOUT_MS} ms:\n${child.output()}`)), START_TIMEOUT_MS);
    const check = () => {
      const m = /base URL\s+(\S+)\n/.exec(child.output());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.process.stdout!.on('data', check);
    void child.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited (${child.process.exitCode}) before serving:\n${child.output()}`));
    });
    check();
  });
}

async function kill(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  await child.exited; // reaped: its pid is gone, so its lock is stale
}

interface Create {
  key: string;
  body: Record<string, unknown>;
}

interface Acked extends Create {
  id: number;
  text: string;
}

/** Runs `fn` over `items`, eight at a time. */
async function pool<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** A date `days` from today in the platform zone (the simulator runs on real time). */
function daysFromToday(days: number): string {
  return new Date(Date.now() + 330 * 60_000 + days * 86_400_000).toISOString().slice(0, 10);
}

const dirs: string[] = [];
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('crash safety of the simulator on file (SIGKILL during a stream of creates)', () => {
  it(`keeps every acknowledged create, idempotent answer and event sequence across ${KILLS_DURING_CREATES}+ kills (seed ${SEED})`, async () => {
    const random = rng(SEED);
    const dir = mkdtempSync(join(tmpdir(), 'crash-test-'));
    const fixturesFile = join(dir, '..', `${dir.split('/').at(-1)}-fixtures.json`);
    dirs.push(dir, fixturesFile);
    const context = () => `(seed ${SEED}, data ${dir})`;

    let child = spawnCli(dir, fixturesFile);
    children.push(child);
    let baseUrl = await serving(child);
    const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as Fixtures;
    const integration = fixtures.integrations[0]!;
    const origin = new URL(baseUrl).origin;
    const limit = await fetch(`${origin}/_staff/integrations/${integration.id}/rate-limit`, {
      method: 'PUT', headers: { Authorization: `Bearer ${fixtures.staffToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ limit: 1_000_000, window_seconds: 60 }),
    });
    expect(limit.status).toBe(200);

    // One 1-night stay per slot: property by turn within its active units, night 100 + k (clear of the demo world's blocks and caps).
    const slots = integration.properties.filter((p) => !p.archived).map((p) => ({ id: p.doorloom_id, units: p.units.filter((u) => u.active).length })).filter((p) => p.units > 0);
    const perNight = slots.reduce((s, p) => s + p.units, 0);
    let nextSlot = 0;
    const newCreate = (): Create => {
      const i = nextSlot++;
      let within = i % perNight;
      const slot = slots.find((p) => (within < p.units ? true : ((within -= p.units), false)))!;
      const checkIn = daysFromToday(100 + Math.floor(i / perNight));
      return {
        key: `crash-${SEED}-${i}`,
        body: {
          external_booking_id: `CRASH-${SEED}-${i}`, property: { doorloom_id: slot.id }, units: [{ adults: 2 }], check_in: checkIn,
          check_out: new Date(Date.parse(checkIn) + 86_400_000).toISOString().slice(0, 10), guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
        },
      };
    };
    const post = (c: Create) => fetch(`${baseUrl}/bookings`, {
      method: 'POST', headers: { Authorization: `Bearer ${integration.apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': c.key }, body: JSON.stringify(c.body),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
    const get = async (path: string) => {
      const res = await fetch(baseUrl + path, { headers: { Authorization: `Bearer ${integration.apiKey}` } });
      return { status: res.status, text: await res.text() };
    };

    const acked = new Map<string, Acked>();
    const unanswered = new Map<string, Create>();
    let ackedLastCycle: Acked[] = [];
    const eventIds = new Map<number, string>(); // sequence → event id, as seen in acknowledged reads
    let maxSequence = 0;
    let killsDuringCreates = 0;
    let killsDuringRestart = 0;
    let compactionsSeen = 0;

    const ack = (c: Create, answer: { status: number; text: string }, during: string) => {
      expect(answer.status, `${during}: ${answer.text} ${context()}`).toBe(201);
      const a = { ...c, id: (JSON.parse(answer.text) as { data: { id: number } }).data.id, text: answer.text };
      acked.set(c.key, a);
      return a;
    };

    const verify = async (cycle: number, all: boolean) => {
      const what = `after restart ${cycle}`;
      // Creates that never got an answer: retried under their key, they are answered now (201 fresh or replayed), never IN_PROGRESS.
      for (const c of unanswered.values()) ackedLastCycle.push(ack(c, await post(c), `${what}, the retry of an unanswered create`));
      unanswered.clear();
      // Every booking that ever got a 201 is listed; those answered since the last restart (a sample of older ones,
      // and at the end all of them) are read by id and their keys replayed byte for byte.
      const listed = new Map<number, string>();
      for (let page = 1, last = 1; page <= last; page++) {
        const res = await get(`/bookings?per_page=200&page=${page}`);
        expect(res.status, `${what}: GET /bookings ${res.text.slice(0, 300)} ${context()}`).toBe(200);
        const body = JSON.parse(res.text) as { data: { id: number; external_booking_id: string }[]; pagination: { last_page: number } };
        for (const b of body.data) listed.set(b.id, b.external_booking_id);
        last = body.pagination.last_page;
      }
      for (const a of acked.values()) expect(listed.get(a.id), `${what}: booking ${a.id} (201 to ${a.key}) is there ${context()}`).toBe(a.body.external_booking_id);
      const olderSample = Array.from(acked.values()).filter((_, i) => i % 29 === cycle % 29);
      const checks = all ? Array.from(acked.values()) : Array.from(new Set([...ackedLastCycle, ...olderSample]));
      ackedLastCycle = [];
      await pool(checks, async (a) => {
        const read = await get(`/bookings/${a.id}`);
        expect(read.status, `${what}: booking ${a.id} (201 to ${a.key}) ${read.text} ${context()}`).toBe(200);
        expect((JSON.parse(read.text) as { data: { external_booking_id: string } }).data.external_booking_id).toBe(a.body.external_booking_id);
        const replay = await post(a);
        expect(replay.status, `${what}: replay of ${a.key} ${context()}`).toBe(201);
        expect(replay.text, `${what}: replay of ${a.key} is byte for byte the stored answer ${context()}`).toBe(a.text);
      });
      // The event log: 1..latest, strictly increasing, no sequence reused, continuing above the old maximum.
      let after = 0;
      let expected = 1;
      const ids = new Set<string>();
      for (;;) {
        const page = await get(`/events?after_sequence=${after}&limit=200&include_superseded=true`);
        expect(page.status, `${what}: GET /events ${page.text.slice(0, 300)} ${context()}`).toBe(200);
        const body = JSON.parse(page.text) as { data: { sequence: number; event: { id: string; sequence: number } }[]; cursor: { next_after_sequence: number; has_more: boolean; latest_sequence: number } };
        for (const row of body.data) {
          expect(row.sequence, `${what}: sequences from 1 without a gap ${context()}`).toBe(expected);
          expect(row.event.sequence).toBe(row.sequence);
          const before = eventIds.get(row.sequence);
          if (before !== undefined) expect(row.event.id, `${what}: sequence ${row.sequence} still names the same event ${context()}`).toBe(before);
          expect(ids.has(row.event.id), `${what}: event ${row.event.id} appears once ${context()}`).toBe(false);
          ids.add(row.event.id);
          eventIds.set(row.sequence, row.event.id);
          expected += 1;
        }
        if (!body.cursor.has_more) {
          expect(body.cursor.latest_sequence, `${what}: no acknowledged sequence lost ${context()}`).toBeGreaterThanOrEqual(maxSequence);
          break;
        }
        after = body.cursor.next_after_sequence;
      }
      maxSequence = expected - 1;
    };

    // Every cycle makes one kill, so the loop ends after KILLS_DURING_CREATES cycles; how long that takes is the
    // machine's speed, not the simulator's safety (a wall-clock bound here failed CI on a loaded machine). A hung
    // restart fails at START_TIMEOUT_MS, and the test's own time-out bounds the rest.
    for (let cycle = 1; killsDuringCreates < KILLS_DURING_CREATES; cycle++) {
      // Stream creates from WORKERS clients; kill at a random moment.
      let killed = false;
      const sequenceBefore = maxSequence;
      const workers = Array.from({ length: WORKERS }, async () => {
        while (!killed) {
          const c = newCreate();
          unanswered.set(c.key, c);
          let answer: { status: number; text: string };
          try {
            answer = await post(c);
          } catch {
            return; // the connection died with the process: no answer, stays unanswered
          }
          unanswered.delete(c.key);
          ackedLastCycle.push(ack(c, answer, `cycle ${cycle}`));
        }
      });
      await new Promise((r) => setTimeout(r, 30 + random() * 370));
      killed = true;
      await kill(child);
      await Promise.all(workers);
      killsDuringCreates += 1;

      // The files load as they are, and hold every booking that got a 201.
      const files = await readDataDir(dir);
      const bookings = files.tables.get('bookings') ?? new Map();
      for (const a of acked.values()) expect(bookings.has(String(a.id)), `booking ${a.id} (201 to ${a.key}) is in the files after kill ${killsDuringCreates} ${context()}`).toBe(true);
      compactionsSeen = Math.max(compactionsSeen, files.snapshot?.generation ?? 0);

      // Now and then, kill the restart itself (during load, recovery or repair), then restart again.
      if (killsDuringRestart < KILLS_DURING_RESTART && random() < 0.3) {
        child = spawnCli(dir, fixturesFile);
        children.push(child);
        await new Promise((r) => setTimeout(r, random() * 600));
        await kill(child);
        killsDuringRestart += 1;
      }
      const t0 = Date.now();
      child = spawnCli(dir, fixturesFile);
      children.push(child);
      baseUrl = await serving(child);
      const t1 = Date.now();
      expect(child.output()).toContain('(state restored)');
      await verify(cycle, false);
      if (process.env.CRASH_DEBUG) console.log(`cycle ${cycle}: start ${t1 - t0} ms, verify ${Date.now() - t1} ms, acked ${acked.size}, events ${maxSequence}, generation ${compactionsSeen}`);
      expect(maxSequence, `new events continue above the old maximum ${context()}`).toBeGreaterThanOrEqual(sequenceBefore);
    }

    // A last, clean round: everything ever acknowledged, then a graceful stop.
    const last = newCreate();
    ack(last, await post(last), 'the last create');
    const lastSequence = maxSequence;
    await verify(0, true);
    expect(maxSequence, 'the last create added events above every sequence seen before it').toBeGreaterThan(lastSequence);
    child.process.kill('SIGTERM');
    await child.exited;
    expect(child.process.exitCode).toBe(0);

    expect(killsDuringCreates).toBeGreaterThanOrEqual(KILLS_DURING_CREATES);
    expect(acked.size, `creates acknowledged over ${killsDuringCreates} kills ${context()}`).toBeGreaterThan(KILLS_DURING_CREATES);
    expect(compactionsSeen, 'compactions ran between the kills').toBeGreaterThan(0);
  });
});
