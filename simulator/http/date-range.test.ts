/**
 * Issue 17, defect 1: every staff and partner date input, anywhere in the
 * representable range 0000-01-01 to 9999-12-31, gets an answer by the rules
 * (a 2xx, or a 4xx in the error envelope naming the field). The day after
 * 9999-12-31 formats as `+010000-01-01`, which sorts before `9999-…`; a night
 * loop that walked "until d > to" never ended and took the server with it.
 * A hang fails here by the test's time-out, never by a timed assertion.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type supertest from 'supertest';
import { addDays, daysBetween, MAX_WINDOW_NIGHTS, nights } from '../../protocol/calendar.ts';
import { SNAPSHOT_HORIZON_DAYS, SNAPSHOT_MAX_NIGHTS } from '../domain/snapshots.ts';
import { STAFF_ROOT } from '../staff/routes.ts';
import { expectConformingResponses, makeHarness, newKey, TEST_NOW, type Harness } from '../testing.ts';

const MIN = Date.parse('0000-01-01T00:00:00Z');
const MAX = Date.parse('9999-12-31T00:00:00Z');
const TODAY = '2026-09-15';

/** Any date of the range, with its edges and today's neighbourhood drawn often. */
const anyDate: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 0, max: (MAX - MIN) / 86_400_000 }).map((d) => new Date(MIN + d * 86_400_000).toISOString().slice(0, 10)),
  fc.constantFrom('0000-01-01', '0000-12-31', '9999-12-31', '9999-12-30', '9998-01-01', '9999-01-01'),
  fc.integer({ min: -5, max: 800 }).map((d) => addDays(TODAY, d)),
);
/** A window: two independent dates, or a date and one close after it (windows near the edges stay small). */
const anyWindow: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(anyDate, anyDate),
  fc.tuple(anyDate, fc.integer({ min: 0, max: 800 })).map(([from, n]) => [from, daysBetween(from, '9999-12-31') < n ? '9999-12-31' : addDays(from, n)] as [string, string]),
);

function staff(h: Harness, method: 'put' | 'post', path: string, body: unknown): supertest.Test {
  return h.http[method](STAFF_ROOT + path).set('Authorization', `Bearer ${h.fixtures.staffToken}`).send(body as object);
}

function expectRefusedOn(res: supertest.Response, field: string): void {
  expect(res.status, res.text).toBe(422);
  expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
  expect(Object.keys(res.body.errors)).toContain(field);
}

function expectEnvelope(res: supertest.Response, allowed: number[]): void {
  expect(allowed, res.text).toContain(res.status);
  expect(res.type).toBe('application/json');
  expect(typeof res.body.success).toBe('boolean');
}

describe('calendar: windows are counted, never walked past their end', () => {
  it('nights() of one night at 9999-12-31 is that night', () => {
    expect(nights('9999-12-31', '9999-12-31')).toEqual(['9999-12-31']);
    expect(nights('9999-12-30', '9999-12-31')).toEqual(['9999-12-30', '9999-12-31']);
    expect(nights('0000-01-01', '0000-01-02')).toEqual(['0000-01-01', '0000-01-02']);
  });

  it('nights() refuses a window longer than any caller allows before it allocates', () => {
    expect(() => nights('0000-01-01', '9999-12-31')).toThrow(RangeError);
  });
});

describe('staff windows over the whole date range (PUT nights, rates, restrictions)', () => {
  const h = makeHarness();
  const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
  const bodies = {
    nights: { is_blocked: true },
    rates: { base_rate: 7000 },
    restrictions: { min_stay: 1 },
  };

  it.each(Object.entries(bodies))('%s: 200 for a window of at most 731 nights, else 422 on `to`', async (kind, patch) => {
    await fc.assert(
      fc.asyncProperty(anyWindow, async ([from, to]) => {
        const res = await staff(h, 'put', `/properties/${property}/${kind}`, { from, to, ...patch });
        if (to >= from && daysBetween(from, to) + 1 <= MAX_WINDOW_NIGHTS) expect(res.status, res.text).toBe(200);
        else expectRefusedOn(res, 'to');
      }),
      { numRuns: 60 },
    );
  });

  it('the reproduction: today+400 to 9999-12-31, and 9999-12-31 alone', async () => {
    expectRefusedOn(await staff(h, 'put', `/properties/${property}/nights`, { from: addDays(TODAY, 400), to: '9999-12-31', is_blocked: true }), 'to');
    for (const kind of ['nights', 'rates', 'restrictions'] as const) {
      const res = await staff(h, 'put', `/properties/${property}/${kind}`, { from: '9999-12-31', to: '9999-12-31', ...bodies[kind] });
      expect(res.status, res.text).toBe(200);
    }
    // The server still answers afterwards.
    expect((await h.api('get', '/me')).status).toBe(200);
  });
});

