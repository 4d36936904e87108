/**
 * §5 authentication and §7 auth/rate-limit errors, through supertest against
 * the Koa app: bearer-only auth, the staff token, disabled integrations, key
 * rotation, credentials at rest, the platform switch (§5.6) and RATE_LIMITED.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type supertest from 'supertest';
import { loadContract, type Operation } from '../../spec/contract.ts';
import { hashToken } from '../domain/credentials.ts';
import { expectConformingResponses, makeHarness, newKey, type Harness } from '../testing.ts';
import { API_ROOT } from './app.ts';

const STAFF_TOKEN = 'stf_test_staff_token';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => {
  expectConformingResponses(h);
});

/** Every partner route: each operation of spec/openapi.yaml (§4: all require the bearer header). */
function partnerRoutes(): Operation[] {
  return loadContract().operations;
}

/** A concrete URL path (below the API root) for an operation. */
function pathOf(op: Operation): string {
  return op.path
    .replace('{doorloom_id}', '5001')
    .replace('{external_booking_id}', 'EXT-1')
    .replace('{property}', String(h.fixtures.integrations[0]!.properties[0]!.doorloom_id));
}

/** Calls an operation with a raw Authorization header value (or none). */
function call(op: Operation, authorization: string | null, query = ''): supertest.Test {
  const req = h.http[op.method](API_ROOT + pathOf(op) + query);
  if (authorization !== null) req.set('Authorization', authorization);
  if (op.method === 'post') req.set('Idempotency-Key', newKey()).send(h.bookingBody());
  return req;
}

/** `GET /api/...` of the request that got `res` (superagent keeps it; its types do not say so). */
function requestOf(res: supertest.Response): string {
  const req = (res as unknown as { req?: { method: string; path: string } }).req;
  return req ? `${req.method} ${req.path}` : 'request';
}

