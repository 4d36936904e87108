/**
 * Issue 29, item 2: no body shape answers 5xx, on any of the three planes
 * (partner API, staff plane, control plane). Keys named like built-in
 * properties (`constructor`, `__proto__`, `toString`, `valueOf`) at every
 * depth, and numbers at and beyond the range of a double, always get a 4xx
 * in the §7 error envelope (or a 2xx when the body is acceptable). An
 * unexpected 500 is logged with a request id that its envelope carries too.
 *
 * The fuzz is bounded and seeded (FUZZ_SEED and FUZZ_RUNS override seed and
 * runs for a longer hunt; fast-check prints the seed and path of any failure).
 */
import supertest from 'supertest';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { API_ROOT, CONTROL_ROOT, createApp, type UnexpectedError } from './app.ts';
import { staffRouter } from '../staff/routes.ts';
import { controlRoutes } from '../control/routes.ts';
import { makeHarness, newKey, type Harness } from '../testing.ts';
import { DEFAULT_READINGS } from '../domain/readings.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 29_2029);
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

/** Own names of Object.prototype and a few more a JS program reads by habit (`then`, `toJSON`, `prototype`). */
const BUILT_IN_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype', 'then', 'toJSON', 'length', 'name'];

/** Numbers as JSON text: at, just inside and beyond what a double holds. */
const EDGE_NUMBERS = [
  '1e309', '-1e309', '1e-400', '-1e-400', '1.7976931348623157e308', '-1.7976931348623157e308', '1.8e308', '5e-324', '2.2250738585072014e-308',
  '9007199254740991', '9007199254740993', '-9007199254740993', '1e307', '-1e307', '0', '-0', '1', '-1', '0.5', '1e21',
];

type Plane = 'partner' | 'staff' | 'control';
interface Target {
  plane: Plane;
  method: 'post' | 'put';
  path: string;
  /** A body the route accepts (the fuzz injects into it at every depth); null for actions that take no body. */
  valid: Record<string, unknown> | null;
}

/** A body each staff route accepts, by the concrete staff path it is sent to. */
function validStaffBody(path: string): Record<string, unknown> | null {
  const table: [RegExp, Record<string, unknown> | null][] = [
    [/\/brands$/, { name: 'Fuzz Brand' }],
    [/\/integrations$/, { brand_id: 1, name: 'Fuzz Channel', event_types: ['booking.changed'], horizon_days: 30 }],
    [/\/coverage$/, { property_ids: [101] }],
    [/\/webhook(\/event-types)?$/, { url: 'https://example.invalid/hook', event_types: ['booking.changed'] }],
    [/\/rate-limit$/, { limit: 100, window_seconds: 60 }],
    [/\/properties$/, { brand_id: 1, name: 'Fuzz Villa', external_id: 'FUZZ', ownership: 'owned' }],
    [/\/units$/, { name: 'Fuzz Room', max_adults: 2 }],
    [/\/nights$/, { from: '2026-11-01', to: '2026-11-02', is_blocked: false, units_cap: null }],
    [/\/rates$/, { from: '2026-11-01', to: '2026-11-02', base_rate: 7000 }],
    [/\/restrictions$/, { from: '2026-11-01', to: '2026-11-02', min_stay: 1, stop_sell: false }],
    [/\/status$/, { status: 'confirmed' }],
    [/\/dates$/, { check_in: '2026-10-01', check_out: '2026-10-03' }],
    [/\/clock$/, { frozen: true }],
    [/\/clock\/advance$/, { seconds: 60 }],
    [/\/api$/, { enabled: true }],
    [/\/(settings|create-latency)$/, { create_latency_ms: 0 }],
  ];
  return table.find(([re]) => re.test(path))?.[1] ?? null;
}

