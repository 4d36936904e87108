/**
 * Two simulator processes (`npm start -- --database URL`, spawned from the
 * test build as the other CLI tests do) on one PostgreSQL database serve one
 * world (issue 39): the first to find the database empty seeds it and both
 * show the same credentials; what one creates the other serves; for the
 * last free unit of a night, concurrent creates through both give exactly
 * one 201 and one 409 UNAVAILABLE (§4.5 rules 6, 7); an identical create in
 * flight on one is 409 IN_PROGRESS on the other (§4.5 rule 3); each
 * integration's sequences stay contiguous (§6.1); a rotated key stops on both
 * at once (§5.3), and the virtual clock is one. A database migrated by a
 * newer simulator is refused at start (exit 2).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../../build/node-command.ts';
import { addDays } from '../../protocol/calendar.ts';
import type { Fixtures } from '../demo-world.ts';
import { startPgCluster, type PgCluster } from './pg-cluster.ts';
import { SCHEMA_VERSION } from './pg-schema.ts';
import { DEFAULT_RATE_LIMIT } from '../domain/integrations.ts';
import { bounded, call } from './test-support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Hang guards, not speed targets: a start on a machine loaded many times over can take 20 s. */
const START_TIMEOUT_MS = 300_000;
/** A cap far above the need (issue 38): a slow machine makes the test slower, not red. */
const EXIT_TIMEOUT_MS = 300_000;

interface Running {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
}

interface Serving extends Running {
  origin: string;
  api: string;
  fixtures: Fixtures;
}