function expectError(res: supertest.Response, status: number, code: string): void {
  expect(res.status, `${requestOf(res)}: ${res.text}`).toBe(status);
  expect(res.type).toBe('application/json');
  // §7: the full error envelope; auth refusals carry no field errors.
  expect(res.body).toEqual({ success: false, code, message: expect.any(String), errors: {} });
  expect(res.body.message.length).toBeGreaterThan(0);
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('§5.1, §5.5: only `Authorization: Bearer <API_KEY>` authenticates', () => {
  it('iterates over every operation of §4, bookings, events, sync, snapshots and properties', () => {
    expect(partnerRoutes().map((op) => op.id)).toEqual(expect.arrayContaining([
      'getMe', 'getBooking', 'getBookingByExternalId', 'listBookings', 'createBooking', 'listEvents', 'requestSync', 'getAvailabilitySnapshot',
    ]));
  });

  const cases: [string, (key: string) => string | null][] = [
    ['no Authorization header', () => null],
    ['Basic with the key as user name', (key) => basic(key, '')],
    ['Basic with the key as password', (key) => basic('acme-channel', key)],
    ['the bare key without a scheme', (key) => key],
    ['another scheme (Token)', (key) => `Token ${key}`],
    ['Bearer with garbage', () => 'Bearer not-a-key'],
    ['Bearer with a well-formed unknown key', () => `Bearer dlk_${'0'.repeat(48)}`],
    ['Bearer with nothing after it', () => 'Bearer '],
    ['Bearer with the key and trailing junk', (key) => `Bearer ${key} extra`],
    ['Bearer with the key and one character more', (key) => `Bearer ${key}x`],
    ['Bearer with a webhook secret', () => `Bearer ${h.fixtures.integrations[0]!.webhookSecret}`],
  ];
  it.each(cases)('%s → 401 UNAUTHENTICATED on every partner route', async (_name, header) => {
    const before = h.sim.store.size('bookings');
    for (const op of partnerRoutes()) expectError(await call(op, header(h.fixtures.integrations[0]!.apiKey)), 401, 'UNAUTHENTICATED');
    expect(h.sim.store.size('bookings')).toBe(before);
  });

  it('a key in the query string only → 401 UNAUTHENTICATED (no query-parameter scheme)', async () => {
    const key = encodeURIComponent(h.fixtures.integrations[0]!.apiKey);
    for (const name of ['api_key', 'access_token', 'token', 'key', 'apiKey']) {
      for (const op of partnerRoutes()) expectError(await call(op, null, `?${name}=${key}`), 401, 'UNAUTHENTICATED');
    }
  });

  it('a key in another header (X-API-Key) → 401 UNAUTHENTICATED', async () => {
    const res = await h.api('get', '/me', null).set('X-API-Key', h.fixtures.integrations[0]!.apiKey);
    expectError(res, 401, 'UNAUTHENTICATED');
  });

  it('the same key as Bearer is accepted (the refusals above are about the scheme, not the key)', async () => {
    for (const op of partnerRoutes()) {
      const res = await call(op, `Bearer ${h.fixtures.integrations[0]!.apiKey}`);
      expect(res.status, res.text).not.toBe(401);
      expect(res.status).not.toBe(403);
    }
  });

  it('the staff token on the partner API → 403 NOT_INTEGRATION_TOKEN on every partner route', async () => {
    const before = h.sim.store.size('bookings');
    for (const op of partnerRoutes()) expectError(await call(op, `Bearer ${STAFF_TOKEN}`), 403, 'NOT_INTEGRATION_TOKEN');
    expect(h.sim.store.size('bookings')).toBe(before);
  });
});

describe('§3.1, §5.5: a disabled integration is 403 INTEGRATION_DISABLED', () => {
  it('answers 403 INTEGRATION_DISABLED on every partner route and writes nothing', async () => {
    const disabled = h.fixtures.integrations[2]!;
    expect(disabled.status).toBe('disabled');
    const before = h.sim.store.size('bookings');
    for (const op of partnerRoutes()) expectError(await call(op, `Bearer ${disabled.apiKey}`), 403, 'INTEGRATION_DISABLED');
    expect(h.sim.store.size('bookings')).toBe(before);
  });

  it('disabling by staff takes effect on the next call; enabling again restores access (x-assumption disabled-exit)', async () => {
    const acme = h.fixtures.integrations[0]!;
    expect((await h.api('get', '/me')).status).toBe(200);
    await h.staff('post', `/integrations/${acme.id}/disable`);
    expectError(await h.api('get', '/me'), 403, 'INTEGRATION_DISABLED');
    expectError(await h.api('get', '/bookings'), 403, 'INTEGRATION_DISABLED');
    await h.staff('post', `/integrations/${acme.id}/enable`);
    const me = await h.api('get', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data.status).toBe('active');
  });
});

describe('§5.3: issuing a key rotates it', () => {
  it('the old key is 401 at once and the new one works', async () => {
    const acme = h.fixtures.integrations[0]!;
    const { api_key: fresh } = await h.staff<{ api_key: string }>('post', `/integrations/${acme.id}/rotate-api-key`);
    expect(fresh).not.toBe(acme.apiKey);
    expectError(await h.api('get', '/me', acme.apiKey), 401, 'UNAUTHENTICATED');
    expectError(await h.api('get', '/bookings', acme.apiKey), 401, 'UNAUTHENTICATED');
    const me = await h.api('get', '/me', fresh);
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(acme.id);
    // Another integration's key is untouched.
    expect((await h.api('get', '/me', 1)).status).toBe(200);
  });

  it('two rotations in a row: only the latest key is live', async () => {
    const acme = h.fixtures.integrations[0]!;
    const first = (await h.staff<{ api_key: string }>('post', `/integrations/${acme.id}/rotate-api-key`)).api_key;
    const second = (await h.staff<{ api_key: string }>('post', `/integrations/${acme.id}/rotate-api-key`)).api_key;
    expectError(await h.api('get', '/me', acme.apiKey), 401, 'UNAUTHENTICATED');
    expectError(await h.api('get', '/me', first), 401, 'UNAUTHENTICATED');
    expect((await h.api('get', '/me', second)).status).toBe(200);
  });
});

/**
 * Every table of the store, keys and values, as text. The memory store
 * creates a table's map on first use, so the maps present are every table
 * that holds anything; the Store interface lists values only, and apiKeys is
 * keyed by hash, so the maps are read directly.
 */
function storeDump(): string {
  const data = Object.fromEntries((h.sim.store as unknown as { tables: Map<string, Map<string, unknown>> }).tables);
  const tables = Object.keys(data);
  expect(tables).toEqual(expect.arrayContaining(['integrations', 'apiKeys', 'settings']));
  const parts: string[] = [];
  for (const table of tables) {
    for (const [key, value] of data[table]!) parts.push(`${table}/${key}=${JSON.stringify(value)}`);
  }
  return parts.join('\n');
}

describe('§5.2: credentials at rest', () => {
  it('API keys are stored only as hashes', async () => {
    // The dump sees what was written: a booking's guest name and each key's hash are there.
    await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ guest: { name: 'Zebulon Canary', mobile: '9800000000' } }));
    const rotated = (await h.staff<{ api_key: string }>('post', `/integrations/${h.fixtures.integrations[1]!.id}/rotate-api-key`)).api_key;
    const dump = storeDump();
    expect(dump).toContain('Zebulon Canary');
    for (const key of [h.fixtures.integrations[0]!.apiKey, h.fixtures.integrations[2]!.apiKey, rotated]) {
      expect(dump).toContain(hashToken(key));
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(4)); // not even without its prefix
    }
    expect(dump).not.toContain(STAFF_TOKEN);
  });

  it('webhook secrets are stored encrypted: no clear `whsec_` value anywhere', async () => {
    const rotated = (await h.staff<{ webhook_secret: string }>('post', `/integrations/${h.fixtures.integrations[0]!.id}/rotate-webhook-secret`)).webhook_secret;
    expect(rotated.startsWith('whsec_')).toBe(true);
    const dump = storeDump();
    for (const secret of [...h.fixtures.integrations.map((i) => i.webhookSecret), rotated]) {
      expect(secret.startsWith('whsec_')).toBe(true);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice('whsec_'.length));
    }
    expect(dump).not.toContain('whsec_');
  });

  it('neither credential can be read back through the staff plane or GET /me', async () => {
    const acme = h.fixtures.integrations[0]!;
    const texts = [
      JSON.stringify(await h.staff('get', '/world')),
      JSON.stringify(await h.staff('get', `/integrations/${acme.id}`)),
      (await h.api('get', '/me')).text,
    ];
    for (const text of texts) {
      expect(text).not.toContain(acme.apiKey);
      expect(text).not.toContain(acme.webhookSecret);
      expect(text).not.toContain('whsec_');
    }
  });
});

