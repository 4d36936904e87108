/**
 * §4.5 POST /bookings, rule by rule, against the Koa app through supertest.
 * Every test starts from a fresh harness (frozen clock 2026-09-15 12:00
 * +05:30, the demo world) and ends by checking that every response it got
 * conforms to spec/openapi.yaml. "Nothing written" is checked three ways: the
 * GET /bookings total, the store's bookings and holds, and the change log
 * that feeds events (§4.5 rule 9).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addDays, nights } from '../../protocol/calendar.ts';
import { loadContract as contract } from '../../spec/contract.ts';
import { ChangeLog, type Change } from '../domain/changes.ts';
import { availabilityPayload } from '../domain/inventory.ts';
import type { FixtureProperty, FixtureUnit } from '../demo-world.ts';
import { claimHeld, expectConformingResponses, makeHarness, newKey, type Harness } from '../testing.ts';

type Res = Awaited<ReturnType<Harness['api']>>;

const HOUR = 3600;
/** The two ways §4.5 rule 6 pins a unit. */
const PINS: [string, (u: FixtureUnit) => Record<string, unknown>][] = [
  ['inventory_id', (u) => ({ inventory_id: u.inventory_id })],
  ['external_unit_id', (u) => ({ external_unit_id: u.external_unit_id })],
];
/** The §2.3 fields every booking object shows. */
const BOOKING_FIELDS = ['id', 'external_booking_id', 'revision', 'origin', 'status', 'property', 'check_in', 'check_out', 'guests', 'units', 'pricing', 'updated_at'];

// ---------------------------------------------------------------- helpers

/** integrations[0]'s covered properties: Sea View (4 units), Hilltop (1 unit), Lake House (one inactive unit), Old Fort (archived). */
function world(h: Harness) {
  const [sea, hill, lake, fort] = h.fixtures.integrations[0]!.properties as [FixtureProperty, FixtureProperty, FixtureProperty, FixtureProperty];
  return { sea, hill, lake, fort, other: h.fixtures.integrations[1]!.properties[0]! };
}

function create(h: Harness, body: unknown, key: string | null = newKey(), integration = 0) {
  const req = h.api('post', '/bookings', integration);
  if (key !== null) req.set('Idempotency-Key', key);
  return req.send(body as object);
}

/** Sends a body as raw JSON text, exactly as written. */
function createRaw(h: Harness, text: string, key: string = newKey()) {
  return h.api('post', '/bookings').set('Idempotency-Key', key).set('Content-Type', 'application/json').send(text);
}

function changeLog(h: Harness): Change[] {
  if (!(h.sim.changes instanceof ChangeLog)) throw new Error('the harness is expected to record changes in a ChangeLog');
  return h.sim.changes.changes;
}

/** What a create can write: the listed bookings, stored bookings and holds, recorded changes. */
async function writes(h: Harness) {
  const list = await h.api('get', '/bookings?per_page=1');
  expect(list.status, list.text).toBe(200);
  return { listed: list.body.pagination.total as number, bookings: h.sim.store.size('bookings'), holds: h.sim.store.size('holds'), changes: changeLog(h).length };
}

async function expectNothingWritten(h: Harness, before: Awaited<ReturnType<typeof writes>>) {
  expect(await writes(h)).toEqual(before);
}

function expectError(res: Res, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ success: false, code });
}

function expectUnavailable(res: Res) {
  expectError(res, 409, 'UNAVAILABLE');
}

/** A body for one property and stay, with the rest from the harness default. */
function stayBody(h: Harness, property: FixtureProperty, checkIn: string, checkOut: string, units: object[] = [{ adults: 2 }], extra: Record<string, unknown> = {}) {
  return h.bookingBody({ property: { doorloom_id: property.doorloom_id }, check_in: checkIn, check_out: checkOut, units, ...extra });
}

/** A body using every documented field, on Sea View with two pinned units. */
function fullBody(h: Harness, overrides: Record<string, unknown> = {}) {
  const { sea } = world(h);
  return h.bookingBody({
    property: { doorloom_id: sea.doorloom_id, external_id: sea.external_id },
    units: [
      { external_unit_id: sea.units[1]!.external_unit_id, adults: 2, children: 1, meal_plan: 'CP', stay_price: 7000.5 },
      { inventory_id: sea.units[2]!.inventory_id, adults: 1, children: 0, meal_plan: 'EP', stay_price: 4999.5 },
    ],
    guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9800000000', email: 'asha@example.com', country: 'IN' },
    pricing: { total: 12000, currency: 'INR', includes_gst: true, breakdown: { room: 10000, taxes: [{ name: 'GST', amount: 2000 }], flags: [] } },
    payment: { status: 'partial', amount_collected: 3000, collected_by: 'partner', reference: 'PAY-1' },
    source: { channel: 'web', reference: 'SRC-1' },
    status: 'confirmed',
    notes: 'Late arrival.',
    ...overrides,
  });
}

/** The same value with object keys in reverse insertion order at every depth. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).reverse().map((k) => [k, reverseKeys((value as Record<string, unknown>)[k])]));
}

/** Every path to a leaf value (empty containers count as leaves). */
function leafPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.length === 0 ? [prefix] : value.flatMap((v, i) => leafPaths(v, [...prefix, i]));
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length === 0 ? [prefix] : keys.flatMap((k) => leafPaths((value as Record<string, unknown>)[k], [...prefix, k]));
  }
  return [prefix];
}

function leafAt(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<any>((v, k) => v[k], value);
}

function withLeaf(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = withLeaf(copy[head!], rest, leaf);
  return copy;
}

// ---------------------------------------------------------------- tests

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => {
  expectConformingResponses(h);
});

