/**
 * Issue 29, item 3: money stays a number. `pricing.total: 1e307` was accepted
 * and `balance` and `units[].stay_price` came back null (the paise arithmetic
 * overflowed to Infinity, which JSON writes as null). The contract states the
 * range of every money field of the create body (spec/openapi.yaml
 * x-assumptions money-range: 0 to 10,000,000,000,000 rupees), so every
 * derived amount is exact in paise; outside it the create is 422 on the field
 * and writes nothing. Negative amounts are refused the same way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../protocol/calendar.ts';
import { loadContract } from '../../spec/contract.ts';
import { expectConformingResponses, makeHarness, newKey, type Harness } from '../testing.ts';

const contract = loadContract();
const request = contract.schema('BookingCreateRequest') as any;
const MAX_MONEY: number = request.properties.pricing.properties.total.maximum;

function create(h: Harness, body: unknown) {
  return h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(body as object);
}

/** What a refused create leaves as it was (§4.5 rules 6, 7); the refusal itself is kept under its key (§4.5 rule 1). */
const written = (h: Harness) => ({ bookings: h.sim.store.size('bookings'), holds: h.sim.store.size('holds'), events: h.sim.store.size('events') });

describe('the money range is stated once, in the contract', () => {
  it.each([
    ['pricing.total', request.properties.pricing.properties.total],
    ['payment.amount_collected', request.properties.payment.properties.amount_collected],
    ['units[].stay_price', request.properties.units.items.properties.stay_price],
  ])('%s: minimum 0, the same maximum, exact in paise (maximum × 100 below 2^53)', (_name, node) => {
    expect(node).toMatchObject({ type: 'number', minimum: 0, maximum: MAX_MONEY });
    expect(Number.isSafeInteger(MAX_MONEY * 100)).toBe(true);
  });
});

describe('money outside the range → 422 on its field, nothing written', () => {
  const cases: [string, (h: Harness) => Record<string, unknown>, string][] = [
    ['pricing.total 1e307 (the issue: balance came back null)', (h) => h.bookingBody({ pricing: { total: 1e307 } }), 'pricing.total'],
    ['pricing.total one paisa past the maximum', (h) => h.bookingBody({ pricing: { total: MAX_MONEY + 0.01 } }), 'pricing.total'],
    ['pricing.total -100 (the issue: balance −600)', (h) => h.bookingBody({ pricing: { total: -100 }, payment: { amount_collected: 500 } }), 'pricing.total'],
    ['pricing.total -0.01', (h) => h.bookingBody({ pricing: { total: -0.01 } }), 'pricing.total'],
    ['payment.amount_collected 1e307', (h) => h.bookingBody({ payment: { amount_collected: 1e307 } }), 'payment.amount_collected'],
    ['payment.amount_collected -1e307 (total − advance overflowed)', (h) => h.bookingBody({ pricing: { total: 1e307 }, payment: { amount_collected: -1e307 } }), 'payment.amount_collected'],
    ['payment.amount_collected -1', (h) => h.bookingBody({ payment: { amount_collected: -1 } }), 'payment.amount_collected'],
    ['units.0.stay_price 1e307', (h) => h.bookingBody({ units: [{ adults: 1, stay_price: 1e307 }] }), 'units.0.stay_price'],
    ['units.0.stay_price -5', (h) => h.bookingBody({ units: [{ adults: 1, stay_price: -5 }] }), 'units.0.stay_price'],
  ];

  it.each(cases)('%s', async (_name, body, field) => {
    const h = makeHarness();
    const before = written(h);
    const res = await create(h, body(h));
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.errors), res.text).toContain(field);
    expect(written(h)).toEqual(before);
    expectConformingResponses(h);
  });
});

describe('money inside the range: every amount comes back a number, exact in paise', () => {
  it('every money field at the maximum: accepted, balance and stay_price are numbers on create, read and list', async () => {
    const h = makeHarness();
    const body = h.bookingBody({ units: [{ adults: 1 }, { adults: 1 }, { adults: 1 }], pricing: { total: MAX_MONEY }, payment: { amount_collected: MAX_MONEY } });
    const res = await create(h, body);
    expect(res.status, res.text).toBe(201);
    const want = { total: MAX_MONEY, advance: MAX_MONEY, balance: 0 };
    expect(res.body.data.pricing).toMatchObject(want);
    const third = Math.floor((MAX_MONEY * 100) / 3) / 100;
    expect(res.body.data.units.map((u: { stay_price: number }) => u.stay_price)).toEqual([third, third, (MAX_MONEY * 100 - 2 * third * 100) / 100]);
    const read = await h.api('get', `/bookings/${res.body.data.id}`);
    expect(read.body.data.pricing).toMatchObject(want);
    const list = await h.api('get', '/bookings');
    expect(list.body.data.find((b: { id: number }) => b.id === res.body.data.id).pricing).toMatchObject(want);
    expectConformingResponses(h);
  });

  it('zero is money: a free stay with nothing collected', async () => {
    const h = makeHarness();
    const res = await create(h, h.bookingBody({ units: [{ adults: 1, stay_price: 0 }], pricing: { total: 0 }, payment: { amount_collected: 0 } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.pricing).toMatchObject({ total: 0, advance: 0, balance: 0 });
  });

  it('x-assumption money-range: more collected than the total is accepted; the balance is negative (owed back to the guest)', async () => {
    const h = makeHarness();
    const res = await create(h, h.bookingBody({ pricing: { total: 100 }, payment: { amount_collected: 500 } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.pricing).toMatchObject({ total: 100, advance: 500, balance: -400 });
    expectConformingResponses(h);
  });

  it('any total and collected amount in range, in paise: balance = total − advance exactly, the split adds up (property)', async () => {
    const h = makeHarness();
    const maxPaise = MAX_MONEY * 100;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: maxPaise }), fc.integer({ min: 0, max: maxPaise }), fc.integer({ min: 1, max: 4 }), async (totalPaise, collectedPaise, n) => {
        // Two nights of their own per run, past the demo world's blocks (a capped night may still answer 409).
        const check_in = addDays('2026-11-20', 2 * run++);
        const body = h.bookingBody({ check_in, check_out: addDays(check_in, 2), units: Array.from({ length: n }, () => ({ adults: 1 })), pricing: { total: totalPaise / 100 }, payment: { amount_collected: collectedPaise / 100 } });
        const res = await create(h, body);
        if (res.status === 409) return;
        expect(res.status, res.text).toBe(201);
        const { pricing, units } = res.body.data;
        expect(pricing.balance).toBe((totalPaise - collectedPaise) / 100);
        expect(units.reduce((s: number, u: { stay_price: number }) => s + Math.round(u.stay_price * 100), 0)).toBe(totalPaise);
      }),
      { seed: 292_003, numRuns: 30 },
    );
    expectConformingResponses(h);
  });
});
