/**
 * Three simulator processes on one PostgreSQL database (issue 39, done-when
 * (b) and (c)), on one throwaway cluster started once for the file:
 *
 * - §4.5 rules 6, 7 (property): creates for the last free nights of a
 *   property, sent at once through different processes, never hold a unit
 *   twice on a night, and every refusal is a 409 UNAVAILABLE the accepted
 *   bookings justify (its pinned unit, or every active unit, is taken on a
 *   night of its stay);
 * - §2.5, §6, §6.2 (property): changes made through the three processes at
 *   once (creates of two integrations, staff rate changes) give each
 *   integration the sequences 1..N, the same through every process, and its
 *   webhook receives them one at a time in sequence order;
 * - the drill the file store passes (crash.test.ts), across processes: a
 *   process SIGKILLed in the middle of creates loses no acknowledged
 *   booking, reuses no id and no sequence, and a create it left in flight,
 *   retried under its key through another process, is answered, never 409
 *   IN_PROGRESS for good (§4.5 rule 3: that request is no longer being
 *   processed).
 *
 * Every verdict rests on what the processes answered and recorded, never on
 * how long they took: each wait is for an event, under one cap far above the
 * need (issue 38). fast-check prints the seed of any failure.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../protocol/calendar.ts';
import type { FixtureProperty } from '../demo-world.ts';
import { startPgCluster, type PgCluster } from './pg-cluster.ts';
import { allSequences, bounded, call, PROCESS_CAP_MS, startOnDatabase, type Answer, type SimulatorProcess } from './test-support.ts';

let cluster: PgCluster;
let dir: string;
let url: string;
const children: ChildProcess[] = [];
const procs: SimulatorProcess[] = [];
let today: string;

beforeAll(async () => {
  cluster = await startPgCluster();
  dir = mkdtempSync(join(tmpdir(), 'sim-pg-three-'));
  url = await cluster.createDatabase('three_processes');
  // The first seeds the world alone; the other two join it together.
  procs.push(await startOnDatabase(url, 'p0', dir, children));
  procs.push(...await Promise.all([startOnDatabase(url, 'p1', dir, children), startOnDatabase(url, 'p2', dir, children)]));
  today = ((await staff(0, 'GET', '/clock')).body.data.now as string).slice(0, 10);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function staff(via: number, method: string, path: string, body?: unknown): Promise<Answer> {
  const p = procs[via]!;
  return call(p.origin, method, `/_staff${path}`, p.fixtures.staffToken, body);
}

const createBody = (externalId: string, property: number, checkIn: string, nights: number, unit?: number) => ({
  external_booking_id: externalId, property: { doorloom_id: property }, units: [unit === undefined ? { adults: 2 } : { inventory_id: unit, adults: 2 }],
  check_in: checkIn, check_out: addDays(checkIn, nights), guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
});

/** The nights of a stay, as `YYYY-MM-DD`. */
const nightsOf = (checkIn: string, nights: number) => Array.from({ length: nights }, (_, i) => addDays(checkIn, i));

let runs = 0;

