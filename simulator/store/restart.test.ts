/**
 * A simulator on a file store, restarted: every table comes back as it was
 * (bookings, idempotency records with their expiry, the event log and its
 * statuses, delivery state and webhook health, sequences, rate-limit and
 * sync windows, the clock, credentials sealed as in memory), the partner
 * sees the same answers byte for byte, and work that was in flight when the
 * process died is recovered (recoverAfterRestart).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { API_ROOT } from '../http/app.ts';
import { STAFF_ROOT } from '../staff/routes.ts';
import { VirtualClock } from '../domain/clock.ts';
import { recoverAfterRestart } from '../domain/recovery.ts';
import { seedDemoWorld, type Fixtures } from '../demo-world.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { TEST_NOW } from '../testing.ts';
import { verifySignature } from '../../protocol/signature.ts';
import type { Transport } from '../webhooks/transport.ts';
import { FileStore } from './file-store.ts';
import { LOCK_FILE } from './lock.ts';
import { MemoryStore } from './memory-store.ts';
import { sampleBooking } from './store.contract.ts';

const VAULT_KEY = Buffer.alloc(32, 7);
const STAFF = 'stf_restart_test_token';
const dirs: string[] = [];
const open: FileStore[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restart-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const s of open.splice(0).reverse()) await s.close().catch(() => undefined);
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A transport that records every post and answers from `answer` (a promise that never settles plays a partner that never answers). */
function recorder(answer: () => Promise<{ status: number }> = async () => ({ status: 200 })): Transport & { sent: Sent[] } {
  const sent: Sent[] = [];
  return { sent, post: (url, headers, body) => (sent.push({ url, headers, body }), answer()) };
}

interface Running {
  sim: Simulator;
  store: FileStore;
  http: ReturnType<typeof supertest>;
}

async function start(dir: string, transport: Transport, clock?: VirtualClock): Promise<Running> {
  const store = await FileStore.open(dir);
  open.push(store);
  // No clock on a restart: the simulator restores the one saved in settings.
  const sim = createSimulator({ store, vaultKey: VAULT_KEY, staffToken: clock ? STAFF : undefined, clock, transport });
  return { sim, store, http: supertest(sim.app.callback()) };
}

function dump(store: FileStore): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of store.tableNames().sort()) out[t] = Array.from(store.values(t), (v) => JSON.stringify(v)).sort();
  return out;
}

const api = (r: Running, key: string) => ({
  get: (path: string) => r.http.get(API_ROOT + path).set('Authorization', `Bearer ${key}`),
  post: (path: string, body: object, idem?: string) => {
    const req = r.http.post(API_ROOT + path).set('Authorization', `Bearer ${key}`);
    return (idem ? req.set('Idempotency-Key', idem) : req).send(body);
  },
});
const staff = (r: Running) => ({
  put: (path: string, body: object) => r.http.put(STAFF_ROOT + path).set('Authorization', `Bearer ${STAFF}`).send(body),
  post: (path: string, body: object = {}) => r.http.post(STAFF_ROOT + path).set('Authorization', `Bearer ${STAFF}`).send(body),
});

function bookingBody(fixtures: Fixtures, n: number): Record<string, unknown> {
  return {
    external_booking_id: `RESTART-${n}`, property: { doorloom_id: fixtures.integrations[0]!.properties[0]!.doorloom_id }, units: [{ adults: 2 }],
    check_in: `2026-10-${String(n).padStart(2, '0')}`, check_out: `2026-10-${String(n + 1).padStart(2, '0')}`, guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
  };
}