describe('§4.5 rule 1: idempotency', () => {
  it('§4.5 rule 1: replays the original response byte for byte and creates nothing new', async () => {
    const body = fullBody(h);
    const key = newKey();
    const first = await create(h, body, key);
    expect(first.status, first.text).toBe(201);
    const before = await writes(h);
    expect(before.listed).toBe(1);

    const again = await create(h, body, key);
    expect(again.status).toBe(201);
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.text).toBe(first.text);
    await expectNothingWritten(h, before);

    // The replay is the stored answer, not the booking as it is now.
    await h.staff('post', `/bookings/${first.body.data.id}/status`, { status: 'cancelled' });
    const later = await create(h, body, key);
    expect(later.status).toBe(201);
    expect(later.text).toBe(first.text);
  });

  it('§4.5 rule 1: key order is irrelevant: the same body with keys reordered at every depth (or other white space) replays', async () => {
    const body = fullBody(h);
    const key = newKey();
    const first = await create(h, body, key);
    expect(first.status, first.text).toBe(201);
    const before = await writes(h);

    const reversed = reverseKeys(body);
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(body));
    const reordered = await create(h, reversed, key);
    expect(reordered.status).toBe(201);
    expect(reordered.text).toBe(first.text);

    const spaced = await createRaw(h, JSON.stringify(reversed, null, 4), key);
    expect(spaced.status).toBe(201);
    expect(spaced.text).toBe(first.text);
    await expectNothingWritten(h, before);
  });

  it('§4.5 rule 1: any change of one leaf value under the same key is 422 IDEMPOTENCY_KEY_REUSED and writes nothing (property)', async () => {
    const paths = leafPaths(fullBody(h));
    // Numbers a JSON number can hold exactly: the others are refused 422 before any fingerprint (see numbers.test.ts).
    const holdable = (v: unknown): boolean => typeof v === 'number' ? (Number.isInteger(v) ? Number.isSafeInteger(v) : Number.isFinite(v) && Math.abs(v) < 1e300)
      : Array.isArray(v) ? v.every(holdable) : v !== null && typeof v === 'object' ? Object.values(v).every(holdable) : true;
    const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 1 })).filter(holdable);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), leaf, async (path, value) => {
        const hh = makeHarness();
        const body = fullBody(hh);
        fc.pre(JSON.stringify(value) !== JSON.stringify(leafAt(body, path)));
        const key = newKey();
        const first = await create(hh, body, key);
        expect(first.status, first.text).toBe(201);
        const before = await writes(hh);

        const reused = await create(hh, withLeaf(body, path, value), key);
        expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
        await expectNothingWritten(hh, before);
        // The key still answers its own body with the original bytes.
        expect((await create(hh, body, key)).text).toBe(first.text);
        expectConformingResponses(hh);
      }),
      { numRuns: 25 },
    );
  });

  it('§4.5 rule 1: a key is remembered 24 hours: replayed at 23h59m, forgotten after 24h', async () => {
    const body = fullBody(h);
    const key = newKey();
    const otherKey = newKey();
    const first = await create(h, body, key);
    expect(first.status, first.text).toBe(201);
    const siblingBody = stayBody(h, world(h).hill, '2026-10-01', '2026-10-03');
    const sibling = await create(h, siblingBody, otherKey);
    expect(sibling.status, sibling.text).toBe(201);

    await h.staff('post', '/clock/advance', { seconds: 23 * HOUR + 59 * 60 });
    expect((await create(h, body, key)).text).toBe(first.text);
    expectError(await create(h, { ...body, notes: 'changed' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');

    await h.staff('post', '/clock/advance', { seconds: 61 });
    // Forgotten: a different body under the old key is a new create.
    const fresh = await create(h, fullBody(h, { units: [{ adults: 1 }] }), key);
    expect(fresh.status, fresh.text).toBe(201);
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
    // Forgotten: the same body under the other old key is not replayed; it meets its own booking (rule 4).
    const retried = await create(h, siblingBody, otherKey);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data).toMatchObject({ id: sibling.body.data.id, duplicate: true });
    expect((await writes(h)).listed).toBe(3);
  });

  it('§4.5 rule 1: refusals are stored: a key that produced 409 UNAVAILABLE replays that refusal byte for byte after the unit frees up', async () => {
    const { hill } = world(h);
    const blocker = await create(h, stayBody(h, hill, '2026-10-01', '2026-10-03'));
    expect(blocker.status, blocker.text).toBe(201);
    const key = newKey();
    const body = stayBody(h, hill, '2026-10-02', '2026-10-04');
    const refused = await create(h, body, key);
    expectUnavailable(refused);

    await h.staff('post', `/bookings/${blocker.body.data.id}/status`, { status: 'cancelled' });
    const before = await writes(h);
    const replayed = await create(h, body, key);
    expect(replayed.status).toBe(409);
    expect(replayed.text).toBe(refused.text);
    await expectNothingWritten(h, before);
    // The unit is free now: the same body under a new key is booked.
    expect((await create(h, body)).status).toBe(201);
  });
});

describe('§4.5 rule 2: Idempotency-Key required, 8 to 128 characters', () => {
  it.each([
    ['missing', null],
    ['7 characters', 'k'.repeat(7)],
    ['129 characters', 'k'.repeat(129)],
  ] as const)('§4.5 rule 2: a key that is %s is 422 IDEMPOTENCY_KEY_REQUIRED and writes nothing', async (_name, key) => {
    const before = await writes(h);
    const res = await create(h, h.bookingBody(), key);
    expectError(res, 422, 'IDEMPOTENCY_KEY_REQUIRED');
    await expectNothingWritten(h, before);
  });

  it.each([
    ['8 characters', 'k'.repeat(8)],
    ['128 characters', 'k'.repeat(128)],
  ])('§4.5 rule 2: a key of %s is accepted', async (_name, key) => {
    const res = await create(h, h.bookingBody(), key);
    expect(res.status, res.text).toBe(201);
    // The key was taken as sent: another body under it is a reuse.
    expectError(await create(h, h.bookingBody(), key), 422, 'IDEMPOTENCY_KEY_REUSED');
  });
});

describe('§4.5 rule 3: IN_PROGRESS', () => {
  it('§4.5 rule 3: an identical request while the first is still processed is 409 IN_PROGRESS; a later replay gives the 201 bytes', async () => {
    // Held until released: the other request comes while the first is processed, however slow the machine.
    await h.staff('put', '/settings', { create_latency_ms: 60_000 });
    const body = h.bookingBody();
    const key = newKey();
    const sent = [create(h, body, key).then((r) => r), create(h, body, key).then((r) => r)];
    expectError(await Promise.race(sent), 409, 'IN_PROGRESS');
    await h.staff('put', '/settings', { create_latency_ms: 0 });
    const answers = await Promise.all(sent);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const created = answers.find((r) => r.status === 201)!;
    expectError(answers.find((r) => r.status === 409)!, 409, 'IN_PROGRESS');

    const replay = await create(h, body, key);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(created.text);
    expect((await writes(h)).listed).toBe(1);
  });

  it('§4.5 rule 1, rule 3: a different body under a key still in progress is IDEMPOTENCY_KEY_REUSED', async () => {
    await h.staff('put', '/settings', { create_latency_ms: 60_000 });
    const body = h.bookingBody();
    const key = newKey();
    // .then() sends it (a supertest request goes out when awaited).
    const first = create(h, body, key).then((r) => r);
    // The second request goes out once the first holds its key (in progress), not after a guessed delay; the first
    // is released only once the second is answered.
    await claimHeld(h, key);
    const second = await create(h, { ...body, notes: 'other' }, key);
    await h.staff('put', '/settings', { create_latency_ms: 0 });
    expect((await first).status).toBe(201);
    expectError(second, 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('§4.5 rules 1 and 3: parallel identical requests with no latency make one booking and every answer is the same 201 bytes', async () => {
    const body = h.bookingBody();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 6 }, () => create(h, body, key)));
    for (const a of answers) {
      expect(a.status, a.text).toBe(201);
      expect(a.text).toBe(answers[0]!.text);
    }
    expect(await writes(h)).toMatchObject({ listed: 1, bookings: 1 });
  });
});