describe('§4.5 rules 6, 7 across three processes: the last free nights', () => {
  it('creates sent at once through different processes never hold a unit twice on a night, and every refusal is a justified 409 UNAVAILABLE (property)', async () => {
    const integration = procs[0]!.fixtures.integrations[0]!;
    // Sea View Villa: three active units, so pinned and unpinned creates compete for the last of them.
    const property = integration.properties.find((p) => p.units.filter((u) => u.active).length >= 3) as FixtureProperty;
    const units = property.units.filter((u) => u.active).map((u) => u.inventory_id);
    const request = fc.record({
      via: fc.integer({ min: 0, max: 2 }),
      from: fc.integer({ min: 0, max: 3 }),
      nights: fc.integer({ min: 1, max: 4 }),
      pin: fc.option(fc.constantFrom(...units), { nil: undefined }),
    });
    await fc.assert(fc.asyncProperty(fc.array(request, { minLength: 2, maxLength: 7 }), async (requests) => {
      // Each run books a window of its own, free when it starts: every unit of it is one of the last free ones.
      const run = ++runs;
      const windowStart = addDays(today, 20 + run * 6);
      const sent = requests.map((r) => ({ ...r, nights: Math.min(r.nights, 4 - r.from), checkIn: addDays(windowStart, r.from) }));
      const answers = await Promise.all(sent.map((r, i) => call(procs[r.via]!.api, 'POST', '/bookings', integration.apiKey,
        createBody(`LAST-${run}-${i}`, property.doorloom_id, r.checkIn, r.nights, r.pin), { 'Idempotency-Key': `last-free-${run}-${i}` })));
      const held = new Map<string, number>();
      answers.forEach((a, i) => {
        expect([201, 409], `request ${i} answered ${a.status}: ${a.text}`).toContain(a.status);
        if (a.status !== 201) return;
        const booking = a.body.data as { id: number; units: { inventory_id: number }[] };
        if (sent[i]!.pin !== undefined) expect(booking.units.map((u) => u.inventory_id), '§4.5 rule 6: a pinned unit is never swapped').toEqual([sent[i]!.pin]);
        for (const unit of booking.units) {
          for (const night of nightsOf(sent[i]!.checkIn, sent[i]!.nights)) {
            const cell = `${unit.inventory_id}@${night}`;
            expect(held.get(cell), `unit ${unit.inventory_id} on ${night} held by bookings ${held.get(cell)} and ${booking.id}`).toBeUndefined();
            held.set(cell, booking.id);
          }
        }
      });
      answers.forEach((a, i) => {
        if (a.status !== 409) return;
        expect(a.body.code, a.text).toBe('UNAVAILABLE');
        // Bookings only accumulate here (nothing is cancelled), so a refusal was justified when it was made only if the
        // accepted bookings still leave no unit it could have had for the whole stay.
        const r = sent[i]!;
        const candidates = r.pin !== undefined ? [r.pin] : units;
        const free = candidates.filter((unit) => nightsOf(r.checkIn, r.nights).every((night) => !held.has(`${unit}@${night}`)));
        expect(free, `request ${i} (${JSON.stringify(r)}) was refused although unit(s) ${free.join(', ')} stayed free for its whole stay`).toEqual([]);
      });
      // What was accepted is what every process serves.
      for (const [i, a] of answers.entries()) {
        if (a.status !== 201) continue;
        const read = await call(procs[(sent[i]!.via + 1) % 3]!.api, 'GET', `/bookings/${a.body.data.id}`, integration.apiKey);
        expect(read.body?.data, read.text).toEqual(a.body.data);
      }
    }), { numRuns: 10 });
  });
});

/** A partner endpoint per integration (`/hook/<id>`): records each delivery's sequence as it arrives, answers 204 at once. */
interface Receivers {
  server: Server;
  url(id: number): string;
  received: Map<number, number[]>;
  /** Set when two deliveries of one integration were ever open at once (§6.2: one at a time). */
  overlapped: number[];
}