describe('§5.6: the platform switch', () => {
  async function expectBare404(res: supertest.Response): Promise<void> {
    expect(res.status, requestOf(res)).toBe(404);
    expect(res.text).toBe('');
    expect(res.type).not.toBe('application/json');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  }

  it('switched off, every partner route (known, unknown, any auth) is a bare 404 with an empty body; back on, it answers again', async () => {
    await h.staff('put', '/api', { enabled: false });
    const before = h.sim.store.size('bookings');
    const keys = [`Bearer ${h.fixtures.integrations[0]!.apiKey}`, null, 'Bearer garbage', basic('a', 'b'), `Bearer ${STAFF_TOKEN}`, `Bearer ${h.fixtures.integrations[2]!.apiKey}`];
    for (const op of partnerRoutes()) {
      for (const key of keys) await expectBare404(await call(op, key));
    }
    for (const path of ['/nope', '/bookings/1/extra', '/', '', '/me/', '/bookings/abc', '/events', '/sync']) {
      for (const key of keys) {
        const req = h.http.get(API_ROOT + path);
        await expectBare404(await (key === null ? req : req.set('Authorization', key)));
      }
    }
    await expectBare404(await h.http.put(API_ROOT + '/me').set('Authorization', keys[0]!));
    await expectBare404(await h.http.delete(API_ROOT + '/bookings/5001').set('Authorization', keys[0]!));
    expect(h.sim.store.size('bookings')).toBe(before);
    // The staff plane stays up, so the switch can be turned back on.
    expect((await h.staff('get', '/world')).api_enabled).toBe(false);

    await h.staff('put', '/api', { enabled: true });
    expect((await h.api('get', '/me')).status).toBe(200);
    expectError(await h.api('get', '/me', null), 401, 'UNAUTHENTICATED');
    expectError(await h.api('get', '/nope'), 404, 'NOT_FOUND');
  });

  it('while switched on, an unknown route is the NOT_FOUND envelope, not the bare 404', async () => {
    expectError(await h.api('get', '/nope'), 404, 'NOT_FOUND');
  });
});

