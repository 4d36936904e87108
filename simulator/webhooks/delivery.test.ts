/**
 * Webhook delivery (§3.1, §3.3, §5.4, §6.2, §6.3, §6.6) through nock on the
 * real node:http transport, driven by the virtual clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Outcome } from '../domain/delivery.ts';
import { EVENTUALLY, makeHarness, newKey, type Harness } from '../testing.ts';
import { verifySignature } from '../../protocol/signature.ts';
import type { Transport } from './transport.ts';
import { FileStore } from '../store/file-store.ts';
import type { Store } from '../store/store.ts';

const HOOK = 'http://partner.test';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

interface Received {
  body: string;
  headers: Record<string, string>;
  at: number;
}

/** A nock receiver answering each request with the next status of `script` (then `fallback`), recording what it got. */
function receiver(h: Harness, script: (number | 'timeout')[], fallback: number | 'timeout' = 200): Received[] {
  const got: Received[] = [];
  nock(HOOK).persist().post('/hook').reply(function (_uri, body) {
    got.push({ body: typeof body === 'string' ? body : JSON.stringify(body), headers: this.req.headers as Record<string, string>, at: h.sim.clock.now() });
    const next = script.length > 0 ? script.shift()! : fallback;
    return [next === 'timeout' ? 599 : next, ''];
  });
  return got;
}

async function configure(h: Harness): Promise<void> {
  await h.staff('put', '/integrations/1/webhook', { url: `${HOOK}/hook` });
}

async function booking(h: Harness, day: number): Promise<void> {
  const checkIn = `2026-10-${String(day).padStart(2, '0')}`;
  const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: checkIn, check_out: `2026-10-${String(day + 1).padStart(2, '0')}` }));
  expect(res.status).toBe(201);
}

const sequences = (got: Received[]) => got.map((r) => JSON.parse(r.body)).filter((b) => b.type !== 'ping').map((b) => b.sequence);
const me = async (h: Harness) => (await h.api('get', '/me')).body.data;

beforeAll(() => {
  // A worker runs several files (vitest isolate: false): nock may have been restored by an earlier run of this file.
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  // supertest talks to the app over loopback.
  nock.enableNetConnect('127.0.0.1');
});

// The next file in this worker gets node:http as it was.
afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  nock.restore();
});

afterEach(() => {
  nock.cleanAll();
});