async function startReceivers(): Promise<Receivers> {
  const received = new Map<number, number[]>();
  const open = new Map<number, number>();
  const overlapped: number[] = [];
  const server = createServer((req, res) => {
    const id = Number(/^\/hook\/(\d+)$/.exec(req.url ?? '')?.[1]);
    if ((open.get(id) ?? 0) > 0) overlapped.push(id);
    open.set(id, (open.get(id) ?? 0) + 1);
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const sequence = (JSON.parse(text) as { sequence?: number }).sequence;
      if (typeof sequence === 'number') received.set(id, [...(received.get(id) ?? []), sequence]);
      open.set(id, open.get(id)! - 1);
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, url: (id) => `http://127.0.0.1:${port}/hook/${id}`, received, overlapped };
}

/** Event rows of the integration from sequence 0 (status as the platform records it, §2.6). */
async function eventRows(api: string, key: string): Promise<{ sequence: number; status: string }[]> {
  const rows: { sequence: number; status: string }[] = [];
  for (let after = 0; ;) {
    const page = await call(api, 'GET', `/events?after_sequence=${after}&limit=200&include_superseded=true`, key);
    expect(page.status, page.text).toBe(200);
    const got = page.body.data as { sequence: number; status: string }[];
    if (got.length === 0) return rows;
    rows.push(...got.map((e) => ({ sequence: e.sequence, status: e.status })));
    after = got.at(-1)!.sequence;
  }
}

describe('§2.5, §6, §6.2 across three processes: sequences and delivery order', () => {
  let receivers: Receivers;
  beforeAll(async () => {
    receivers = await startReceivers();
    for (const integration of procs[0]!.fixtures.integrations.slice(0, 2)) {
      const set = await staff(0, 'PUT', `/integrations/${integration.id}/webhook`, { webhook_url: receivers.url(integration.id) });
      expect(set.status, set.text).toBe(200);
    }
  });
  afterAll(async () => {
    for (const integration of procs[0]!.fixtures.integrations.slice(0, 2)) await staff(0, 'PUT', `/integrations/${integration.id}/webhook`, { webhook_url: null });
    receivers.server.closeAllConnections();
    await new Promise<void>((r) => receivers.server.close(() => r()));
  });

  it('changes made through the three processes at once give each integration unique, contiguous sequences, delivered one at a time in order (property)', async () => {
    const integrations = procs[0]!.fixtures.integrations.slice(0, 2);
    const change = fc.record({
      via: fc.integer({ min: 0, max: 2 }),
      integration: fc.integer({ min: 0, max: 1 }),
      kind: fc.constantFrom('create', 'rates'),
      day: fc.integer({ min: 0, max: 40 }),
    });
    await fc.assert(fc.asyncProperty(fc.array(change, { minLength: 3, maxLength: 9 }), async (changes) => {
      const run = ++runs;
      const answers = await Promise.all(changes.map((c, i) => {
        const integration = integrations[c.integration]!;
        const property = integration.properties.find((p) => !p.archived && p.units.some((u) => u.active))!;
        const day = addDays(today, 120 + c.day);
        if (c.kind === 'rates') return staff(c.via, 'PUT', `/properties/${property.doorloom_id}/rates`, { from: day, to: addDays(day, 2), base_rate: 5000 + run * 10 + i });
        return call(procs[c.via]!.api, 'POST', '/bookings', integration.apiKey, createBody(`SEQ-${run}-${i}`, property.doorloom_id, day, 1), { 'Idempotency-Key': `sequences-${run}-${i}` });
      }));
      // A create may find its night taken by an earlier run's (409): a change nonetheless, of nothing; every other answer is a success.
      answers.forEach((a, i) => expect([200, 201, ...(changes[i]!.kind === 'create' ? [409] : [])], a.text).toContain(a.status));
      for (const integration of integrations) {
        const seen = await Promise.all(procs.map((p) => allSequences(p.api, integration.apiKey)));
        expect(seen[0]!, `integration ${integration.id}: sequences 1..N, none skipped or repeated`).toEqual(Array.from({ length: seen[0]!.length }, (_, i) => i + 1));
        expect(seen[1], 'the same log through every process').toEqual(seen[0]);
        expect(seen[2], 'the same log through every process').toEqual(seen[0]);
      }
      // Delivery: wait for the platform to have settled every event (delivered or superseded), then the receiver must have
      // seen exactly the delivered ones, each once, in sequence order.
      for (const integration of integrations) {
        const rows = await bounded((async () => {
          for (;;) {
            const got = await eventRows(procs[run % 3]!.api, integration.apiKey);
            if (got.every((e) => e.status === 'delivered' || e.status === 'superseded')) return got;
            await new Promise((r) => setTimeout(r, 100));
          }
        })(), PROCESS_CAP_MS, () => `waiting for integration ${integration.id}'s events to be delivered; received ${JSON.stringify(receivers.received.get(integration.id))}`);
        const delivered = rows.filter((e) => e.status === 'delivered').map((e) => e.sequence);
        expect(receivers.received.get(integration.id) ?? [], `integration ${integration.id}: deliveries in sequence order, each once`).toEqual(delivered);
        // The staff plane's delivery log is the shared one: the same through every process, whichever made the attempts.
        const logs = await Promise.all(procs.map((_, via) => staff(via, 'GET', `/integrations/${integration.id}/deliveries`)));
        for (const log of logs) expect(log.status, log.text).toBe(200);
        const logged = (logs[0]!.body.data as { kind: string; sequence: number | null }[]).filter((d) => d.kind === 'event').map((d) => d.sequence);
        expect(logged, `integration ${integration.id}: the staff plane's log of event attempts`).toEqual(delivered.slice(-logged.length));
        expect(logged.length).toBe(Math.min(200, delivered.length));
        expect(logs[1]!.body.data, 'the delivery log through p1').toEqual(logs[0]!.body.data);
        expect(logs[2]!.body.data, 'the delivery log through p2').toEqual(logs[0]!.body.data);
      }
      expect(receivers.overlapped, '§6.2: one delivery at a time per integration').toEqual([]);
    }), { numRuns: 6 });
  });
});

describe('a process SIGKILLed in the middle of creates (the drill the file store passes, across processes)', () => {
  const CLIENTS = 3;
  const CREATES_PER_CLIENT = 12;
  /** The victim is killed once this many creates through it were acknowledged: an event, not a moment. */
  const KILL_AFTER_ACKS = 4;

  it('loses no acknowledged booking, reuses no id or sequence, and every create it left unanswered is answered when retried under its key elsewhere', async () => {
    const integration = procs[0]!.fixtures.integrations[0]!;
    const property = integration.properties.find((p) => p.units.filter((u) => u.active).length >= 3)!;
    const victim = 2;
    const sequencesBefore = await allSequences(procs[0]!.api, integration.apiKey);
    const acknowledged = new Map<string, { answer: Answer; body: unknown }>(); // Idempotency-Key → the 201 and what was sent
    let acksOnVictim = 0;
    let killed: Promise<number | null> | null = null;
    const retriedElsewhere: string[] = [];
    const client = async (c: number) => {
      for (let i = 0; i < CREATES_PER_CLIENT; i++) {
        const key = `kill-${c}-${i}`;
        // A night of its own for each create (one unit each, three clients over three units): no refusal is expected.
        const body = createBody(`KILL-${c}-${i}`, property.doorloom_id, addDays(today, 300 + i * 2 + (c > 0 ? 1 : 0)), 1, c === 2 ? property.units[2]!.inventory_id : undefined);
        let via = (c + i) % 3;
        for (let attempt = 0; ; attempt++) {
          let answer: Answer;
          try {
            answer = await call(procs[via]!.api, 'POST', '/bookings', integration.apiKey, body, { 'Idempotency-Key': key });
          } catch {
            // No answer (the victim died under this create, or is dead): retried under the same key through another process.
            expect(via, `a create through p${via}, which was not killed, got no answer`).toBe(victim);
            retriedElsewhere.push(key);
            via = (via + 1) % 3;
            expect(attempt, 'retries').toBeLessThan(3);
            continue;
          }
          expect(answer.status, `${key} through p${via}: ${answer.text}`).toBe(201);
          acknowledged.set(key, { answer, body });
          if (via === victim && ++acksOnVictim === KILL_AFTER_ACKS) {
            procs[victim]!.child.kill('SIGKILL');
            killed = procs[victim]!.exit;
          }
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    expect(killed, 'the victim was killed during the creates').not.toBeNull();
    await bounded(killed!, PROCESS_CAP_MS, () => 'waiting for the killed process to exit');
    expect(acknowledged.size).toBe(CLIENTS * CREATES_PER_CLIENT);
    const ids = [...acknowledged.values()].map((a) => a.answer.body.data.id as number);
    expect(new Set(ids).size, 'no booking id given twice').toBe(ids.length);

    // The victim comes back on the same database; then every process serves every acknowledged booking, byte for byte,
    // and replays every acknowledged key's answer exactly.
    procs[victim] = await startOnDatabase(url, 'p2-again', dir, children);
    expect(procs[victim]!.stdout).toContain('(state restored)');
    for (const [n, [key, { answer, body }]] of [...acknowledged].entries()) {
      const p = procs[n % 3]!;
      const read = await call(p.api, 'GET', `/bookings/${answer.body.data.id}`, integration.apiKey);
      expect(read.body?.data, `${key} through ${p.name}`).toEqual(answer.body.data);
      const replayed = await call(p.api, 'POST', '/bookings', integration.apiKey, body, { 'Idempotency-Key': key });
      expect(replayed.text, `${key} replayed through ${p.name}`).toBe(answer.text);
    }
    // New creates take ids never given before, and the event log continues without a gap or a reuse.
    const fresh = await Promise.all(procs.map((p, i) => call(p.api, 'POST', '/bookings', integration.apiKey, createBody(`KILL-AFTER-${i}`, property.doorloom_id, addDays(today, 360 + i), 1), { 'Idempotency-Key': `kill-after-${i}` })));
    for (const f of fresh) {
      expect(f.status, f.text).toBe(201);
      expect(ids, 'a booking id given again after the kill').not.toContain(f.body.data.id);
    }
    const sequences = await allSequences(procs[1]!.api, integration.apiKey);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    expect(sequences.slice(0, sequencesBefore.length)).toEqual(sequencesBefore);
  });
});

describe('§4.5 rule 3 across processes: a create in flight on a process that dies', () => {
  it('is 409 IN_PROGRESS elsewhere while its process lives; once that process is gone, the identical retry is answered 201, not IN_PROGRESS for good', async () => {
    const integration = procs[0]!.fixtures.integrations[0]!;
    const property = integration.properties.find((p) => p.units.filter((u) => u.active).length >= 3)!;
    const key = 'in-flight-dead-owner';
    const body = createBody('DEAD-OWNER-1', property.doorloom_id, addDays(today, 400), 2);
    // The create sleeps a minute outside its section, its key in_progress in the database meanwhile.
    expect((await staff(0, 'PUT', '/settings', { create_latency_ms: 60_000 })).status).toBe(200);
    const owner = procs[1]!;
    const inFlight = call(owner.api, 'POST', '/bookings', integration.apiKey, body, { 'Idempotency-Key': key }).catch((e: Error) => e);
    // The claim is in the shared journal: the event waited for (asking through a process would claim the key itself).
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await bounded((async () => {
        for (;;) {
          const { rows } = await db.query('SELECT 1 FROM simulator_journal WHERE strpos(record, $1) > 0', [`"key":"${key}"`]);
          if (rows.length > 0) return;
          await new Promise((r) => setTimeout(r, 50));
        }
      })(), PROCESS_CAP_MS, () => 'waiting for the claim of the in-flight create to reach the journal');
    } finally {
      await db.end();
    }
    const whileAlive = await call(procs[0]!.api, 'POST', '/bookings', integration.apiKey, body, { 'Idempotency-Key': key });
    expect(whileAlive.status, whileAlive.text).toBe(409);
    expect(whileAlive.body.code).toBe('IN_PROGRESS');

    owner.child.kill('SIGKILL');
    await bounded(owner.exit, PROCESS_CAP_MS, () => 'waiting for the killed process to exit');
    expect(await inFlight, 'the killed process never answered').toBeInstanceOf(Error);
    expect((await staff(0, 'PUT', '/settings', { create_latency_ms: 0 })).status).toBe(200);
    const retried = await call(procs[2]!.api, 'POST', '/bookings', integration.apiKey, body, { 'Idempotency-Key': key });
    expect(retried.status, `the retry after its process died: ${retried.text}`).toBe(201);
    // Once, and for good: the key now replays that answer through every process.
    const replayed = await call(procs[0]!.api, 'POST', '/bookings', integration.apiKey, body, { 'Idempotency-Key': key });
    expect(replayed.text).toBe(retried.text);
  });
});
