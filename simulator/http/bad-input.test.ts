/**
 * Bad input always gets a 4xx in the §7 error envelope, never a 5xx, and a
 * refused request writes nothing (negative data rejection): bodies, content
 * types, encodings, sizes, nesting, prototype keys and query strings.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type supertest from 'supertest';
import { loadContract } from '../../spec/contract.ts';
import { STATUS_OF, type ErrorCode } from '../domain/errors.ts';
import { scanJsonText } from '../domain/json-text.ts';
import { expectConformingResponses, makeHarness, newKey, type Harness } from '../testing.ts';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => {
  expectConformingResponses(h);
  expectPrototypesIntact();
});

const ERROR_CODES = Object.keys(STATUS_OF) as ErrorCode[];
const contract = loadContract();
const createOp = contract.operation('createBooking');

// ---- Object.prototype is never touched ------------------------------------------------

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
function expectPrototypesIntact(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(Object.getPrototypeOf(Object.prototype)).toBeNull();
}

// ---- helpers ---------------------------------------------------------------------------

/** What a refused request must leave as it was (§4.5 rules 6, 7: nothing written). */
const written = () => ({ bookings: h.sim.store.size('bookings'), holds: h.sim.store.size('holds') });

function expectEnvelope(res: supertest.Response): void {
  expect(res.status, res.text.slice(0, 500)).toBeGreaterThanOrEqual(400);
  expect(res.status, res.text.slice(0, 500)).toBeLessThan(500);
  expect(res.type).toBe('application/json');
  expect(res.body).toEqual({ success: false, code: expect.any(String), message: expect.any(String), errors: expect.any(Object) });
  expect(ERROR_CODES).toContain(res.body.code);
  expect(STATUS_OF[res.body.code as ErrorCode]).toBe(res.status);
}

function expectValidationFailed(res: supertest.Response, field?: string, code = 'VALIDATION_FAILED'): void {
  expectEnvelope(res);
  expect(res.status).toBe(422);
  expect(res.body.code).toBe(code);
  // §7: errors keyed by field path, each an array of messages.
  for (const messages of Object.values(res.body.errors)) expect(messages).toEqual(expect.arrayContaining([expect.any(String)]));
  if (field !== undefined) expect(Object.keys(res.body.errors), JSON.stringify(res.body.errors)).toContain(field);
}

/** POST /bookings with a raw body. */
function postRaw(body: string | Buffer, contentType: string | null = 'application/json', key: string = newKey()): supertest.Test {
  const req = h.api('post', '/bookings').set('Idempotency-Key', key);
  if (contentType !== null) req.set('Content-Type', contentType);
  // Bytes as given: superagent would otherwise JSON-encode a Buffer sent as application/json.
  return req.serialize((raw: unknown) => raw as string).send(body);
}

const postJson = (body: unknown) => postRaw(JSON.stringify(body));

/** A valid create body with every documented field (§4.5), for integrations[0]. */
function fullBody(): Record<string, any> {
  const property = h.fixtures.integrations[0]!.properties[0]!;
  return h.bookingBody({
    property: { doorloom_id: property.doorloom_id },
    units: [{ adults: 2, children: 1, meal_plan: 'CP', stay_price: 6000 }, { external_unit_id: property.units[1]!.external_unit_id, adults: 1, children: 0, meal_plan: 'EP', stay_price: 6000 }],
    guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9800000000', email: 'asha@example.com', country: 'IN' },
    pricing: { total: 12000, currency: 'INR', includes_gst: true, breakdown: { room: 10000, tax: 2000 } },
    payment: { status: 'partial', amount_collected: 2000, collected_by: 'partner', reference: 'PAY-1' },
    source: { channel: 'web', reference: 'SRC-1' },
    status: 'confirmed',
    notes: 'Late arrival',
  });
}

/**
 * Every value inside a JSON value with its dotted path (§7 field path) and
 * its keys: a key may itself hold a dot, so only the keys are unambiguous.
 */
function paths(value: unknown, prefix = '', above: string[] = []): [string, unknown, string[]][] {
  if (value === null || typeof value !== 'object') return [];
  const out: [string, unknown, string[]][] = [];
  for (const [k, v] of Object.entries(value)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push([p, v, [...above, k]], ...paths(v, p, [...above, k]));
  }
  return out;
}