describe('webhook delivery', () => {
  it('§6.2, §6.3: delivers one at a time in sequence order, signed, with X-Service-Integration and the stored envelope byte for byte', async () => {
    const h = makeHarness();
    const got = receiver(h, []);
    await configure(h);
    await booking(h, 1);
    await booking(h, 5);
    await h.sim.webhooks.settle();
    expect(sequences(got)).toEqual([1, 2, 3, 4]);
    const replay = await h.api('get', '/events');
    for (const [i, r] of got.entries()) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-service-integration']).toBe('acme-channel');
      expect(replay.text).toContain(`"event":${r.body}`);
      expect(verifySignature(r.headers['x-service-signature'], r.body, [h.fixtures.integrations[0]!.webhookSecret], Math.floor(r.at / 1000)).ok).toBe(true);
      expect(replay.body.data[i]).toMatchObject({ status: 'delivered', delivered_at: expect.any(String) });
    }
    // An existing verifier of this scheme accepts it unchanged.
    const stripe = new Stripe('sk_test_unused');
    const r = got[0]!;
    expect(() => stripe.webhooks.constructEvent(r.body, r.headers['x-service-signature']!, h.fixtures.integrations[0]!.webhookSecret, 10 ** 9)).not.toThrow();
    expect((await me(h)).webhook).toMatchObject({ undelivered_events: 0, consecutive_failures: 0, last_failure_at: null, last_success_at: expect.any(String) });
  });

  it('nothing is delivered while no webhook URL is configured; superseded events are never delivered', async () => {
    const h = makeHarness();
    const got = receiver(h, []);
    const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    await h.staff('put', `/properties/${property}/rates`, { from: '2026-10-01', to: '2026-10-01', base_rate: 1 });
    await h.staff('put', `/properties/${property}/rates`, { from: '2026-10-01', to: '2026-10-02', base_rate: 2 });
    await h.sim.webhooks.settle();
    expect(got).toEqual([]);
    expect((await me(h)).webhook.undelivered_events).toBe(1);
    await configure(h);
    await h.sim.webhooks.settle();
    expect(sequences(got)).toEqual([2]);
  });

  it('§6.2: no event overtakes an unacknowledged one; failures are retried on the schedule', async () => {
    const h = makeHarness();
    const got = receiver(h, [200, 500, 503, 'timeout']);
    await configure(h);
    await booking(h, 1);
    await booking(h, 5);
    const start = h.sim.clock.now();
    await h.sim.webhooks.advance(2 * MINUTE);
    expect(sequences(got)).toEqual([1, 2, 2, 2, 2, 3, 4]);
    // Retries of sequence 2 after 10 s, then 30 s more, then 60 s more.
    expect(got.slice(1, 5).map((r) => (r.at - start) / SECOND)).toEqual([0, 10, 40, 100]);
    const rows = (await h.api('get', '/events')).body.data;
    expect(rows.map((r: any) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it('a delivery that gets no answer within the time-out is a failure and is retried', async () => {
    const h = makeHarness({ deliveryTimeoutMs: 100 });
    let calls = 0;
    nock(HOOK).persist().post('/hook').reply(() => {
      calls += 1;
      return [200, ''];
    });
    nock.cleanAll();
    nock(HOOK).post('/hook').delay(400).reply(200, '');
    nock(HOOK).persist().post('/hook').reply(() => {
      calls += 1;
      return [200, ''];
    });
    await configure(h);
    await booking(h, 1);
    await h.sim.webhooks.settle();
    expect((await me(h)).webhook).toMatchObject({ consecutive_failures: 1, undelivered_events: 2 });
    expect((await h.api('get', '/events')).body.data[0].status).toBe('failed');
    await h.sim.webhooks.advance(10 * SECOND);
    expect(calls).toBe(2);
    expect((await me(h)).webhook).toMatchObject({ consecutive_failures: 0, undelivered_events: 0 });
  });

  it('§3.1: five consecutive failures pause delivery only once they have lasted six hours (auto); a probe 2xx resumes and drains in order', async () => {
    const h = makeHarness();
    const got = receiver(h, [], 500);
    await configure(h);
    await booking(h, 1);
    // Attempts at 0 s, 10 s, 40 s, 1 min 40 s and 6 min 40 s: five failures, far short of six hours.
    await h.sim.webhooks.advance(7 * MINUTE);
    expect((await me(h)).webhook.consecutive_failures).toBe(5);
    expect((await me(h)).status).toBe('active');
    await h.sim.webhooks.advance(5 * HOUR + 45 * MINUTE);
    expect((await me(h)).status).toBe('active');
    await h.sim.webhooks.advance(HOUR);
    const m = await me(h);
    expect(m.status).toBe('paused');
    expect(m.webhook).toMatchObject({ paused_reason: 'auto', paused_at: expect.any(String), undelivered_events: 2, last_success_at: null });
    // While paused the API keeps working and events accumulate.
    await booking(h, 9);
    expect((await me(h)).webhook.undelivered_events).toBe(4);
    const attempts = got.length;
    nock.cleanAll();
    const after = receiver(h, [500]);
    await h.sim.webhooks.advance(5 * MINUTE);
    expect(after.map((r) => JSON.parse(r.body).type)).toEqual(['ping']);
    expect((await me(h)).status).toBe('paused');
    await h.sim.webhooks.advance(5 * MINUTE);
    expect(sequences(after)).toEqual([1, 2, 3, 4]);
    expect(JSON.parse(after[1]!.body)).toMatchObject({ type: 'ping', last_sequence: 4 });
    expect(attempts).toBeGreaterThan(5);
    expect((await me(h)).webhook).toMatchObject({ paused_at: null, paused_reason: null, undelivered_events: 0, consecutive_failures: 0 });
    expect((await me(h)).status).toBe('active');
  });

  it('§3.1: a 410 pauses delivery at once with reason gone; staff resume drains in order', async () => {
    const h = makeHarness();
    const got = receiver(h, [410]);
    await configure(h);
    await booking(h, 1);
    await h.sim.webhooks.advance(HOUR);
    expect(sequences(got)).toEqual([1]);
    expect((await me(h)).webhook).toMatchObject({ paused_reason: 'gone', consecutive_failures: 1 });
    await h.staff('post', '/integrations/1/resume');
    await h.sim.webhooks.settle();
    expect(sequences(got)).toEqual([1, 1, 2]);
    expect((await me(h)).status).toBe('active');
  });

  it('§3.1: staff pause (manual) holds delivery until staff resume; no probes', async () => {
    const h = makeHarness();
    const got = receiver(h, []);
    await configure(h);
    await h.staff('post', '/integrations/1/pause');
    await booking(h, 1);
    await h.sim.webhooks.advance(HOUR);
    expect(got).toEqual([]);
    await h.staff('post', '/integrations/1/resume');
    await h.sim.webhooks.settle();
    expect(sequences(got)).toEqual([1, 2]);
  });

  it('§5.4: after a secret rotation each delivery carries two v1 values for 24 hours; a second rotation pushes the oldest out at once', async () => {
    const h = makeHarness();
    const got = receiver(h, []);
    await configure(h);
    const first = h.fixtures.integrations[0]!.webhookSecret;
    const { webhook_secret: second } = await h.staff('post', '/integrations/1/rotate-webhook-secret');
    await booking(h, 1);
    await h.sim.webhooks.settle();
    const v1s = (r: Received) => r.headers['x-service-signature']!.split(',').filter((p) => p.startsWith('v1='));
    expect(v1s(got[0]!)).toHaveLength(2);
    for (const secret of [first, second]) expect(verifySignature(got[0]!.headers['x-service-signature'], got[0]!.body, [secret], Math.floor(got[0]!.at / 1000)).ok).toBe(true);
    const { webhook_secret: third } = await h.staff('post', '/integrations/1/rotate-webhook-secret');
    await booking(h, 5);
    await h.sim.webhooks.settle();
    const last = got.at(-1)!;
    expect(v1s(last)).toHaveLength(2);
    expect(verifySignature(last.headers['x-service-signature'], last.body, [first], Math.floor(last.at / 1000)).ok).toBe(false);
    for (const secret of [second, third]) expect(verifySignature(last.headers['x-service-signature'], last.body, [secret], Math.floor(last.at / 1000)).ok).toBe(true);
    await h.sim.webhooks.advance(24 * HOUR);
    await booking(h, 9);
    await h.sim.webhooks.settle();
    expect(v1s(got.at(-1)!)).toHaveLength(1);
  });

  it('§6.7: an event that leaves the 30-day retention undelivered is not delivered later', async () => {
    const h = makeHarness();
    const got = receiver(h, [], 500);
    await configure(h);
    await booking(h, 1);
    await h.sim.webhooks.settle();
    await h.staff('post', '/integrations/1/pause');
    await h.sim.webhooks.advance(31 * 24 * HOUR);
    nock.cleanAll();
    const after = receiver(h, []);
    await h.staff('post', '/integrations/1/resume');
    await h.sim.webhooks.settle();
    expect(sequences(after)).toEqual([]);
    expect(got.length).toBeGreaterThan(0);
    expect((await me(h)).webhook.undelivered_events).toBe(0);
    await booking(h, 25);
    await h.sim.webhooks.settle();
    expect(sequences(after)).toEqual([3, 4]);
  });

  it('§6.6: a ping reports last_sequence without consuming a sequence', async () => {
    const h = makeHarness();
    const got = receiver(h, []);
    await configure(h);
    await booking(h, 1);
    await h.sim.webhooks.settle();
    const outcome = await h.sim.webhooks.ping(1);
    expect(outcome).toEqual({ status: 200 });
    expect(JSON.parse(got.at(-1)!.body)).toMatchObject({ type: 'ping', version: '2026-09', integration: { id: 1, slug: 'acme-channel' }, last_sequence: 2 });
    await booking(h, 5);
    await h.sim.webhooks.settle();
    expect(sequences(got)).toEqual([1, 2, 3, 4]);
    expect((await me(h)).webhook.last_sequence).toBe(4);
  });
});

/** A transport that records each event's sequence and answers with `answer` (which may hold the answer back). */
function recording(answer: (sequence: number) => Promise<Outcome> = async () => ({ status: 200 })): { transport: Transport; posted: number[] } {
  const posted: number[] = [];
  return {
    posted,
    transport: {
      post(_url, _headers, body) {
        const sequence = JSON.parse(body).sequence as number;
        posted.push(sequence);
        return answer(sequence);
      },
    },
  };
}

/** A world serving in real time whose first attempt (event 1) is posted and held until `release()`. */
async function heldFirstAttempt(store?: Store): Promise<{ h: Harness; release: () => void; held: Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((ok) => void (release = ok));
  const { transport, posted } = recording(async () => {
    await held;
    return { status: 200 };
  });
  const h = makeHarness({ transport, store });
  await configure(h);
  await booking(h, 1);
  h.sim.webhooks.start(HOUR);
  h.sim.webhooks.tick();
  await vi.waitFor(() => expect(posted).toEqual([1]), EVENTUALLY);
  return { h, release, held };
}

describe('delivery in real time', () => {
  it('§6.2: while serving, a backlog drains one event after another as each is acknowledged, without waiting for the next tick', async () => {
    const { transport, posted } = recording();
    const h = makeHarness({ transport });
    await configure(h);
    await booking(h, 1);
    await booking(h, 5);
    // An interval no test outlives: only the first tick is ever made.
    h.sim.webhooks.start(HOUR);
    try {
      h.sim.webhooks.tick();
      await vi.waitFor(() => expect(posted).toEqual([1, 2, 3, 4]), EVENTUALLY);
      await vi.waitFor(async () => expect((await me(h)).webhook.undelivered_events).toBe(0), EVENTUALLY);
    } finally {
      h.sim.webhooks.stop();
    }
  });

  it('once stopped, no further attempt begins: the one in flight is recorded and the rest stay queued', async () => {
    const { h, release } = await heldFirstAttempt();
    h.sim.webhooks.stop();
    release();
    await vi.waitFor(() => expect(h.sim.store.get('events', '1:1')?.status).toBe('delivered'), EVENTUALLY);
    // The outcome and the next attempt are decided in one transaction: had a next attempt begun, event 2 would be delivering now.
    expect(h.sim.store.get('events', '1:2')?.status).toBe('pending');
  });

  it('a stop that closes the store under an attempt in flight throws nothing (npm start exits 0): the head stays in flight for the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'delivery-stop-'));
    const thrown: unknown[] = [];
    const listen = (e: unknown) => thrown.push(e);
    process.on('unhandledRejection', listen);
    try {
      const { h, release, held } = await heldFirstAttempt(await FileStore.open(dir));
      // What cli.ts does on SIGTERM: stop the worker, close the store; the partner answers afterwards.
      h.sim.webhooks.stop();
      await h.sim.store.close();
      release();
      // The attempt's end runs on the next turns of the event loop: a rejection it left would be reported by then.
      await held;
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      expect(thrown).toEqual([]);
      const again = await FileStore.open(dir);
      try {
        expect(again.get('events', '1:1')?.status).toBe('delivering');
      } finally {
        await again.close();
      }
    } finally {
      process.off('unhandledRejection', listen);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