describe('restart on a file store', () => {
  it('restores every table as it was (the rate-limit windows excepted: volatile), and the partner gets the same answers byte for byte', async () => {
    const dir = tempDir();
    const hook = recorder(async () => ({ status: 500 }));
    const first = await start(dir, hook, new VirtualClock(() => Date.now(), { offsetMs: 0, frozenAt: TEST_NOW }));
    const fixtures = seedDemoWorld(first.sim, { baseUrl: API_ROOT, staffToken: STAFF });
    const key = fixtures.integrations[0]!.apiKey;
    const partner = api(first, key);

    // Bookings and their idempotent answers (a refusal stored too), webhook failures, a sync, staff changes.
    const created = [];
    for (let n = 1; n <= 3; n++) {
      const res = await partner.post('/bookings', bookingBody(fixtures, n), `restart-key-${n}`);
      expect(res.status, res.text).toBe(201);
      created.push({ key: `restart-key-${n}`, body: bookingBody(fixtures, n), text: res.text, id: res.body.data.id as number });
    }
    const refused = await partner.post('/bookings', { ...bookingBody(fixtures, 4), check_out: '2026-10-01' }, 'restart-key-refused');
    expect(refused.status).toBe(422);
    expect((await staff(first).put('/integrations/1/webhook', { url: 'http://partner.test/hook' })).status).toBe(200);
    await first.sim.webhooks.settle(); // the first attempt fails: webhook health and a retry are now state
    expect(hook.sent.length).toBeGreaterThan(0);
    expect((await partner.post('/sync', {})).status).toBe(202);
    const rotated = await staff(first).post('/integrations/1/rotate-webhook-secret');
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.webhook_secret as string;
    expect((await staff(first).put('/clock', { now: '2026-09-15T14:00:00+05:30' })).status).toBe(200);
    first.sim.sync.drain();
    const before = {
      me: (await partner.get('/me')).text,
      events: (await partner.get('/events?after_sequence=0&limit=500&include_superseded=true')).text,
      booking: (await partner.get(`/bookings/${created[0]!.id}`)).text,
      list: (await partner.get('/bookings?limit=50')).text,
      secondSync: (await partner.post('/sync', {})).text,
      clock: first.sim.clock.now(),
    };
    const tables = dump(first.store);
    expect(Object.keys(tables)).toEqual(expect.arrayContaining(['bookings', 'idempotency', 'events', 'eventStreams', 'rateWindows', 'syncWindows', 'settings', 'apiKeys', 'counters']));
    await first.store.close();
    open.splice(0);

    const reopened = await FileStore.open(dir);
    const { rateWindows, ...durableTables } = tables;
    expect(rateWindows, 'calls charged their rate-limit window').toBeDefined();
    expect(dump(reopened), 'every table but the volatile ones, every record').toEqual(durableTables);
    await reopened.close();

    const hook2 = recorder();
    const second = await start(dir, hook2);
    expect(second.sim.clock.now(), 'the clock offset, frozen instant included').toBe(before.clock);
    const again = api(second, key);
    for (const c of created) {
      const replay = await again.post('/bookings', c.body, c.key);
      expect(replay.status).toBe(201);
      expect(replay.text, 'an idempotent replay is byte for byte the first answer').toBe(c.text);
    }
    expect((await again.post('/bookings', { ...bookingBody(fixtures, 4), check_out: '2026-10-01' }, 'restart-key-refused')).text).toBe(refused.text);
    expect((await again.get(`/bookings/${created[0]!.id}`)).text).toBe(before.booking);
    expect((await again.get('/bookings?limit=50')).text).toBe(before.list);
    expect((await again.get('/events?after_sequence=0&limit=500&include_superseded=true')).text).toBe(before.events);
    expect((await again.post('/sync', {})).text, 'the sync window still refuses').toBe(before.secondSync);
    const me = await again.get('/me');
    expect(me.body.data).toEqual(JSON.parse(before.me).data);
    // Rate-limit windows are volatile: the restart opened a fresh one, charged only by the 9 calls since.
    expect(Number(me.headers['x-ratelimit-remaining'])).toBe(6000 - 9);

    // New events continue above the old sequences; the sealed secret (rotated before the restart) still signs.
    const fresh = await again.post('/bookings', bookingBody(fixtures, 7), 'restart-key-7');
    expect(fresh.status).toBe(201);
    const lastBefore = JSON.parse(before.me).data.webhook.last_sequence as number;
    const events = (await again.get(`/events?after_sequence=${lastBefore}&limit=50`)).body.data as { sequence: number }[];
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.sequence > lastBefore)).toBe(true);
    await second.sim.webhooks.advance(3_600_000);
    expect(hook2.sent.length).toBeGreaterThan(0);
    const verify = (secret: string) => hook2.sent.every((s) => verifySignature(s.headers['X-Service-Signature'], s.body, [secret], Math.floor(second.sim.clock.now() / 1000), 10 ** 9).ok);
    expect(verify(newSecret), 'the current secret, sealed on disk, opens with the vault key and signs').toBe(true);
    expect(verify(fixtures.integrations[0]!.webhookSecret), 'the previous secret still verifies during its 24-hour overlap').toBe(true);
  });

  it('recovers in-flight work after a kill: a claimed key is released, the event being delivered goes back to the queue', async () => {
    const dir = tempDir();
    const never = recorder(() => new Promise(() => undefined)); // the partner never answers: the attempt stays in flight
    const first = await start(dir, never, new VirtualClock(() => Date.now(), { offsetMs: 0, frozenAt: TEST_NOW }));
    const fixtures = seedDemoWorld(first.sim, { baseUrl: API_ROOT, staffToken: STAFF });
    const key = fixtures.integrations[0]!.apiKey;
    const partner = api(first, key);
    const made = await partner.post('/bookings', bookingBody(fixtures, 1), 'inflight-key-done');
    expect(made.status).toBe(201);
    expect((await staff(first).put('/integrations/1/webhook', { url: 'http://partner.test/hook' })).status).toBe(200);
    first.sim.webhooks.tick();
    expect(never.sent).toHaveLength(1);
    const inFlight = JSON.parse(never.sent[0]!.body).sequence as number;
    // A create that claimed its key and never answered (the process dies before it finishes).
    const caller = first.sim.platform.authenticate(`Bearer ${key}`);
    first.sim.platform.claimCreate(caller, 'inflight-key-open', bookingBody(fixtures, 2));
    await first.store.flush();
    expect(first.store.get('idempotency', `1:inflight-key-open`)?.state).toBe('in_progress');
    expect(first.store.get('events', `1:${inFlight}`)?.status).toBe('delivering');

    // SIGKILL now: the files as they are (the lock left behind by a process that is gone).
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith(LOCK_FILE) });
    const hook = recorder();
    const second = await start(copy, hook);
    expect(second.store.get('idempotency', '1:inflight-key-open'), 'released: its request never got an answer').toBeUndefined();
    expect(second.store.get('idempotency', '1:inflight-key-done')?.state).toBe('done');
    const requeued = second.store.get('events', `1:${inFlight}`)!;
    expect(requeued).toMatchObject({ status: 'failed', next_attempt_at: second.sim.clock.now(), attempts: 1 });
    // The retry of the unanswered create runs afresh instead of 409 IN_PROGRESS for a day.
    const retry = await api(second, key).post('/bookings', bookingBody(fixtures, 2), 'inflight-key-open');
    expect(retry.status, retry.text).toBe(201);
    // The event is delivered again at once (at least once), first in line.
    await second.sim.webhooks.settle();
    expect(JSON.parse(hook.sent[0]!.body).sequence).toBe(inFlight);
    expect(second.store.get('events', `1:${inFlight}`)!.status).toBe('delivered');
  });
});