describe('§4.5 rule 4: existing external_booking_id', () => {
  it('§4.5 rule 4 comes before the date, property, unit and availability rules, after the schema (spec x-assumption-duplicate-first)', async () => {
    const { sea, fort, hill } = world(h);
    const body = fullBody(h);
    const created = await create(h, body);
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    const external_booking_id = body.external_booking_id;
    const before = await writes(h);
    const retries: [string, Record<string, unknown>][] = [
      ['check_in before yesterday', h.bookingBody({ external_booking_id, check_in: '2026-09-01', check_out: '2026-09-02' })],
      ['an archived property', h.bookingBody({ external_booking_id, property: { doorloom_id: fort.doorloom_id } })],
      ['an unknown property', h.bookingBody({ external_booking_id, property: { doorloom_id: 999999 } })],
      ['an unknown unit', h.bookingBody({ external_booking_id, property: { doorloom_id: sea.doorloom_id }, units: [{ adults: 2, external_unit_id: 'NO-SUCH-UNIT' }] })],
      ['more units than the property has', h.bookingBody({ external_booking_id, property: { doorloom_id: hill.doorloom_id }, units: [{ adults: 1 }, { adults: 1 }] })],
    ];
    for (const [name, retry] of retries) {
      const res = await create(h, retry);
      expect(res.status, `${name}: ${res.text}`).toBe(200);
      expect(res.body.data, name).toMatchObject({ id, duplicate: true });
    }
    await expectNothingWritten(h, before);
    // The schema still comes first: a body it refuses is 422 even for an existing external_booking_id.
    expectError(await create(h, h.bookingBody({ external_booking_id, units: [] })), 422, 'VALIDATION_FAILED');
    const op = (contract().document.paths as Record<string, any>)['/bookings'].post;
    expect(op['x-assumption-duplicate-first']?.['x-assumption'], 'the order is decided in the contract').toMatch(/before the date rules/);
  });

  it('§4.5 rule 4: a retry under a new key after check_in has passed is still the 200 duplicate, not a date refusal', async () => {
    const body = fullBody(h, { check_in: '2026-09-15', check_out: '2026-09-16' });
    const created = await create(h, body);
    expect(created.status, created.text).toBe(201);
    await h.staff('post', '/clock/advance', { seconds: 3 * 86_400 });
    const retry = await create(h, body);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data).toMatchObject({ id: created.body.data.id, duplicate: true });
  });

  it('§4.5 rule 4: an existing external_booking_id under a new key answers 200 with data.duplicate = true, the booking unchanged, nothing written', async () => {
    const body = fullBody(h);
    const created = await create(h, body);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).not.toHaveProperty('duplicate');
    const before = await writes(h);

    // Everything but the id differs: the existing booking is still the answer, unchanged.
    const dup = await create(h, stayBody(h, world(h).hill, '2026-11-01', '2026-11-02', [{ adults: 1 }], { external_booking_id: body.external_booking_id, pricing: { total: 1 } }));
    expect(dup.status, dup.text).toBe(200);
    expect(dup.body.success).toBe(true);
    expect(dup.body.message).toEqual(expect.any(String));
    expect(dup.body.data.duplicate).toBe(true);
    const { duplicate: _flag, ...booking } = dup.body.data;
    expect(booking).toEqual(created.body.data);
    expect(booking).toMatchObject({ id: created.body.data.id, revision: 1 });
    await expectNothingWritten(h, before);

    const read = await h.api('get', `/bookings/${created.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('duplicate');
    expect(read.body.data).toEqual(created.body.data);
    const byExternal = await h.api('get', `/bookings/external/${encodeURIComponent(body.external_booking_id)}`);
    expect(byExternal.body.data).not.toHaveProperty('duplicate');
  });

  it('§4.5 rule 4: the duplicate answer is the booking as it stands (revision and status after a later change)', async () => {
    const body = h.bookingBody();
    const created = await create(h, body);
    await h.staff('post', `/bookings/${created.body.data.id}/status`, { status: 'cancelled' });
    const dup = await create(h, body);
    expect(dup.status, dup.text).toBe(200);
    expect(dup.body.data).toMatchObject({ id: created.body.data.id, revision: 2, status: 'cancelled', duplicate: true });
  });

  it('§4.5 rule 4: parallel creates of one external_booking_id under different keys make one booking; the others answer 200 duplicate of it', async () => {
    await h.staff('put', '/settings', { create_latency_ms: 20 });
    const body = h.bookingBody();
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(h, body)));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 201)) {
      expect(r.status, r.text).toBe(200);
      expect(r.body.data).toEqual({ ...created[0]!.body.data, duplicate: true });
    }
    expect(await writes(h)).toMatchObject({ listed: 1, bookings: 1 });
  });

  it('§2.3, §4.5 rule 4: external_booking_id is unique within the integration: another integration may use the same id', async () => {
    const { other } = world(h);
    const body = h.bookingBody();
    expect((await create(h, body)).status).toBe(201);
    const theirs = await create(h, { ...body, property: { doorloom_id: other.doorloom_id } }, newKey(), 1);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.data).not.toHaveProperty('duplicate');
  });
});

describe('§4.5 rule 5: pricing', () => {
  it('§4.5 rule 5: when every unit has stay_price those values are used and the total is stored as given (never re-priced)', async () => {
    const { sea } = world(h);
    const res = await create(h, stayBody(h, sea, '2026-10-01', '2026-10-03', [{ adults: 1, stay_price: 7000 }, { adults: 1, stay_price: 6000.25 }], { pricing: { total: 12000 } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.units.map((u: { stay_price: number }) => u.stay_price)).toEqual([7000, 6000.25]);
    expect(res.body.data.pricing).toMatchObject({ currency: 'INR', total: 12000 });
  });

  it.each([
    ['an even split', 12000, 2, [6000, 6000]],
    ['rounded down to paise with the remainder on the last unit', 1000, 3, [333.33, 333.33, 333.34]],
    ['exact in paise stays exact (1.16 over two units is 0.58 each)', 1.16, 2, [0.58, 0.58]],
  ] as const)('§4.5 rule 5: a unit without stay_price splits the total evenly: %s', async (_name, total, count, want) => {
    const { sea } = world(h);
    const units = Array.from({ length: count }, (_, i) => (i === 0 ? { adults: 1, stay_price: 99999 } : { adults: 1 }));
    const res = await create(h, stayBody(h, sea, '2026-10-01', '2026-10-03', units, { pricing: { total } }));
    expect(res.status, res.text).toBe(201);
    const prices: number[] = res.body.data.units.map((u: { stay_price: number }) => u.stay_price);
    expect(prices).toEqual(want);
    expect(prices.reduce((s, p) => s + Math.round(p * 100), 0)).toBe(Math.round(total * 100));
  });

  it.each([
    ['no payment: advance 0, balance the total', undefined, { advance: 0, balance: 12000 }],
    ['a partial payment', { status: 'partial', amount_collected: 3000.5 }, { advance: 3000.5, balance: 8999.5 }],
    ['paid in full', { status: 'paid', amount_collected: 12000, collected_by: 'host' }, { advance: 12000, balance: 0 }],
  ] as const)('§4.5 rule 5, §2.3: advance = payment.amount_collected and balance = total − advance: %s', async (_name, payment, want) => {
    const res = await create(h, h.bookingBody({ pricing: { total: 12000 }, ...(payment ? { payment } : {}) }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.pricing).toMatchObject({ total: 12000, ...want });
  });

  it('§4.5 pricing.breakdown: stored verbatim and returned unchanged, odd keys ("__proto__", "constructor") and nested arrays included', async () => {
    const breakdown = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"nested":[[1,[2,{"z":null,"a":[]}]],{}],"unicode":"₹ ✓ \\u0000","tiny":1e-7,"big":12345678901234,"":"empty key","0":"zero"}';
    const text = `{"external_booking_id":"BRK-1","property":{"doorloom_id":${world(h).sea.doorloom_id}},"units":[{"adults":1}],"check_in":"2026-10-01","check_out":"2026-10-03","guest":{"name":"A","mobile":"1"},"pricing":{"total":100,"breakdown":${breakdown}}}`;
    const key = newKey();
    const res = await createRaw(h, text, key);
    expect(res.status, res.text).toBe(201);
    const want = JSON.stringify(JSON.parse(breakdown));
    const returned = (r: Res) => JSON.stringify(JSON.parse(r.text).data.pricing.breakdown);
    expect(returned(res)).toBe(want);
    expect(returned(await h.api('get', `/bookings/${res.body.data.id}`))).toBe(want);
    expect(returned(await h.api('get', '/bookings/external/BRK-1'))).toBe(want);
    expect((await createRaw(h, text, key)).text).toBe(res.text);
    // Nothing leaked onto prototypes.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(JSON.parse(res.text).data.pricing.breakdown)).toBe(Object.prototype);
  });
});

describe('§4.5 rule 6: pinned and allocated units', () => {
  it.each(PINS)('§4.5 rule 6: a unit pinned by %s is the unit booked', async (_name, pin) => {
    const { sea } = world(h);
    const unit = sea.units[2]!;
    const res = await create(h, stayBody(h, sea, '2026-10-01', '2026-10-03', [{ ...pin(unit), adults: 2 }]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.units).toEqual([expect.objectContaining({ inventory_id: unit.inventory_id, external_unit_id: unit.external_unit_id })]);
  });

  it.each(PINS)('§4.5 rule 6: a taken unit pinned by %s is 409 UNAVAILABLE though other units are free: never swapped, nothing written', async (_name, pin) => {
    const { sea } = world(h);
    const taken = sea.units[0]!;
    expect((await create(h, stayBody(h, sea, '2026-10-01', '2026-10-03', [{ inventory_id: taken.inventory_id, adults: 1 }]))).status).toBe(201);
    const before = await writes(h);

    // The pinned unit beside an unpinned one: neither may be held.
    const res = await create(h, stayBody(h, sea, '2026-10-02', '2026-10-04', [{ ...pin(taken), adults: 1 }, { adults: 1 }]));
    expectUnavailable(res);
    expect(res.body.errors.availability.dates.map((d: { available_units: number }) => d.available_units)).toEqual([3, 4]);
    await expectNothingWritten(h, before);

    // Every other unit is still free for that stay, and only those.
    const others: number[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await create(h, stayBody(h, sea, '2026-10-02', '2026-10-04', [{ adults: 1 }]));
      expect(ok.status, ok.text).toBe(201);
      others.push(ok.body.data.units[0].inventory_id);
    }
    expect(others.sort()).toEqual(sea.units.slice(1).map((u) => u.inventory_id).sort());
    expectUnavailable(await create(h, stayBody(h, sea, '2026-10-02', '2026-10-04', [{ adults: 1 }])));
  });

  it('§4.5 rule 6: units without a pin are allocated any free unit', async () => {
    const { sea } = world(h);
    const [u1, u2, u3, u4] = sea.units;
    for (const pinned of [u1!, u3!]) {
      expect((await create(h, stayBody(h, sea, '2026-10-01', '2026-10-05', [{ inventory_id: pinned.inventory_id, adults: 1 }]))).status).toBe(201);
    }
    const res = await create(h, stayBody(h, sea, '2026-10-02', '2026-10-04', [{ adults: 1 }, { adults: 3, children: 2 }]));
    expect(res.status, res.text).toBe(201);
    const got: number[] = res.body.data.units.map((u: { inventory_id: number }) => u.inventory_id);
    expect([...got].sort()).toEqual([u2!.inventory_id, u4!.inventory_id].sort());
    expect(res.body.data.units[1]).toMatchObject({ adults: 3, children: 2 });
    expect(res.body.data.guests).toEqual({ adults: 4, children: 2 });
  });

  it('§4.5 rule 6: a pinned unit is kept and the unpinned entries take other free units', async () => {
    const { sea } = world(h);
    const res = await create(h, stayBody(h, sea, '2026-10-01', '2026-10-03', [{ adults: 1 }, { inventory_id: sea.units[0]!.inventory_id, adults: 1 }]));
    expect(res.status, res.text).toBe(201);
    const [a, b] = res.body.data.units;
    expect(b.inventory_id).toBe(sea.units[0]!.inventory_id);
    expect(a.inventory_id).not.toBe(sea.units[0]!.inventory_id);
  });
});

describe('§4.5 rule 7: no free unit for the whole stay', () => {
  it('§4.5 rule 7: 409 UNAVAILABLE with exactly errors.availability = {property, window (check_in to check_out − 1), total_units, dates[] one per night}; nothing written', async () => {
    const { hill } = world(h);
    expect((await create(h, stayBody(h, hill, '2026-10-05', '2026-10-08'))).status).toBe(201);
    const before = await writes(h);
    const res = await create(h, stayBody(h, hill, '2026-10-04', '2026-10-07'));
    expectUnavailable(res);
    const night = (date: string, available: number) => ({ date, available_units: available, total_units: 1, is_blocked: false, block_scope: null, units_cap: null });
    expect(res.body.errors).toEqual({
      availability: {
        property: { doorloom_id: hill.doorloom_id },
        window: { from: '2026-10-04', to: '2026-10-06' },
        total_units: 1,
        dates: [night('2026-10-04', 1), night('2026-10-05', 0), night('2026-10-06', 0)],
      },
    });
    await expectNothingWritten(h, before);
  });

  it('§4.5 rule 7, §2.4: blocked and capped nights refuse the stay and show in dates[] as the availability payload does', async () => {
    const { hill } = world(h);
    await h.staff('put', `/properties/${hill.doorloom_id}/nights`, { from: '2026-10-20', to: '2026-10-20', is_blocked: true, block_scope: 'everywhere' });
    await h.staff('put', `/properties/${hill.doorloom_id}/nights`, { from: '2026-10-21', to: '2026-10-21', is_blocked: true, block_scope: 'ota_only' });
    await h.staff('put', `/properties/${hill.doorloom_id}/nights`, { from: '2026-10-22', to: '2026-10-22', units_cap: 0 });
    await h.staff('put', `/properties/${hill.doorloom_id}/nights`, { from: '2026-10-23', to: '2026-10-23', units_cap: 1 });
    const before = await writes(h);
    const res = await create(h, stayBody(h, hill, '2026-10-19', '2026-10-25'));
    expectUnavailable(res);
    const entry = (date: string, available: number, more: object = {}) => ({ date, available_units: available, total_units: 1, is_blocked: false, block_scope: null, units_cap: null, ...more });
    expect(res.body.errors.availability).toEqual({
      property: { doorloom_id: hill.doorloom_id },
      window: { from: '2026-10-19', to: '2026-10-24' },
      total_units: 1,
      dates: [
        entry('2026-10-19', 1),
        entry('2026-10-20', 0, { is_blocked: true, block_scope: 'everywhere' }),
        entry('2026-10-21', 0, { is_blocked: true, block_scope: 'ota_only' }),
        entry('2026-10-22', 0, { units_cap: 0 }),
        entry('2026-10-23', 1, { units_cap: 1 }),
        entry('2026-10-24', 1),
      ],
    });
    // "dates[] equals an availability.changed payload without units[]".
    const property = h.sim.store.get('properties', String(hill.doorloom_id))!;
    expect(res.body.errors.availability.dates).toEqual(availabilityPayload(h.sim.store, property, '2026-10-19', '2026-10-24').dates);
    await expectNothingWritten(h, before);
    // The nights either side of the blocks are bookable.
    expect((await create(h, stayBody(h, hill, '2026-10-23', '2026-10-25'))).status).toBe(201);
  });

  it('§4.5 rule 7: a free unit on every night is not enough: one unit must be free for the whole stay', async () => {
    const { sea } = world(h);
    const [u1, ...rest] = sea.units;
    expect((await create(h, stayBody(h, sea, '2026-10-05', '2026-10-06', [{ inventory_id: u1!.inventory_id, adults: 1 }]))).status).toBe(201);
    expect((await create(h, stayBody(h, sea, '2026-10-06', '2026-10-07', rest.map((u) => ({ inventory_id: u.inventory_id, adults: 1 }))))).status).toBe(201);
    const before = await writes(h);
    const res = await create(h, stayBody(h, sea, '2026-10-05', '2026-10-07'));
    expectUnavailable(res);
    expect(res.body.errors.availability.dates.map((d: { available_units: number }) => d.available_units)).toEqual([3, 1]);
    await expectNothingWritten(h, before);
  });

  it('§4.5 rule 7, §2.4: a units_cap refuses beyond the cap though units are free', async () => {
    const { sea } = world(h);
    await h.staff('put', `/properties/${sea.doorloom_id}/nights`, { from: '2026-10-10', to: '2026-10-10', units_cap: 2 });
    expect((await create(h, stayBody(h, sea, '2026-10-10', '2026-10-11'))).status).toBe(201);
    const before = await writes(h);
    const res = await create(h, stayBody(h, sea, '2026-10-09', '2026-10-11', [{ adults: 1 }, { adults: 1 }]));
    expectUnavailable(res);
    expect(res.body.errors.availability.dates).toEqual([
      { date: '2026-10-09', available_units: 4, total_units: 4, is_blocked: false, block_scope: null, units_cap: null },
      { date: '2026-10-10', available_units: 1, total_units: 4, is_blocked: false, block_scope: null, units_cap: 2 },
    ]);
    await expectNothingWritten(h, before);
    expect((await create(h, stayBody(h, sea, '2026-10-10', '2026-10-11'))).status).toBe(201);
    expectUnavailable(await create(h, stayBody(h, sea, '2026-10-10', '2026-10-11')));
  });

  it('§4.5 rule 7: more units than the property has free is 409 UNAVAILABLE (20 units pass validation)', async () => {
    const res = await create(h, h.bookingBody({ units: Array.from({ length: 20 }, () => ({ adults: 1 })) }));
    expectUnavailable(res);
    expect(res.body.errors.availability.total_units).toBe(4);
  });
});

describe('§4.5 rules 8 and 9: success', () => {
  it('§4.5 rule 8: 201 with a message and data = the booking object with every §2.3 field, revision 1, origin partner, status confirmed by default', async () => {
    const { sea } = world(h);
    const body = fullBody(h);
    delete body.status;
    const res = await create(h, body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toMatch(/\S/);
    const data = res.body.data;
    for (const field of BOOKING_FIELDS) expect(data, field).toHaveProperty(field);
    expect(data).toMatchObject({
      id: expect.any(Number),
      external_booking_id: body.external_booking_id,
      revision: 1,
      origin: 'partner',
      status: 'confirmed',
      property: { doorloom_id: sea.doorloom_id, external_id: sea.external_id },
      check_in: '2026-10-01',
      check_out: '2026-10-03',
      guests: { adults: 3, children: 1 },
      units: [
        { inventory_id: sea.units[1]!.inventory_id, external_unit_id: sea.units[1]!.external_unit_id, adults: 2, children: 1, meal_plan: 'CP', stay_price: 7000.5 },
        { inventory_id: sea.units[2]!.inventory_id, external_unit_id: sea.units[2]!.external_unit_id, adults: 1, children: 0, meal_plan: 'EP', stay_price: 4999.5 },
      ],
      pricing: { currency: 'INR', total: 12000, advance: 3000, balance: 9000, includes_gst: true, breakdown: body.pricing.breakdown },
      guest: body.guest,
      payment: body.payment,
      source: body.source,
      notes: body.notes,
      updated_at: '2026-09-15T12:00:00.000+05:30',
    });
    expect(data).not.toHaveProperty('duplicate');
    expect((await h.api('get', `/bookings/${data.id}`)).body.data).toEqual(data);
  });

  it('§4.5 rule 8, §3.2: status pending when asked, and a pending booking holds inventory too', async () => {
    const { hill } = world(h);
    const res = await create(h, stayBody(h, hill, '2026-10-01', '2026-10-03', [{ adults: 1 }], { status: 'pending' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'pending', revision: 1, origin: 'partner' });
    expectUnavailable(await create(h, stayBody(h, hill, '2026-10-02', '2026-10-03')));
  });

  it('§4.5 rule 8: optional fields take their defaults (children 0, phone_code +91, currency INR)', async () => {
    const res = await create(h, h.bookingBody());
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.units[0]).toMatchObject({ children: 0, meal_plan: null });
    expect(res.body.data.guest).toMatchObject({ phone_code: '+91' });
    expect(res.body.data.pricing).toMatchObject({ currency: 'INR', advance: 0, balance: 12000 });
  });

  it('§4.5 rule 9, §3.2: a create records availability.changed for the stay window and booking.changed with origin partner', async () => {
    const { sea } = world(h);
    const before = changeLog(h).length;
    const body = stayBody(h, sea, '2026-10-01', '2026-10-04');
    const key = newKey();
    const res = await create(h, body, key);
    expect(res.status, res.text).toBe(201);
    expect(changeLog(h).slice(before)).toEqual([
      { kind: 'availability', property_id: sea.doorloom_id, from: '2026-10-01', to: '2026-10-03' },
      { kind: 'booking', booking_id: res.body.data.id, origin: 'partner' },
    ]);
    // A replay and a duplicate record nothing more.
    const after = changeLog(h).length;
    expect((await create(h, body, key)).status).toBe(201);
    expect((await create(h, body)).status).toBe(200);
    expect(changeLog(h).length).toBe(after);
  });

  it('§4.5 rules 6, 7, 9: a refused create records nothing', async () => {
    const { hill } = world(h);
    expect((await create(h, stayBody(h, hill, '2026-10-01', '2026-10-03'))).status).toBe(201);
    const before = await writes(h);
    expectUnavailable(await create(h, stayBody(h, hill, '2026-10-01', '2026-10-03')));
    expectError(await create(h, h.bookingBody({ units: [] })), 422, 'VALIDATION_FAILED');
    expectError(await create(h, h.bookingBody({ property: { doorloom_id: 999999 } })), 422, 'PROPERTY_NOT_MAPPED');
    await expectNothingWritten(h, before);
  });
});

describe('§4.5 check_in and check_out', () => {
  it.each([
    ['check_in yesterday is accepted', '2026-09-14', '2026-09-16', null],
    ['check_in today is accepted', '2026-09-15', '2026-09-16', null],
    ['check_in the day before yesterday is refused on check_in', '2026-09-13', '2026-09-16', 'check_in'],
    ['check_out equal to check_in is refused on check_out', '2026-10-01', '2026-10-01', 'check_out'],
    ['check_out before check_in is refused on check_out', '2026-10-02', '2026-10-01', 'check_out'],
    ['a stay of 30 nights (the assumed platform maximum) is accepted', '2026-10-01', '2026-10-31', null],
    ['a stay of 31 nights is refused on check_out', '2026-10-01', '2026-11-01', 'check_out'],
    ['a date that does not exist is refused on that field', '2026-02-30', '2026-10-01', 'check_in'],
  ] as const)('§4.5: %s', async (_name, checkIn, checkOut, refusedOn) => {
    const before = await writes(h);
    const res = await create(h, h.bookingBody({ check_in: checkIn, check_out: checkOut }));
    if (refusedOn === null) {
      expect(res.status, res.text).toBe(201);
      return;
    }
    expectError(res, 422, 'VALIDATION_FAILED');
    expect(Object.keys(res.body.errors)).toEqual([refusedOn]);
    await expectNothingWritten(h, before);
  });

  it('§4.5: "yesterday" is in Asia/Kolkata: at 2026-09-15T20:00Z (the 16th in Kolkata) 2026-09-14 is refused and 2026-09-15 accepted', async () => {
    await h.staff('put', '/clock', { now: '2026-09-15T20:00:00Z' });
    const refused = await create(h, h.bookingBody({ check_in: '2026-09-14', check_out: '2026-09-17' }));
    expectError(refused, 422, 'VALIDATION_FAILED');
    expect(Object.keys(refused.body.errors)).toEqual(['check_in']);
    const accepted = await create(h, h.bookingBody({ check_in: '2026-09-15', check_out: '2026-09-17' }));
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body.data.updated_at).toBe('2026-09-16T01:30:00.000+05:30');
  });
});

describe('§4.5 other failures', () => {
  it.each<[string, (h: Harness) => Promise<Record<string, unknown>> | Record<string, unknown>]>([
    ['an unknown doorloom_id', () => ({ doorloom_id: 999999 })],
    ['an unknown external_id', () => ({ external_id: 'NO-SUCH-PROPERTY' })],
    ["another integration's property", (hh) => ({ doorloom_id: world(hh).other.doorloom_id })],
    ["another integration's property by alias", (hh) => ({ external_id: world(hh).other.external_id })],
    ['the cohosted property nobody covers', async (hh) => {
      const w = await hh.staff('get', '/world');
      const cohosted = w.properties.find((p: { ownership: string }) => p.ownership === 'cohosted');
      expect(cohosted).toBeDefined();
      return { doorloom_id: cohosted.id };
    }],
    ['doorloom_id and external_id naming different covered properties', (hh) => ({ doorloom_id: world(hh).sea.doorloom_id, external_id: world(hh).hill.external_id })],
    // §7 "property reference missing": the §4.5 table's "neither given: 422" with §7's code for it.
    ['a property with neither id', () => ({})],
    ['no property at all', () => undefined as unknown as Record<string, unknown>],
  ])('§4.5, §7: %s is 422 PROPERTY_NOT_MAPPED and writes nothing', async (_name, property) => {
    const before = await writes(h);
    const body = h.bookingBody({ property: await property(h) });
    if (body.property === undefined) delete body.property;
    const res = await create(h, body);
    expectError(res, 422, 'PROPERTY_NOT_MAPPED');
    await expectNothingWritten(h, before);
  });

  it('§4.5: a property named by external_id alone, or by both ids agreeing, is accepted', async () => {
    const { sea } = world(h);
    expect((await create(h, h.bookingBody({ property: { external_id: sea.external_id } }))).status).toBe(201);
    expect((await create(h, h.bookingBody({ property: { doorloom_id: sea.doorloom_id, external_id: sea.external_id } }))).status).toBe(201);
  });

  it.each([
    ['by doorloom_id', (p: FixtureProperty) => ({ doorloom_id: p.doorloom_id })],
    ['by external_id', (p: FixtureProperty) => ({ external_id: p.external_id })],
  ])('§4.5, §7: the archived covered property %s is 422 PROPERTY_ARCHIVED and writes nothing', async (_name, ref) => {
    const { fort } = world(h);
    expect(fort.archived).toBe(true);
    const before = await writes(h);
    expectError(await create(h, h.bookingBody({ property: ref(fort) })), 422, 'PROPERTY_ARCHIVED');
    await expectNothingWritten(h, before);
  });

  it.each<[string, (h: Harness) => Record<string, unknown>]>([
    ['an unknown external_unit_id', () => ({ external_unit_id: 'NO-SUCH-UNIT' })],
    ['an unknown inventory_id', () => ({ inventory_id: 999999 })],
    ['a unit of another property by inventory_id', (hh) => ({ inventory_id: world(hh).hill.units[0]!.inventory_id })],
    ['a unit of another property by external_unit_id', (hh) => ({ external_unit_id: world(hh).hill.units[0]!.external_unit_id })],
    ['inventory_id and external_unit_id naming different units', (hh) => ({ inventory_id: world(hh).sea.units[0]!.inventory_id, external_unit_id: world(hh).sea.units[1]!.external_unit_id })],
  ])('§4.5, §7: %s is 422 UNIT_NOT_MAPPED and writes nothing', async (_name, pin) => {
    const before = await writes(h);
    const res = await create(h, h.bookingBody({ units: [{ adults: 1 }, { ...pin(h), adults: 1 }] }));
    expectError(res, 422, 'UNIT_NOT_MAPPED');
    expect(Object.keys(res.body.errors)[0]).toMatch(/^units\.1\./);
    await expectNothingWritten(h, before);
  });

  it.each(PINS)('§4.5, §7: the inactive unit pinned by %s is 422 UNIT_INACTIVE and writes nothing', async (_name, pin) => {
    const { lake } = world(h);
    const inactive = lake.units.find((u) => !u.active)!;
    expect(inactive).toBeDefined();
    const before = await writes(h);
    const res = await create(h, stayBody(h, lake, '2026-10-01', '2026-10-03', [{ ...pin(inactive), adults: 1 }]));
    expectError(res, 422, 'UNIT_INACTIVE');
    await expectNothingWritten(h, before);
    // The property's active units are bookable; the inactive one never is allocated.
    const ok = await create(h, stayBody(h, lake, '2026-10-01', '2026-10-03', [{ adults: 1 }, { adults: 1 }]));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.units.map((u: { inventory_id: number }) => u.inventory_id)).not.toContain(inactive.inventory_id);
    expectUnavailable(await create(h, stayBody(h, lake, '2026-10-01', '2026-10-03', [{ adults: 1 }])));
  });

  const s = (n: number) => 'x'.repeat(n);
  it.each<[string, (b: Record<string, any>) => void, string]>([
    ['units with 0 entries', (b) => { b.units = []; }, 'units'],
    ['units with 21 entries', (b) => { b.units = Array.from({ length: 21 }, () => ({ adults: 1 })); }, 'units'],
    ['adults 0', (b) => { b.units = [{ adults: 0 }]; }, 'units.0.adults'],
    ['adults 51', (b) => { b.units = [{ adults: 51 }]; }, 'units.0.adults'],
    ['adults missing', (b) => { b.units = [{ children: 1 }]; }, 'units.0.adults'],
    ['children 51', (b) => { b.units = [{ adults: 1 }, { adults: 1, children: 51 }]; }, 'units.1.children'],
    ['meal_plan XX', (b) => { b.units = [{ adults: 1, meal_plan: 'XX' }]; }, 'units.0.meal_plan'],
    ['external_unit_id of 129 characters', (b) => { b.units = [{ adults: 1, external_unit_id: s(129) }]; }, 'units.0.external_unit_id'],
    ['currency USD', (b) => { b.pricing = { total: 100, currency: 'USD' }; }, 'pricing.currency'],
    ['total missing', (b) => { b.pricing = {}; }, 'pricing.total'],
    ['notes of 2001 characters', (b) => { b.notes = s(2001); }, 'notes'],
    ['external_booking_id of 129 characters', (b) => { b.external_booking_id = s(129); }, 'external_booking_id'],
    ['external_booking_id missing', (b) => { delete b.external_booking_id; }, 'external_booking_id'],
    ['property.external_id of 129 characters', (b) => { b.property = { external_id: s(129) }; }, 'property.external_id'],
    ['guest.name of 256 characters', (b) => { b.guest = { ...b.guest, name: s(256) }; }, 'guest.name'],
    ['guest.phone_code of 9 characters', (b) => { b.guest = { ...b.guest, phone_code: s(9) }; }, 'guest.phone_code'],
    ['guest.mobile of 21 characters', (b) => { b.guest = { ...b.guest, mobile: s(21) }; }, 'guest.mobile'],
    ['guest.country of 65 characters', (b) => { b.guest = { ...b.guest, country: s(65) }; }, 'guest.country'],
    ['guest.email not an email', (b) => { b.guest = { ...b.guest, email: 'not-an-email' }; }, 'guest.email'],
    ['guest.email of 256 characters', (b) => { b.guest = { ...b.guest, email: `${s(64)}@${s(187)}.com` }; }, 'guest.email'],
    ['source.channel of 65 characters', (b) => { b.source = { channel: s(65) }; }, 'source.channel'],
    ['source.reference of 129 characters', (b) => { b.source = { reference: s(129) }; }, 'source.reference'],
    ['payment.reference of 129 characters', (b) => { b.payment = { reference: s(129) }; }, 'payment.reference'],
    ['payment.status owed', (b) => { b.payment = { status: 'owed' }; }, 'payment.status'],
    ['status cancelled', (b) => { b.status = 'cancelled'; }, 'status'],
  ])('§4.5, §7: %s is 422 VALIDATION_FAILED keyed by its field path and writes nothing', async (_name, mutate, path) => {
    const body = h.bookingBody();
    mutate(body);
    const before = await writes(h);
    const res = await create(h, body);
    expectError(res, 422, 'VALIDATION_FAILED');
    expect(Object.keys(res.body.errors)).toEqual([path]);
    expect(res.body.errors[path]).toEqual([expect.any(String)]);
    await expectNothingWritten(h, before);
  });

  it.each([
    ['0@com', false], ['name@localhost', false], ['"quoted"@example.com', false], ['a@[192.168.0.1]', false], ['a..b@example.com', false],
    ['a@-example.com', false], ['a@b.co', true], ['0@example.com', true], ["o'brien+stay@mail.example.in", true], ['ASHA@Example.COM', true],
  ] as const)('§4.5 guest.email "Valid email" (spec x-assumption on guest.email): %s → accepted %s', async (email, accepted) => {
    const res = await create(h, h.bookingBody({ guest: { name: 'Asha Rao', mobile: '9800000000', email } }));
    if (accepted) {
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.guest.email).toBe(email);
    } else {
      expectError(res, 422, 'VALIDATION_FAILED');
      expect(Object.keys(res.body.errors)).toEqual(['guest.email']);
    }
    const schema = (contract().document.paths as Record<string, any>)['/bookings'].post.requestBody.content['application/json'].schema;
    const guest = (schema.allOf ?? [schema]).map((p: any) => p.properties?.guest).find(Boolean) ?? schema.properties.guest;
    expect(guest.properties.email['x-assumption'], 'decided in the contract').toMatch(/0@com/);
  });

  it('§4.5, §8: every string at its documented maximum, adults 50 and children 50 are accepted', async () => {
    const { sea } = world(h);
    const s = (n: number) => 'y'.repeat(n);
    await h.staff('post', `/properties/${sea.doorloom_id}/units`, { name: 'Long alias', external_unit_id: s(128) });
    const res = await create(h, h.bookingBody({
      external_booking_id: s(128),
      units: [{ external_unit_id: s(128), adults: 50, children: 50 }],
      guest: { name: s(255), phone_code: s(8), mobile: s(20), email: `${s(64)}@${s(186)}.com`, country: s(64) },
      payment: { reference: s(128) },
      source: { channel: s(64), reference: s(128) },
      notes: s(2000),
    }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.guest.email).toHaveLength(255);
  });
});

describe('§4.5 concurrency', () => {
  it.each([0, 25])('§4.5 rules 6, 7: 10 parallel creates for the last free unit of a night (create latency %i ms): exactly one 201, nine 409 UNAVAILABLE', async (latency) => {
    const { sea } = world(h);
    const first = await create(h, stayBody(h, sea, '2026-10-10', '2026-10-11', [{ adults: 1 }, { adults: 1 }, { adults: 1 }]));
    expect(first.status, first.text).toBe(201);
    await h.staff('put', '/settings', { create_latency_ms: latency });
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(h, stayBody(h, sea, '2026-10-10', '2026-10-11', [{ adults: 1 }]))));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expectUnavailable(r);
      expect(r.body.errors.availability.dates).toEqual([{ date: '2026-10-10', available_units: 0, total_units: 4, is_blocked: false, block_scope: null, units_cap: null }]);
    }
    expect((await writes(h)).listed).toBe(2);
  });

  it('§4.5 rules 6, 7: parallel creates on the 4-unit property never hold a unit twice or a night beyond its units or cap, and every refusal is justified (property)', async () => {
    const FIRST_NIGHT = '2026-10-01';
    const request = fc.record({ start: fc.integer({ min: 0, max: 7 }), nights: fc.integer({ min: 1, max: 3 }), units: fc.integer({ min: 1, max: 3 }) });
    const cap = fc.record({ night: fc.integer({ min: 0, max: 9 }), cap: fc.integer({ min: 0, max: 4 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), fc.array(cap, { maxLength: 2 }), fc.constantFrom(0, 5), async (requests, caps, latency) => {
        const hh = makeHarness();
        const { sea } = world(hh);
        const capOf = new Map<string, number>();
        for (const c of caps) {
          const date = addDays(FIRST_NIGHT, c.night);
          capOf.set(date, c.cap);
          await hh.staff('put', `/properties/${sea.doorloom_id}/nights`, { from: date, to: date, units_cap: c.cap });
        }
        await hh.staff('put', '/settings', { create_latency_ms: latency });
        const stays = requests.map((r) => ({ ...r, from: addDays(FIRST_NIGHT, r.start), to: addDays(FIRST_NIGHT, r.start + r.nights) }));
        const answers = await Promise.all(stays.map((r) => create(hh, stayBody(hh, sea, r.from, r.to, Array.from({ length: r.units }, () => ({ adults: 1 }))))));

        // Holds of the accepted bookings: one booking per unit and night.
        const held = new Map<string, Set<number>>();
        answers.forEach((res, i) => {
          const stay = stays[i]!;
          if (res.status !== 201) return expectUnavailable(res);
          const units: number[] = res.body.data.units.map((u: { inventory_id: number }) => u.inventory_id);
          expect(new Set(units).size).toBe(stay.units);
          for (const night of nights(stay.from, addDays(stay.to, -1))) {
            const set = held.get(night) ?? new Set<number>();
            for (const u of units) {
              expect(set.has(u), `unit ${u} held twice on ${night}`).toBe(false);
              set.add(u);
            }
            held.set(night, set);
          }
        });
        const limit = (night: string) => Math.min(sea.units.length, capOf.get(night) ?? Infinity);
        for (const [night, set] of held) expect(set.size, `units held on ${night}`).toBeLessThanOrEqual(limit(night));

        // A refusal stays justified in the final state (holds only grew): too few units free for the whole stay, or a night over its cap.
        answers.forEach((res, i) => {
          if (res.status === 201) return;
          const stay = stays[i]!;
          const stayNights = nights(stay.from, addDays(stay.to, -1));
          const freeAllStay = sea.units.filter((u) => stayNights.every((n) => !held.get(n)?.has(u.inventory_id))).length;
          const capped = stayNights.some((n) => capOf.has(n) && capOf.get(n)! - (held.get(n)?.size ?? 0) < stay.units);
          expect(freeAllStay < stay.units || capped, `refusal of ${JSON.stringify(stay)} is not justified`).toBe(true);
        });
        expect((await writes(hh)).listed).toBe(answers.filter((r) => r.status === 201).length);

        // One more on a full night is refused.
        const full = [...held].find(([night, set]) => set.size === limit(night));
        if (full) expectUnavailable(await create(hh, stayBody(hh, sea, full[0], addDays(full[0], 1), [{ adults: 1 }])));
        expectConformingResponses(hh);
      }),
      { numRuns: 25 },
    );
  });
});