function setPath(target: any, path: string | string[], value: unknown): void {
  const keys = typeof path === 'string' ? path.split('.') : path;
  let node = target;
  for (const k of keys.slice(0, -1)) node = node[k];
  const last = keys[keys.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else {
    node[last] = value;
  }
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

it('the full body is valid: every refusal below is about the one thing changed', async () => {
  const res = await postJson(fullBody());
  expect(res.status, res.text).toBe(201);
  expect(contract.checkBody(createOp, fullBody())).toBeNull();
});

// ---- body syntax -----------------------------------------------------------------------

describe('malformed JSON → 422 VALIDATION_FAILED on _body, nothing written', () => {
  const cases = ['{', '{"a":1,}', "{'a':1}", 'nul', '{"a":1}{"b":2}', '{"a":1} x', ' ', 'undefined', 'NaN', '{"a":NaN}', '{"a":Infinity}', '[1,2', '"unterminated', '\u0000', '{"a":01}', '{"a":.5}', '{"a":"\\x41"}', '{"a":1}\u0000'];
  it.each(cases.map((c) => [JSON.stringify(c), c]))('%s', async (_name, text) => {
    const before = written();
    expectValidationFailed(await postRaw(text), '_body');
    expect(written()).toEqual(before);
  });

  it('an empty body', async () => {
    const before = written();
    expectValidationFailed(await postRaw(''));
    expect(written()).toEqual(before);
  });
});

describe('a JSON value that is not an object → 422 VALIDATION_FAILED on _body', () => {
  it.each([['an array', '[]'], ['an array holding the valid body', null], ['a string', '"booking"'], ['a number', '42'], ['true', 'true'], ['null', 'null']])('%s', async (_name, text) => {
    const before = written();
    const res = await postRaw(text ?? JSON.stringify([fullBody()]));
    expectValidationFailed(res, '_body');
    expect(written()).toEqual(before);
  });
});

describe('Content-Type other than application/json → 422 VALIDATION_FAILED, nothing written', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/jsonx', 'text/json'])('%s with a valid JSON body', async (type) => {
    const before = written();
    expectValidationFailed(await postRaw(JSON.stringify(fullBody()), type), 'Content-Type');
    expect(written()).toEqual(before);
  });

  it('no Content-Type at all', async () => {
    const before = written();
    expectValidationFailed(await postRaw(Buffer.from(JSON.stringify(fullBody())), null));
    expect(written()).toEqual(before);
  });

  it('application/json with a charset parameter is accepted (control)', async () => {
    expect((await postRaw(JSON.stringify(fullBody()), 'application/json; charset=utf-8')).status).toBe(201);
  });
});

describe('invalid UTF-8 → 422 VALIDATION_FAILED on _body', () => {
  const around = (bytes: number[]) => Buffer.concat([Buffer.from('{"external_booking_id":"'), Buffer.from(bytes), Buffer.from('"}')]);
  it.each([['a stray 0xFF', [0xff]], ['a truncated sequence', [0xe2, 0x82]], ['an overlong slash', [0xc0, 0xaf]], ['an encoded surrogate', [0xed, 0xa0, 0x80]], ['a lone continuation byte', [0x80]]])('%s', async (_name, bytes) => {
    const before = written();
    const body = JSON.stringify(fullBody());
    const raw = Buffer.concat([Buffer.from(body.slice(0, -1)), Buffer.from(',"notes":"'), Buffer.from(bytes), Buffer.from('"}')]);
    expectValidationFailed(await postRaw(raw), '_body');
    expectValidationFailed(await postRaw(around(bytes)), '_body');
    expect(written()).toEqual(before);
  });
});

// ---- field types and ranges ------------------------------------------------------------

