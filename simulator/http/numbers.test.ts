/**
 * Issue 17, defect 7 over HTTP: a body's numbers are fingerprinted as sent
 * (§4.5 rule 1: "any value change counts"), and a number that would not come
 * back as sent from a "verbatim" field (§4.5 pricing.breakdown: "stored
 * verbatim and returned unchanged") is refused with 422 naming the field.
 */
import { describe, expect, it } from 'vitest';
import { expectConformingResponses, makeHarness, newKey, type Harness } from '../testing.ts';

function post(h: Harness, key: string, text: string) {
  return h.api('post', '/bookings').set('Idempotency-Key', key).set('Content-Type', 'application/json').send(text);
}

/** A valid body as JSON text with `breakdown` spliced in as raw text. */
function bodyText(h: Harness, breakdown: string, overrides: Record<string, unknown> = {}): string {
  const body = h.bookingBody({ check_in: '2026-10-01', check_out: '2026-10-02', ...overrides });
  return JSON.stringify({ ...body, pricing: { total: 12000, breakdown: '__B__' } }).replace('"__B__"', breakdown);
}

describe('numbers as sent', () => {
  it.each([
    ['-0 then 0', '{"fee":-0}', '{"fee":0}'],
    ['1.0 then 1', '{"fee":1.0}', '{"fee":1}'],
    ['9007199254740992 then 9007199254740992.0', '{"fee":9007199254740992}', '{"fee":9007199254740992.0}'],
  ])('the same key with a body that differs only in a number (%s) is IDEMPOTENCY_KEY_REUSED, never a replay', async (_name, first, second) => {
    const h = makeHarness();
    const key = newKey();
    const external = `NUM-${Math.random().toString(36).slice(2)}`;
    const created = await post(h, key, bodyText(h, first, { external_booking_id: external }));
    expect(created.status, created.text).toBe(201);
    const again = await post(h, key, bodyText(h, second, { external_booking_id: external }));
    expect(again.status, again.text).toBe(422);
    expect(again.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The very same text still replays.
    const same = await post(h, key, bodyText(h, first, { external_booking_id: external }));
    expect(same.status).toBe(201);
    expect(same.text).toBe(created.text);
    expectConformingResponses(h);
  });

  it.each([
    ['1e309', 'pricing.breakdown.fee'],
    ['1e-400', 'pricing.breakdown.fee'],
    ['9007199254740993', 'pricing.breakdown.fee'],
  ])('a number a double cannot hold unchanged (%s) is refused with 422 naming %s, and nothing is written', async (n, field) => {
    const h = makeHarness();
    const before = h.sim.store.size('bookings');
    const res = await post(h, newKey(), bodyText(h, `{"fee":${n}}`));
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(h.sim.store.size('bookings')).toBe(before);
    expectConformingResponses(h);
  });

  it('a verbatim breakdown comes back unchanged', async () => {
    const h = makeHarness();
    const breakdown = { room: 11000.5, tax: [1, 2.25, -3], note: 'x\u00e9', nested: { deep: { n: 1e-7, big: 1e300 } }, none: null };
    const created = await post(h, newKey(), bodyText(h, JSON.stringify(breakdown)));
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.pricing.breakdown).toEqual(breakdown);
    const read = await h.api('get', `/bookings/${created.body.data.id}`);
    expect(read.body.data.pricing.breakdown).toEqual(breakdown);
    expectConformingResponses(h);
  });
});

describe('integers past 2^53 in the query string are refused, never rounded (issue 29 item 6, spec x-assumptions safe-integers)', () => {
  const PAST = '9007199254740993'; // 2^53 + 1: a double holds it as 2^53, so it would "echo" as …992
  const LAST = '9007199254740991'; // Number.MAX_SAFE_INTEGER: the largest integer held exactly

  it.each([
    ['/events', 'after_sequence'],
    ['/events', 'property_id'],
    ['/bookings', 'property_id'],
    ['/bookings', 'page'],
    ['/properties', 'page'],
  ])('GET %s?%s=2^53+1 → 422 VALIDATION_FAILED on it', async (path, name) => {
    const h = makeHarness();
    for (const value of [PAST, '9007199254740992', '1e16', '99999999999999999999']) {
      const res = await h.api('get', `${path}?${name}=${value}`);
      expect(res.status, `${name}=${value}: ${res.text}`).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      expect(Object.keys(res.body.errors), value).toEqual([name]);
    }
    expectConformingResponses(h);
  });

  it('2^53 − 1 is accepted and echoed exactly (after_sequence), and is a page past the last (page)', async () => {
    const h = makeHarness();
    const events = await h.api('get', `/events?after_sequence=${LAST}`);
    expect(events.status, events.text).toBe(200);
    expect(JSON.stringify(events.body)).toContain(`"after_sequence":${LAST}`);
    const bookings = await h.api('get', `/bookings?page=${LAST}`);
    expect(bookings.status, bookings.text).toBe(200);
    expect(bookings.body.data).toEqual([]);
    expectConformingResponses(h);
  });
});