describe('§7 RATE_LIMITED: per-integration fixed window (spec X-RateLimit-* x-assumptions)', () => {
  const rateHeaders = (res: supertest.Response) => ({
    limit: res.headers['x-ratelimit-limit'],
    remaining: res.headers['x-ratelimit-remaining'],
    reset: res.headers['x-ratelimit-reset'],
  });

  it('the default limit is set on every authenticated answer', async () => {
    const res = await h.api('get', '/me');
    expect(rateHeaders(res)).toEqual({ limit: '6000', remaining: '5999', reset: '60' });
    const missing = await h.api('get', '/bookings/999999');
    expect(missing.status).toBe(404);
    expect(rateHeaders(missing)).toEqual({ limit: '6000', remaining: '5998', reset: '60' });
  });

  it('limit 3: three answers count down, the 4th is 429 with Retry-After and X-RateLimit-*, the window resets after 60 s', async () => {
    const acme = h.fixtures.integrations[0]!;
    await h.staff('put', `/integrations/${acme.id}/rate-limit`, { limit: 3, window_seconds: 60 });
    const seen = [];
    for (const path of ['/me', '/bookings', '/bookings/5001']) seen.push(rateHeaders(await h.api('get', path)));
    expect(seen).toEqual([
      { limit: '3', remaining: '2', reset: '60' },
      { limit: '3', remaining: '1', reset: '60' },
      { limit: '3', remaining: '0', reset: '60' },
    ]);

    const refused = await h.api('get', '/me');
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers['retry-after']).toBe('60');
    expect(rateHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: '60' });
    // Every route is limited, POST included, and a refused create writes nothing.
    const before = h.sim.store.size('bookings');
    expectError(await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody()), 429, 'RATE_LIMITED');
    expect(h.sim.store.size('bookings')).toBe(before);

    // 20 s on: still refused, and Retry-After counts down with the clock.
    await h.staff('post', '/clock/advance', { seconds: 20 });
    const later = await h.api('get', '/bookings');
    expectError(later, 429, 'RATE_LIMITED');
    expect(later.headers['retry-after']).toBe('40');
    expect(later.headers['x-ratelimit-reset']).toBe('40');

    // 60 s after the window opened it resets.
    await h.staff('post', '/clock/advance', { seconds: 40 });
    const fresh = await h.api('get', '/me');
    expect(fresh.status).toBe(200);
    expect(rateHeaders(fresh)).toEqual({ limit: '3', remaining: '2', reset: '60' });
  });

  it('refusals do not extend the window (a client hammering while limited is let in after Retry-After)', async () => {
    const acme = h.fixtures.integrations[0]!;
    await h.staff('put', `/integrations/${acme.id}/rate-limit`, { limit: 1, window_seconds: 60 });
    expect((await h.api('get', '/me')).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      await h.staff('post', '/clock/advance', { seconds: 10 });
      expect((await h.api('get', '/me')).status).toBe(429);
    }
    await h.staff('post', '/clock/advance', { seconds: 10 });
    expect((await h.api('get', '/me')).status).toBe(200);
  });

  it('unauthenticated calls are not charged to anyone\'s window', async () => {
    const acme = h.fixtures.integrations[0]!;
    await h.staff('put', `/integrations/${acme.id}/rate-limit`, { limit: 2, window_seconds: 60 });
    for (let i = 0; i < 5; i++) expectError(await h.api('get', '/me', 'garbage'), 401, 'UNAUTHENTICATED');
    expect(rateHeaders(await h.api('get', '/me'))).toMatchObject({ remaining: '1' });
  });

  it('another integration is not affected by one integration\'s limit', async () => {
    const acme = h.fixtures.integrations[0]!;
    await h.staff('put', `/integrations/${acme.id}/rate-limit`, { limit: 1, window_seconds: 60 });
    expect((await h.api('get', '/me', 0)).status).toBe(200);
    expectError(await h.api('get', '/me', 0), 429, 'RATE_LIMITED');
    for (let i = 0; i < 5; i++) {
      const res = await h.api('get', '/me', 1);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('6000');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5999 - i));
    }
  });
});