describe('a wrong type in any field → 422 VALIDATION_FAILED naming that field, nothing written', () => {
  const wrongFor = (v: unknown): unknown[] => {
    if (typeof v === 'string') return [123, true, null, {}, []];
    if (typeof v === 'number') return Number.isInteger(v) ? ['2', 1.5, true, null, {}, []] : ['1.5', true, null, {}, []];
    if (typeof v === 'boolean') return ['true', 1, null, {}];
    if (Array.isArray(v)) return [{}, 'x', 1, null];
    return ['x', [], 1, null, true];
  };
  /** Numbers the document types as `number` (any value), not `integer`. */
  const NUMBER_FIELDS = /(^|\.)(total|stay_price|amount_collected|room|tax)$/;

  it('every field of the full body, every wrong type', async () => {
    const before = written();
    let checked = 0;
    for (const [path, value] of paths(fullBody())) {
      if (path.startsWith('pricing.breakdown.')) continue; // free-form: any value is stored verbatim
      const wrong = wrongFor(value).filter((w) => !(NUMBER_FIELDS.test(path) && w === 1.5));
      for (const w of wrong) {
        const body = fullBody();
        setPath(body, path, w);
        const res = await postJson(body);
        expectValidationFailed(res, path);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(written()).toEqual(before);
  });
});

describe('a value out of range → 422 VALIDATION_FAILED naming that field (§4.5, §8)', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: [string, string, unknown][] = [
    ['external_booking_id', 'external_booking_id', long(129)],
    ['external_booking_id', 'external_booking_id', ''],
    ['property', 'property.external_id', { external_id: long(129) }],
    ['units', 'units', []],
    ['units', 'units', Array.from({ length: 21 }, () => ({ adults: 1 }))],
    ['units.0.adults', 'units.0.adults', 0],
    ['units.0.adults', 'units.0.adults', 51],
    ['units.0.children', 'units.0.children', -1],
    ['units.0.children', 'units.0.children', 51],
    ['units.0.meal_plan', 'units.0.meal_plan', 'XX'],
    ['units.1.external_unit_id', 'units.1.external_unit_id', long(129)],
    ['units.0.inventory_id', 'units.0.inventory_id', 0],
    ['check_in', 'check_in', '2026-02-30'],
    ['check_in', 'check_in', '15-10-2026'],
    ['check_in', 'check_in', '2026-10-01T00:00:00Z'],
    ['check_in', 'check_in', '2026-09-13'],
    ['check_out', 'check_out', '2026-10-32'],
    ['check_out', 'check_out', '2026-10-01'],
    ['check_out', 'check_out', '2026-11-15'],
    ['guest.name', 'guest.name', long(256)],
    ['guest.name', 'guest.name', ''],
    ['guest.phone_code', 'guest.phone_code', long(9)],
    ['guest.mobile', 'guest.mobile', long(21)],
    ['guest.email', 'guest.email', 'not-an-email'],
    ['guest.email', 'guest.email', `${long(250)}@example.com`],
    ['guest.country', 'guest.country', long(65)],
    ['pricing.currency', 'pricing.currency', 'USD'],
    ['payment.status', 'payment.status', 'lost'],
    ['payment.collected_by', 'payment.collected_by', 'bank'],
    ['payment.reference', 'payment.reference', long(129)],
    ['source.channel', 'source.channel', long(65)],
    ['source.reference', 'source.reference', long(129)],
    ['status', 'status', 'cancelled'],
    ['notes', 'notes', long(2001)],
  ];
  it.each(cases)('%s = %j', async (path, field, value) => {
    const before = written();
    const body = fullBody();
    setPath(body, path, value);
    expectValidationFailed(await postJson(body), field);
    expect(written()).toEqual(before);
  });

  it('§7: a missing property reference (absent, or neither id) is PROPERTY_NOT_MAPPED naming property, and writes nothing', async () => {
    for (const value of [undefined, {}]) {
      const before = written();
      const body = fullBody();
      setPath(body, 'property', value);
      expectValidationFailed(await postJson(body), 'property', 'PROPERTY_NOT_MAPPED');
      expect(written()).toEqual(before);
    }
  });

  it('§7: with another bad field too, a missing property reference is VALIDATION_FAILED naming both (validation runs first)', async () => {
    const body = fullBody();
    setPath(body, 'property', {});
    setPath(body, 'notes', 'x'.repeat(2001));
    const res = await postJson(body);
    expectValidationFailed(res, 'notes');
    expect(Object.keys(res.body.errors).sort()).toEqual(['notes', 'property']);
  });

  it('negative pricing.total, stay_price and amount_collected are refused on their field (spec x-assumptions money-range, issue 29)', () => {
    for (const [path, value] of [['pricing.total', -1], ['units.0.stay_price', -1], ['payment.amount_collected', -5]] as const) {
      const body = fullBody();
      setPath(body, path, value);
      const refusal = contract.bodyRefusal(createOp, body);
      expect(refusal?.code, path).toBe('VALIDATION_FAILED');
      expect(Object.keys(refusal!.errors), path).toEqual([path]);
    }
  });

  it('a missing required field is named', async () => {
    for (const path of ['external_booking_id', 'units', 'units.0.adults', 'check_in', 'check_out', 'guest', 'guest.name', 'guest.mobile', 'pricing', 'pricing.total']) {
      const before = written();
      const body = fullBody();
      setPath(body, path, undefined);
      if (path === 'units.0.adults') body.units[0] = { children: 0 };
      expectValidationFailed(await postJson(body), path);
      expect(written()).toEqual(before);
    }
  });

  it('numbers beyond double range (1e400 parses as Infinity) are refused, not stored as null', async () => {
    for (const path of ['pricing.total', 'units.0.stay_price', 'payment.amount_collected', 'units.0.adults']) {
      const before = written();
      const body = fullBody();
      setPath(body, path, 424242.4242);
      const res = await postRaw(JSON.stringify(body).replace('424242.4242', '1e400'));
      expectValidationFailed(res, path);
      expect(written()).toEqual(before);
    }
  });
});

// ---- sizes and depth -------------------------------------------------------------------

describe('huge input → 4xx, never 5xx', () => {
  it.each(['guest.name', 'external_booking_id', 'notes', 'guest.mobile', 'source.channel'])('a 100 KB %s → 422 naming it', async (path) => {
    const before = written();
    const body = fullBody();
    setPath(body, path, 'é'.repeat(100 * 1024));
    expectValidationFailed(await postJson(body), path);
    expect(written()).toEqual(before);
  });

  it('a 2 MB body → 422 on _body', async () => {
    const before = written();
    const body = { ...fullBody(), notes: 'x'.repeat(2 * 1024 * 1024) };
    expectValidationFailed(await postJson(body), '_body');
    expect(written()).toEqual(before);
    // The connection and the app are still fine.
    expect((await h.api('get', '/me')).status).toBe(200);
  });

  it('a 1000-character Idempotency-Key → 422 IDEMPOTENCY_KEY_REQUIRED', async () => {
    const before = written();
    const res = await postRaw(JSON.stringify(fullBody()), 'application/json', 'k'.repeat(1000));
    expectEnvelope(res);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(written()).toEqual(before);
  });

  it('a 10 KB query string → 422 naming the over-long parameter', async () => {
    // (Request heads over 16 KB never reach the app: Node's HTTP parser answers 431 itself.)
    const res = await h.api('get', `/bookings?updated_since=${'9'.repeat(5 * 1024)}&junk=${'x'.repeat(5 * 1024)}`);
    expectValidationFailed(res, 'updated_since');
  });
});

describe('deep nesting → 422, never a stack overflow', () => {
  const nest = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

  it.each([
    ['arrays as the whole body', () => nest(100_000, '[', ']')],
    ['objects as the whole body', () => nest(50_000, '{"a":', '}')],
    ['inside pricing.breakdown', () => JSON.stringify(fullBody()).replace('"room":10000', `"room":${nest(20_000, '[', ']')}`)],
    ['inside an unknown field', () => JSON.stringify(fullBody()).slice(0, -1) + `,"extra":${nest(20_000, '{"a":', '}')}}`],
    ['inside a string-typed field', () => JSON.stringify(fullBody()).replace('"notes":"Late arrival"', `"notes":${nest(20_000, '[', ']')}`)],
  ])('%s', async (_name, text) => {
    const before = written();
    expectValidationFailed(await postRaw(text()), '_body');
    expect(written()).toEqual(before);
  });

  it('brackets inside strings are not nesting (control: 2000 of them in notes are fine)', async () => {
    const res = await postJson({ ...fullBody(), notes: '[{'.repeat(1000) });
    expect(res.status, res.text).toBe(201);
  });

  it('a breakdown nested a few levels deep is accepted and returned verbatim (control)', async () => {
    const breakdown = { room: { base: { weekday: [1, { n: 2 }] } }, tax: { gst: { cgst: 1, sgst: 1 } } };
    const res = await postJson({ ...fullBody(), pricing: { total: 12000, breakdown } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.pricing.breakdown).toEqual(breakdown);
  });
});

// ---- prototype keys ----------------------------------------------------------------------

describe('`__proto__` and `constructor` keys anywhere: no pollution, no smuggled fields, never 5xx', () => {
  /** Splices a raw `"key": value` member into the object at `path` of the full body's JSON text. */
  function withMember(path: string, member: string): string {
    const body = fullBody();
    setPath(body, path === '' ? '__slot' : `${path}.__slot`, 'SLOT');
    return JSON.stringify(body).replace('"__slot":"SLOT"', member);
  }
  const members = [
    '"__proto__":{"polluted":"yes"}',
    '"constructor":{"prototype":{"polluted":"yes"}}',
    '"__proto__":{"__proto__":{"polluted":"yes"}}',
    '"prototype":{"polluted":"yes"}',
    '"__proto__":null',
    '"__proto__":[1,2]',
  ];
  const places = ['', 'property', 'units.0', 'guest', 'pricing', 'payment', 'source'];

  it('are ignored like any unknown field (spec BookingCreateRequest x-assumption): 201', async () => {
    for (const place of places) {
      for (const member of members) {
        h = makeHarness(); // a fresh world each time, so inventory never runs out
        const res = await postRaw(withMember(place, member));
        expect(res.status, `${member} at ${place || 'top level'}: ${res.text}`).toBe(201);
        expect(res.body.data.guest.name).toBe('Asha Rao');
        expect(h.violations).toEqual([]);
        expectPrototypesIntact();
      }
    }
  });

  it('inside pricing.breakdown they are stored and returned verbatim (§4.5)', async () => {
    const res = await postRaw(withMember('pricing.breakdown', '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}'));
    expect(res.status, res.text).toBe(201);
    const read = await h.api('get', `/bookings/${res.body.data.id}`);
    expect(read.text).toContain('"__proto__":{"polluted":"yes"}');
    expect(read.text).toContain('"constructor":{"prototype":{"polluted":"yes"}}');
    expectPrototypesIntact();
  });

  it('cannot smuggle a required field in through the prototype', async () => {
    // Each body lacks a required field and offers it only under `__proto__`: an own key, never inherited.
    const without = (drop: (b: Record<string, any>) => void) => {
      const body = fullBody();
      drop(body);
      return JSON.stringify(body);
    };
    const cases: [string, string][] = [
      [without((b) => { b.property = { __slot: 1 }; }).replace('"__slot":1', '"__proto__":{"doorloom_id":101}'), 'property'],
      [without((b) => { b.guest = { __slot: 1 }; }).replace('"__slot":1', '"__proto__":{"name":"Asha Rao","mobile":"9800000000"}'), 'guest.name'],
      [without((b) => { b.pricing = { __slot: 1 }; }).replace('"__slot":1', '"__proto__":{"total":12000}'), 'pricing.total'],
      [without((b) => { delete b.check_in; b.__slot = 1; }).replace('"__slot":1', '"__proto__":{"check_in":"2026-10-01"}'), 'check_in'],
    ];
    for (const [text, field] of cases) {
      expect(text).toContain('"__proto__"');
      const before = written();
      // §7: a missing property reference is PROPERTY_NOT_MAPPED; the other fields VALIDATION_FAILED.
      expectValidationFailed(await postRaw(text), field, field === 'property' ? 'PROPERTY_NOT_MAPPED' : 'VALIDATION_FAILED');
      expect(written()).toEqual(before);
      expectPrototypesIntact();
    }
  });

  it('in query strings, in any spelling', async () => {
    for (const query of ['__proto__[polluted]=yes', 'constructor[prototype][polluted]=yes', '__proto__=yes', '__proto__.polluted=yes', 'constructor=x&prototype=y', 'per_page=1&__proto__=2']) {
      const res = await h.api('get', `/bookings?${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      expectPrototypesIntact();
    }
  });

  it('as a JSON body that is only a prototype key', async () => {
    for (const text of ['{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}', '[{"__proto__":{"polluted":"yes"}}]']) {
      const before = written();
      expectValidationFailed(await postRaw(text));
      expect(written()).toEqual(before);
    }
  });
});

// ---- query strings -----------------------------------------------------------------------

describe('query strings', () => {
  it('unknown parameters are ignored', async () => {
    await postJson(fullBody());
    const plain = await h.api('get', '/bookings');
    for (const query of ['foo=bar', 'include=everything&sort=-id', 'status[]=pending', 'PAGE=9', 'per-page=1', 'updated_since_=x']) {
      const res = await h.api('get', `/bookings?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body).toEqual(plain.body);
    }
    expect((await h.api('get', '/me?verbose=1&x=')).status).toBe(200);
    expect((await h.api('get', `/bookings/${plain.body.data[0].id}?expand=all`)).status).toBe(200);
  });

  it.each([
    ['per_page=1&per_page=2', 'per_page'],
    ['per_page=2&per_page=2', 'per_page'],
    ['page=1&page=2', 'page'],
    ['status=confirmed&status=pending', 'status'],
    ['updated_since=2026-09-15&updated_since=2026-09-16', 'updated_since'],
    ['property_id=101&property_id=102', 'property_id'],
    ['check_in_from=2026-10-01&check_in_from=2026-10-02', 'check_in_from'],
  ])('a repeated parameter (%s) → 422 naming %s', async (query, field) => {
    expectValidationFailed(await h.api('get', `/bookings?${query}`), field);
  });

  it.each([
    ['check_in_from=2026-02-30', 'check_in_from'],
    ['check_in_to=2026-04-31', 'check_in_to'],
    ['check_in_from=2026-02-29', 'check_in_from'],
    ['check_in_to=2026-00-10', 'check_in_to'],
    ['updated_since=2026-02-30', 'updated_since'],
    ['updated_since=2026-02-30T10:00:00Z', 'updated_since'],
    ['updated_since=2026-06-31T00:00:00%2B05:30', 'updated_since'],
  ])('an impossible date (%s) → 422 naming %s', async (query, field) => {
    expectValidationFailed(await h.api('get', `/bookings?${query}`), field);
  });

  it.each([
    ['page=1e400', 'page'],
    ['per_page=1e400', 'per_page'],
    ['property_id=1e400', 'property_id'],
    ['page=-1e400', 'page'],
    ['page=NaN', 'page'],
    ['page=Infinity', 'page'],
  ])('a number beyond range (%s) → 422 naming %s, never a null in pagination', async (query, field) => {
    expectValidationFailed(await h.api('get', `/bookings?${query}`), field);
  });
});

// ---- properties (fast-check) -------------------------------------------------------------

describe('properties: no input makes the simulator answer 5xx or write on a refusal', () => {
  it('any JSON value as the body of POST /bookings → 4xx envelope, nothing written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const before = written();
        const res = await postRaw(JSON.stringify(value) ?? 'null');
        expectEnvelope(res);
        expect(written()).toEqual(before);
        expect(h.violations).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  type Mutation = { kind: 'delete' } | { kind: 'replace'; value: unknown } | { kind: 'add'; key: string; value: unknown };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.constant({ kind: 'delete' as const }),
    fc.record({ kind: fc.constant('replace' as const), value: fc.jsonValue({ maxDepth: 2 }) }),
    fc.record({ kind: fc.constant('add' as const), key: fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'revision', 'duplicate', 'integration_id')), value: fc.jsonValue({ maxDepth: 2 }) }),
  );

  it('mutations of a valid body: schema-invalid → 422 with the contract\'s code (VALIDATION_FAILED, or PROPERTY_NOT_MAPPED for a missing property reference); anything else 2xx or 4xx; refusals write nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 }), async (mutations) => {
        h = makeHarness();
        let body: any = fullBody();
        for (const [pick, m] of mutations) {
          const all = paths(body);
          if (all.length === 0) break;
          const [, target, keys] = all[pick % all.length]!;
          if (m.kind === 'delete') setPath(body, keys, undefined);
          else if (m.kind === 'replace') setPath(body, keys, clone(m.value));
          else if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
            Object.defineProperty(target, m.key, { value: clone(m.value), enumerable: true, writable: true, configurable: true });
          }
        }
        const text = JSON.stringify(body);
        body = JSON.parse(text);
        const before = written();
        const res = await postRaw(text);
        expect(res.status, res.text).toBeLessThan(500);
        const refusal = contract.bodyRefusal(createOp, body);
        const unholdable = scanJsonText(text).unholdable;
        if (unholdable.length > 0) {
          // A number a double cannot hold as sent is refused as such, whatever else the body breaks: the document orders
          // no two refusals of one body, and both are 422 (seed -418936273 found one beside a property without a reference).
          expectValidationFailed(res, unholdable[0]!.path);
          expect(written()).toEqual(before);
        } else if (refusal !== null) {
          expectValidationFailed(res, undefined, refusal.code);
          expect(written()).toEqual(before);
        } else if (res.status >= 400) {
          expectEnvelope(res);
          expect(written()).toEqual(before);
        } else {
          expect([200, 201]).toContain(res.status);
          expect(written().bookings).toBe(before.bookings + (res.status === 201 ? 1 : 0));
        }
        expect(h.violations).toEqual([]);
        expectPrototypesIntact();
      }),
      { numRuns: 50 },
    );
  });

  it('arbitrary bytes as the body → 4xx envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'), async (bytes, type) => {
        const before = written();
        expectEnvelope(await postRaw(Buffer.from(bytes), type));
        expect(written()).toEqual(before);
        expect(h.violations).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  const KNOWN = ['updated_since', 'status', 'property_id', 'check_in_from', 'check_in_to', 'page', 'per_page', '__proto__', 'constructor'];
  const queryValue = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom('', '0', '1', '-1', '1.5', '200', '201', '1e400', 'NaN', '2026-02-30', '2026-09-15', '2026-09-15T06:30:00Z', 'confirmed', 'pending', '101', '999999999999999999999'),
  );
  const encodedQuery = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KNOWN), fc.string({ maxLength: 10 })), queryValue), { maxLength: 5 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
  // Raw text with stray `%`, `&`, `=` and brackets: malformed percent-encoding included.
  const rawQuery = fc.string({ unit: fc.constantFrom(...'%&=[]._-+09afAFGz'.split('')), maxLength: 30 });

  it('arbitrary query strings on GET /bookings → a page or a 4xx envelope', async () => {
    await postJson(fullBody());
    await fc.assert(
      fc.asyncProperty(fc.oneof(encodedQuery, rawQuery), async (query) => {
        const res = await h.api('get', `/bookings?${query}`);
        expect(res.status, `?${query}: ${res.text}`).toBeLessThan(500);
        if (res.status === 200) {
          expect(res.body.success).toBe(true);
          expect(Array.isArray(res.body.data)).toBe(true);
        } else {
          expectEnvelope(res);
          expect([404, 422]).toContain(res.status);
        }
        expect(h.violations).toEqual([]);
        expectPrototypesIntact();
      }),
      { numRuns: 50 },
    );
  });

  it('arbitrary path segments on the read routes → the booking or a 404 envelope', async () => {
    await postJson(fullBody());
    const segment = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((s) => s !== '.' && s !== '..').map(encodeURIComponent),
      fc.string({ unit: fc.constantFrom(...'%09afAFGz-_~'.split('')), minLength: 1, maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('/bookings/', '/bookings/external/'), encodedQuery, async (seg, prefix, query) => {
        const res = await h.api('get', `${prefix}${seg}?${query}`);
        expect(res.status, `${prefix}${seg}: ${res.text}`).toBeLessThan(500);
        if (res.status !== 200) {
          expectEnvelope(res);
          expect(res.status).toBe(404);
        }
        expect(h.violations).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });
});