let cluster: PgCluster;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  cluster = await startPgCluster();
  dir = mkdtempSync(join(tmpdir(), 'sim-pg-processes-'));
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function launch(args: string[]): Running {
  const child = spawn(process.execPath, [...nodeArgs('simulator/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const run: Running = { child, stdout: '', stderr: '', exit: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (run.stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (run.stderr += s));
  return run;
}

/** Starts `npm start -- --database URL --port 0` and resolves once its banner is out and its fixtures file written. */
async function startOn(url: string, name: string, extra: string[] = []): Promise<Serving> {
  const fixturesFile = join(dir, `${name}.json`);
  const run = launch(['--database', url, '--port', '0', '--fixtures-out', fixturesFile, ...extra]);
  const ready = new Promise<void>((resolve, reject) => {
    run.child.stdout!.on('data', () => {
      if (/base URL\s+\S+/.test(run.stdout) && run.stdout.endsWith('\n')) resolve();
    });
    void run.exit.then((code) => reject(new Error(`${name} exited with ${code} before serving\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)));
  });
  await bounded(ready, START_TIMEOUT_MS, () => `waiting for ${name} to serve\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as Fixtures;
  return Object.assign(run, { origin: new URL(fixtures.baseUrl).origin, api: fixtures.baseUrl, fixtures });
}

describe('two simulator processes on one PostgreSQL database serve one world', () => {
  let a: Serving;
  let b: Serving;
  let key: string;
  const staff = (s: Serving, method: string, path: string, body?: unknown) => call(s.origin, method, `/_staff${path}`, s.fixtures.staffToken, body);
  const api = (s: Serving, method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(s.api, method, path, key, body, headers);
  let today: string;
  let worldUrl: string;
  let stays = 0;
  /** A create body for `property` on a stay of its own (no two tests share nights). */
  const booking = (property: number, nights = 2) => {
    const checkIn = addDays(today, 200 + (stays += 5));
    return {
      external_booking_id: `PG-${stays}-${Math.random().toString(36).slice(2, 8)}`,
      property: { doorloom_id: property }, units: [{ adults: 2 }], check_in: checkIn, check_out: addDays(checkIn, nights),
      guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
    };
  };

  beforeAll(async () => {
    const url = (worldUrl = await cluster.createDatabase('shared_world'));
    // Started together: exactly one of them finds the database empty and seeds it (under the lock), the other waits and finds it seeded.
    [a, b] = await Promise.all([startOn(url, 'a'), startOn(url, 'b')]);
    key = a.fixtures.integrations[0]!.apiKey;
    const clock = await staff(a, 'GET', '/clock');
    today = (clock.body.data.now as string).slice(0, 10);
  });

  afterAll(async () => {
    for (const s of [a, b]) if (s) s.child.kill('SIGTERM');
    const codes = await Promise.all([a, b].filter(Boolean).map((s) => bounded(s.exit, EXIT_TIMEOUT_MS, () => 'waiting for a simulator to exit after SIGTERM')));
    expect(codes).toEqual([0, 0]);
  });

  it('the first seeds the demo world, the other restores it: the same staff token and keys, each its own base URL', () => {
    const seeded = [a, b].filter((s) => s.stdout.includes('(demo world seeded)'));
    expect(seeded, `${a.stdout}\n${b.stdout}`).toHaveLength(1);
    expect([a, b].filter((s) => s.stdout.includes('(state restored)'))).toHaveLength(1);
    expect(b.fixtures.staffToken).toBe(a.fixtures.staffToken);
    expect(b.fixtures.integrations.map((i) => i.apiKey)).toEqual(a.fixtures.integrations.map((i) => i.apiKey));
    expect(b.fixtures.baseUrl).not.toBe(a.fixtures.baseUrl);
    expect(a.stdout).toMatch(/storage +PostgreSQL postgres:\/\/postgres@127\.0\.0\.1:\d+\/shared_world/);
  });

  it('a booking created through one is served by the other, byte for byte', async () => {
    const sea = a.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    const created = await api(a, 'POST', '/bookings', booking(sea), { 'Idempotency-Key': 'pg-visible-1' });
    expect(created.status, created.text).toBe(201);
    const read = await api(b, 'GET', `/bookings/${created.body.data.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
  });

  it('§4.5 rules 6, 7: concurrent creates for the last free unit through both give one 201 and one 409 UNAVAILABLE, five times over', async () => {
    const hilltop = a.fixtures.integrations[0]!.properties.find((p) => p.units.length === 1)!.doorloom_id;
    for (let round = 0; round < 5; round++) {
      const body = booking(hilltop);
      const answers = await Promise.all([
        api(a, 'POST', '/bookings', { ...body, external_booking_id: `${body.external_booking_id}-a` }, { 'Idempotency-Key': `pg-last-${round}-a` }),
        api(b, 'POST', '/bookings', { ...body, external_booking_id: `${body.external_booking_id}-b` }, { 'Idempotency-Key': `pg-last-${round}-b` }),
      ]);
      expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join('\n')).toEqual([201, 409]);
      expect(answers.find((r) => r.status === 409)!.body.code).toBe('UNAVAILABLE');
    }
  });

  it('§4.5 rule 3: the identical create in flight on one process is 409 IN_PROGRESS on the other, then replays the 201', async () => {
    const sea = a.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    expect((await staff(a, 'PUT', '/settings', { create_latency_ms: 60_000 })).status).toBe(200);
    const operator = new pg.Client({ connectionString: worldUrl });
    await operator.connect();
    try {
      const body = booking(sea);
      const first = api(a, 'POST', '/bookings', body, { 'Idempotency-Key': 'pg-in-flight' });
      // Sent once the first create's claim is in the database (waited for, however slow the machine), while the first
      // is held outside its section: the key is in_progress there. Released (the setting lowered on the process that
      // holds it) only once the second is answered.
      const claimed = async () => (await operator.query<{ n: number }>("SELECT count(*)::int AS n FROM simulator_journal WHERE record LIKE '%pg-in-flight%'")).rows[0]!.n > 0;
      while (!(await claimed())) await new Promise((r) => setTimeout(r, 50));
      const second = await api(b, 'POST', '/bookings', body, { 'Idempotency-Key': 'pg-in-flight' });
      expect((await staff(a, 'PUT', '/settings', { create_latency_ms: 0 })).status).toBe(200);
      const done = await first;
      expect(done.status, done.text).toBe(201);
      expect(second.status, second.text).toBe(409);
      expect(second.body.code).toBe('IN_PROGRESS');
      const replay = await api(b, 'POST', '/bookings', body, { 'Idempotency-Key': 'pg-in-flight' });
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(done.text);
    } finally {
      await operator.end();
      await staff(a, 'PUT', '/settings', { create_latency_ms: 0 });
    }
  });

  it('§6.1: the integration\'s event sequences, read through either process, are 1..N without a gap or a repeat', async () => {
    const read = async (s: Serving) => {
      const seen: number[] = [];
      for (let after = 0; ;) {
        const page = await api(s, 'GET', `/events?after_sequence=${after}&limit=200&include_superseded=true`);
        expect(page.status, page.text).toBe(200);
        const sequences = (page.body.data as { sequence: number }[]).map((e) => e.sequence);
        if (sequences.length === 0) return seen;
        seen.push(...sequences);
        after = sequences.at(-1)!;
      }
    };
    const [viaA, viaB] = [await read(a), await read(b)];
    expect(viaA.length).toBeGreaterThan(10);
    expect(viaA).toEqual(Array.from({ length: viaA.length }, (_, i) => i + 1));
    expect(viaB).toEqual(viaA);
  });

  it('§5.2: an integration\'s rate limit is one across the processes: 6 calls through both with a limit of 5, exactly one 429', async () => {
    const integration = a.fixtures.integrations[1]!;
    const limited = await staff(a, 'PUT', `/integrations/${integration.id}/rate-limit`, { limit: 5, window_seconds: 3600 });
    expect(limited.status, limited.text).toBe(200);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await call((i % 2 === 0 ? a : b).api, 'GET', '/me', integration.apiKey)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await staff(b, 'PUT', `/integrations/${integration.id}/rate-limit`, { ...DEFAULT_RATE_LIMIT });
    }
  });

  it('a staff clock advance through either process answers, whichever holds the lease of the integration with deliveries due', async () => {
    const sea = a.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    const id = a.fixtures.integrations[0]!.id;
    // Nobody listens there: every attempt fails and the next is due within the hour (§6.4 retries).
    expect((await staff(a, 'PUT', `/integrations/${id}/webhook`, { webhook_url: 'http://127.0.0.1:9/hook' })).status).toBe(200);
    try {
      expect((await api(a, 'POST', '/bookings', booking(sea), { 'Idempotency-Key': 'pg-advance' })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 500));
      for (const s of [a, b]) {
        const moved = await bounded(staff(s, 'POST', '/clock/advance', { seconds: 3600 }), EXIT_TIMEOUT_MS, () => 'waiting for POST /_staff/clock/advance');
        expect(moved.status, moved.text).toBe(200);
      }
    } finally {
      await staff(a, 'PUT', `/integrations/${id}/webhook`, { webhook_url: null });
    }
  });

  it('§5.3: a key rotated through one process is refused by the other at once; the virtual clock moved on one is the other\'s', async () => {
    const id = a.fixtures.integrations[1]!.id;
    const oldKey = a.fixtures.integrations[1]!.apiKey;
    expect((await call(b.api, 'GET', '/me', oldKey)).status).toBe(200);
    const rotated = await staff(a, 'POST', `/integrations/${id}/rotate-api-key`);
    expect(rotated.status, rotated.text).toBe(200);
    expect((await call(b.api, 'GET', '/me', oldKey)).status).toBe(401);
    expect((await call(b.api, 'GET', '/me', rotated.body.data.api_key as string)).status).toBe(200);
    const set = await staff(a, 'PUT', '/clock', { now: '2031-01-01T00:00:00Z', frozen: true });
    expect(set.status, set.text).toBe(200);
    const seen = await staff(b, 'GET', '/clock');
    expect(seen.body.data).toMatchObject({ now: set.body.data.now, frozen: true });
    await staff(b, 'PUT', '/clock', { frozen: false });
  });
});

describe('§6.2 delivery across processes: one process per integration at a time, taken over when it dies', () => {
  it('the holder dies mid-attempt: the other process redelivers that event, then the rest in order, never two at once', async () => {
    // A partner that never answers the first delivery it gets, and answers every later one at once.
    const deliveries: { sequence: number }[] = [];
    let open = 0;
    let overlapped = false;
    let hung: ((seen: number) => void) | null = null;
    const firstHung = new Promise<number>((resolve) => (hung = resolve));
    const receiver = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8').on('data', (c: string) => (text += c));
      req.on('end', () => {
        const sequence = (JSON.parse(text) as { sequence: number }).sequence;
        deliveries.push({ sequence });
        if (hung) {
          const told = hung;
          hung = null;
          told(sequence);
          return; // left hanging: the process that sent it is killed before it times out
        }
        if (++open > 1) overlapped = true;
        res.statusCode = 204;
        res.end(() => open--);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const url = await cluster.createDatabase('delivery_takeover');
      // The first process alone: it takes every integration's lease; a booking gives it events to deliver to the hook.
      const holder = await startOn(url, 'holder', ['--webhook-url', hook]);
      const { apiKey, properties } = holder.fixtures.integrations[0]!;
      const checkIn = addDays((await call(holder.origin, 'GET', '/_staff/clock', holder.fixtures.staffToken)).body.data.now.slice(0, 10), 30);
      for (let i = 0; i < 3; i++) {
        const created = await call(holder.api, 'POST', '/bookings', apiKey, {
          external_booking_id: `TAKEOVER-${i}`, property: { doorloom_id: properties[0]!.doorloom_id }, units: [{ adults: 2 }],
          check_in: addDays(checkIn, 3 * i), check_out: addDays(checkIn, 3 * i + 2), guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
        }, { 'Idempotency-Key': `takeover-${i}` });
        expect(created.status, created.text).toBe(201);
      }
      const stuck = await bounded(firstHung, START_TIMEOUT_MS, () => `waiting for the first delivery\nstderr: ${holder.stderr}`);
      const other = await startOn(url, 'taker');
      expect(other.stdout).toContain('(state restored)');
      holder.child.kill('SIGKILL');
      await bounded(holder.exit, EXIT_TIMEOUT_MS, () => 'waiting for the killed holder');
      // The taker notices the lease free (its holder's session is gone), puts the head back in the queue and sends it again.
      await bounded((async () => {
        for (;;) {
          const found = deliveries.slice(1).find((d) => d.sequence === stuck);
          if (found) return found;
          await new Promise((r) => setTimeout(r, 100));
        }
      })(), EXIT_TIMEOUT_MS, () => `waiting for event ${stuck} to be delivered again; deliveries: ${JSON.stringify(deliveries.map((d) => d.sequence))}\ntaker stderr: ${other.stderr}`);
      // Then the rest, in sequence order (superseded events are skipped, never sent out of order), one at a time: waited
      // for until two more came (however long a slow machine takes), never a second of wall time.
      await bounded((async () => {
        while (deliveries.length < 4) await new Promise((r) => setTimeout(r, 100));
      })(), EXIT_TIMEOUT_MS, () => `waiting for two deliveries after event ${stuck}; deliveries: ${JSON.stringify(deliveries.map((d) => d.sequence))}\ntaker stderr: ${other.stderr}`);
      const after = deliveries.slice(1).map((d) => d.sequence);
      expect(after[0]).toBe(stuck);
      expect(after.length, JSON.stringify(after)).toBeGreaterThan(2);
      expect(after, JSON.stringify(after)).toEqual([...after].sort((x, y) => x - y));
      expect(new Set(after).size).toBe(after.length);
      expect(overlapped).toBe(false);
      other.child.kill('SIGTERM');
      expect(await bounded(other.exit, EXIT_TIMEOUT_MS, () => 'waiting for the taker to exit'), `taker stderr: ${other.stderr}`).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});

describe('the schema version', () => {
  it(`a database migrated by a newer simulator (version ${SCHEMA_VERSION + 1}) is refused at start: exit 2 and a message naming both versions`, async () => {
    const url = await cluster.createDatabase('from_the_future');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('CREATE TABLE simulator_schema (version integer PRIMARY KEY, why text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      await client.query("INSERT INTO simulator_schema (version, why) VALUES ($1, 'a newer simulator')", [SCHEMA_VERSION + 1]);
    } finally {
      await client.end();
    }
    const run = launch(['--database', url, '--port', '0']);
    const code = await bounded(run.exit, START_TIMEOUT_MS, () => `waiting for the refusal\nstderr: ${run.stderr}`);
    expect(code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`has schema version ${SCHEMA_VERSION + 1}, but this simulator knows versions up to ${SCHEMA_VERSION}`);
    expect(run.stdout).toBe('');
  });
});