describe('recoverAfterRestart', () => {
  const idem = (key: string, state: 'in_progress' | 'done') => ({
    integration_id: 1, key, fingerprint: 'f', state, status: state === 'done' ? 201 : null, body: state === 'done' ? '{}' : null, created_at: 0, expires_at: 86_400_000,
  });

  it.each([
    ['a fresh store', () => new MemoryStore(), { releasedKeys: 0, requeuedEvents: 0 }],
    ['keys in progress and done', () => {
      const s = new MemoryStore();
      s.transaction((tx) => {
        tx.put('idempotency', '1:a', idem('a', 'in_progress'));
        tx.put('idempotency', '1:b', idem('b', 'done'));
        tx.put('idempotency', '1:c', idem('c', 'in_progress'));
        tx.put('bookings', '1', sampleBooking(1));
      });
      return s;
    }, { releasedKeys: 2, requeuedEvents: 0 }],
    ['an event in flight at the head of a queue, settled ones before it', () => {
      const s = new MemoryStore();
      const event = (sequence: number, status: 'delivered' | 'delivering' | 'pending') => ({
        integration_id: 1, sequence, type: 'booking.changed' as const, property_id: 101, booking_id: 1, from: '2026-10-01', to: '2026-10-01',
        occurred_at: 0, status, delivered_at: null, body: '{}', attempts: 1, next_attempt_at: null,
      });
      s.transaction((tx) => {
        tx.put('integrations', '1', { id: 1, last_sequence: 3, webhook: {} } as never);
        tx.put('eventStreams', '1', { first_retained: 1, undelivered: 2, next_delivery: 1 });
        tx.put('events', '1:1', event(1, 'delivered'));
        tx.put('events', '1:2', event(2, 'delivering'));
        tx.put('events', '1:3', event(3, 'pending'));
      });
      return s;
    }, { releasedKeys: 0, requeuedEvents: 1 }],
  ])('%s', (_name, given, want) => {
    const store = given();
    const report = store.transaction((tx) => recoverAfterRestart(tx, 1000));
    expect(report).toEqual(want);
    expect(Array.from(store.values('idempotency')).every((r) => r.state === 'done')).toBe(true);
    expect(Array.from(store.values('events')).map((e) => [e.sequence, e.status, e.next_attempt_at])).not.toContainEqual(expect.arrayContaining(['delivering']));
    if (want.requeuedEvents) expect(store.get('events', '1:2')).toMatchObject({ status: 'failed', next_attempt_at: 1000, attempts: 1 });
  });
});