/** Every write route of the three planes, with concrete ids from the demo world. */
function targets(h: Harness, bookingId: number): Target[] {
  const fill = (template: string) => template
    .replace(':slug', 'acme-channel').replace(':property_id', '101').replace(':booking_id', String(bookingId))
    .replace(/\/bookings\/:id/, `/bookings/${bookingId}`).replace('/units/:id', '/units/1001').replace('/properties/:id', '/properties/101').replace(':id', '1');
  const out: Target[] = [
    { plane: 'partner', method: 'post', path: `${API_ROOT}/bookings`, valid: h.bookingBody({ pricing: { total: 12000, breakdown: { room: 10000, tax: { gst: 2000 } } }, payment: { amount_collected: 500 } }) },
    { plane: 'partner', method: 'post', path: `${API_ROOT}/sync`, valid: { property_ids: [101], types: ['rates'] } },
  ];
  const router = staffRouter({ platform: h.sim.platform, clock: h.sim.clock, webhooks: h.sim.webhooks, syncs: h.sim.sync });
  for (const layer of router.stack) {
    for (const m of layer.methods) {
      if (m !== 'POST' && m !== 'PUT') continue;
      const path = fill(String(layer.path));
      out.push({ plane: 'staff', method: m.toLowerCase() as 'post' | 'put', path, valid: validStaffBody(path) });
    }
  }
  for (const route of controlRoutes()) {
    // Reads take no body (rate-limit.set's GET): the fuzz is of bodies.
    if (route.method === 'get') continue;
    const path = CONTROL_ROOT + fill(route.path);
    out.push({ plane: 'control', method: route.method, path, valid: validStaffBody(path) });
  }
  return out;
}

interface World {
  h: Harness;
  unexpected: UnexpectedError[];
  targets: Target[];
}

/** One world per plane: a staff action (a key rotation, the API switched off) never changes what another plane's fuzz sees. */
async function world(): Promise<World> {
  const unexpected: UnexpectedError[] = [];
  // Deliveries are accepted at once: a fuzzed webhook URL and clock jump of years must not wait on a network.
  const h = makeHarness({ onUnexpectedError: (r) => unexpected.push(r), transport: { post: async () => ({ status: 204 }) } });
  const created = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody());
  expect(created.status, created.text).toBe(201);
  return { h, unexpected, targets: targets(h, created.body.data.id as number) };
}

function send(w: World, t: Target, text: string): supertest.Test {
  const token = t.plane === 'partner' ? w.h.fixtures.integrations[0]!.apiKey : w.h.fixtures.staffToken;
  return w.h.http[t.method](t.path).set('Authorization', `Bearer ${token}`).set('Idempotency-Key', newKey()).set('Content-Type', 'application/json').send(text);
}