describe('booking dates over the whole date range', () => {
  it('partner POST /bookings: 201, 409 or 422 in the envelope, never a hang or a 5xx', async () => {
    const h = makeHarness();
    await fc.assert(
      fc.asyncProperty(anyWindow, async ([check_in, check_out]) => {
        const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in, check_out }));
        expectEnvelope(res, [201, 409, 422]);
        if (check_in < addDays(TODAY, -1)) expectRefusedOn(res, 'check_in');
      }),
      { numRuns: 60 },
    );
    expectConformingResponses(h);
  });

  it('staff POST /bookings/{id}/dates: 200, 409 or 422 in the envelope', async () => {
    const h = makeHarness();
    const created = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody());
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    await fc.assert(
      fc.asyncProperty(anyWindow, async ([check_in, check_out]) => {
        const res = await staff(h, 'post', `/bookings/${id}/dates`, { check_in, check_out });
        expectEnvelope(res, [200, 409, 422]);
        if (check_out <= check_in) expectRefusedOn(res, 'check_out');
      }),
      { numRuns: 60 },
    );
    // The booking can still be read and moved back.
    expect((await staff(h, 'post', `/bookings/${id}/dates`, { check_in: '2026-10-01', check_out: '2026-10-03' })).status).toBe(200);
  });
});

describe('partner date queries over the whole date range', () => {
  const h = makeHarness();
  const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
  const last = addDays(TODAY, SNAPSHOT_HORIZON_DAYS);

  it.each(['availability', 'rates', 'restrictions'])('GET /properties/{p}/%s: 200 inside the rules, else 422 on `to`', async (kind) => {
    await fc.assert(
      fc.asyncProperty(anyWindow, async ([from, to]) => {
        const res = await h.api('get', `/properties/${property}/${kind}?from=${from}&to=${to}`);
        const fits = to >= from && daysBetween(from, to) + 1 <= SNAPSHOT_MAX_NIGHTS && to <= last;
        if (fits) expect(res.status, res.text).toBe(200);
        else expectRefusedOn(res, 'to');
      }),
      { numRuns: 60 },
    );
    expectConformingResponses(h);
  });

  it('GET /bookings?check_in_from&check_in_to: 200 for any two dates', async () => {
    await fc.assert(
      fc.asyncProperty(anyWindow, async ([from, to]) => {
        const res = await h.api('get', `/bookings?check_in_from=${from}&check_in_to=${to}`);
        expect(res.status, res.text).toBe(200);
      }),
      { numRuns: 60 },
    );
    expectConformingResponses(h);
  });
});

describe('the staff clock anywhere in the range', () => {
  it('a staff window and a snapshot still answer by the rules wherever the clock stands', async () => {
    await fc.assert(
      fc.asyncProperty(anyDate, async (today) => {
        const h = makeHarness({ now: TEST_NOW });
        const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
        const set = await h.http.put(`${STAFF_ROOT}/clock`).set('Authorization', `Bearer ${h.fixtures.staffToken}`).send({ now: `${today}T12:00:00+05:30` });
        expectEnvelope(set, [200, 422]);
        const res = await staff(h, 'put', `/properties/${property}/nights`, { from: today, to: today, is_blocked: true });
        expect(res.status, res.text).toBe(200);
        const snap = await h.api('get', `/properties/${property}/availability?from=${today}&to=${today}`);
        expectEnvelope(snap, [200, 422]);
      }),
      { numRuns: 15 },
    );
  });
});