function expectNo5xx(w: World, t: Target, text: string, res: supertest.Response): void {
  const where = `${t.method.toUpperCase()} ${t.path} with ${text.slice(0, 300)}`;
  expect(res.status, `${where}\n→ ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.type, where).toBe('application/json');
    expect(res.body, where).toEqual({ success: false, code: expect.any(String), message: expect.any(String), errors: expect.any(Object) });
  }
  expect(w.unexpected, where).toEqual([]);
}

/** A JSON text holding `value`, where each string `@@N@@` stands for EDGE_NUMBERS[N] written raw. */
function withRawNumbers(value: unknown): string {
  return JSON.stringify(value).replace(/"@@(\d+)@@"/g, (_m, i: string) => EDGE_NUMBERS[Number(i)]!);
}

const edgeNumber = fc.nat({ max: EDGE_NUMBERS.length - 1 }).map((i) => `@@${i}@@`);
const builtInKey = fc.constantFrom(...BUILT_IN_NAMES);

/** Arbitrary JSON with built-in names as keys and edge numbers as values, at every depth. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'hostile' },
    edgeNumber,
    fc.constantFrom<unknown>(null, true, false, '', 'x', '2026-10-01'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(fc.oneof(builtInKey, fc.string({ maxLength: 6 })), tie('value')), { maxLength: 4 }).map(ownObject),
  ),
})).value;

/** An object whose keys are all its own data properties (`__proto__` included), as JSON.parse makes them. */
function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/** Every object inside `value` (itself included), to inject into at any depth. */
function objectsIn(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(value)) value.forEach((v) => objectsIn(v, out));
  else if (value !== null && typeof value === 'object') {
    out.push(value as Record<string, unknown>);
    Object.values(value).forEach((v) => objectsIn(v, out));
  }
  return out;
}

/** A valid body with built-in names injected at chosen depths, holding edge numbers or hostile JSON. */
const injections = fc.array(fc.tuple(fc.nat(), builtInKey, fc.oneof(edgeNumber, hostileJson)), { minLength: 1, maxLength: 3 });
function inject(valid: Record<string, unknown>, picks: [number, string, unknown][]): string {
  const body = structuredClone(valid);
  for (const [pick, key, value] of picks) {
    const objects = objectsIn(body);
    Object.defineProperty(objects[pick % objects.length]!, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return withRawNumbers(body);
}

describe('a key named like a built-in property holding a number a double cannot hold → 422 naming it, never 500 (the issue\'s bodies)', () => {
  const bodies: [string, string][] = [
    ['{"constructor": 1e309}', 'constructor'],
    ['{"__proto__": 1e-400}', '__proto__'],
    ['{"toString": 1e309}', 'toString'],
    ['{"valueOf": -1e309, "hasOwnProperty": 1}', 'valueOf'],
    ['{"pricing": {"constructor": 1e309}}', 'pricing.constructor'],
  ];
  let worlds: Record<Plane, World>;
  beforeAll(async () => {
    worlds = { partner: await world(), staff: await world(), control: await world() };
  });

  it.each(bodies)('%s on every write route of the three planes → 422 on %s', async (text, field) => {
    for (const plane of ['partner', 'staff', 'control'] as const) {
      const w = worlds[plane];
      for (const t of w.targets.filter((x) => x.plane === plane)) {
        const res = await send(w, t, text);
        expectNo5xx(w, t, text, res);
        expect(res.status, `${t.path}: ${res.text}`).toBe(422);
        // Routes that take a body read it and name the number's field; actions that take none refuse any body.
        expect(Object.keys(res.body.errors), `${t.path}: ${res.text}`).toContain(t.valid === null ? '_body' : field);
      }
    }
  });
});

describe('fuzz: no body shape answers 5xx on any plane (seeded, bounded)', () => {
  for (const plane of ['partner', 'staff', 'control'] as const) {
    it(`${plane} plane: ${RUNS} hostile bodies (built-in names at every depth, numbers at and beyond the double range) → 2xx or a 4xx envelope`, async () => {
      const w = await world();
      const routes = w.targets.filter((t) => t.plane === plane);
      const body = fc.oneof(
        hostileJson.map(withRawNumbers),
        fc.tuple(fc.nat(), injections).map(([i, picks]) => ({ i, picks })).map(({ i, picks }) => {
          const valid = routes[i % routes.length]!.valid ?? {};
          return inject(valid, picks);
        }),
      );
      await fc.assert(
        fc.asyncProperty(fc.nat(), body, async (pick, text) => {
          const t = routes[pick % routes.length]!;
          expectNo5xx(w, t, text, await send(w, t, text));
          expect(({} as Record<string, unknown>).constructor).toBe(Object);
          expect(Object.getPrototypeOf({})).toBe(Object.prototype);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    });
  }
});

describe('an unexpected failure is logged with a request id its answer carries', () => {
  async function failingApp(onUnexpectedError?: (r: UnexpectedError) => void) {
    const h = makeHarness();
    const app = createApp({ platform: h.sim.platform, extraHandlers: { getMe: () => { throw new TypeError('boom'); } }, onUnexpectedError, readings: DEFAULT_READINGS });
    return { h, http: supertest(app.callback()) };
  }

  it('500 INTERNAL_ERROR: errors.request_id equals X-Request-Id and the id the log received', async () => {
    const seen: UnexpectedError[] = [];
    const { h, http } = await failingApp((r) => seen.push(r));
    const res = await http.get(`${API_ROOT}/me`).set('Authorization', `Bearer ${h.fixtures.integrations[0]!.apiKey}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, code: 'INTERNAL_ERROR', message: expect.stringContaining(String(res.headers['x-request-id'])), errors: { request_id: res.headers['x-request-id'] } });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ requestId: res.headers['x-request-id'], method: 'GET', path: `${API_ROOT}/me` });
    expect(String(seen[0]!.error)).toContain('boom');
  });

  it('by default the log is one line on stderr naming the request id, the route and the error', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { h, http } = await failingApp();
      const res = await http.get(`${API_ROOT}/me`).set('Authorization', `Bearer ${h.fixtures.integrations[0]!.apiKey}`);
      const logged = write.mock.calls.map((c) => String(c[0])).join('');
      expect(logged).toContain(`request ${res.headers['x-request-id']} (GET ${API_ROOT}/me) failed unexpectedly`);
      expect(logged).toContain('TypeError: boom');
    } finally {
      write.mockRestore();
    }
  });
});
