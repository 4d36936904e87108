/**
 * §1 visibility rule: every endpoint sees only the calling integration's data;
 * another integration's booking or property is 404 NOT_FOUND, never 403, so
 * ids cannot be probed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type supertest from 'supertest';
import { expectConformingResponses, makeHarness, newKey, type Harness } from '../testing.ts';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => {
  expectConformingResponses(h);
});

function expectNotFound(res: supertest.Response): void {
  const req = (res as unknown as { req?: { method: string; path: string } }).req;
  // Received 403 would leak that the id exists (§1: "never 403").
  expect(res.status, `${req?.method} ${req?.path}: ${res.text}`).toBe(404);
  expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String), errors: {} });
}

/** A booking body for integration `index`'s first sellable property. */
function bodyFor(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const property = h.fixtures.integrations[index]!.properties.find((p) => !p.archived)!;
  return h.bookingBody({ property: { doorloom_id: property.doorloom_id }, ...overrides });
}

async function create(index: number, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await h.api('post', '/bookings', index).set('Idempotency-Key', newKey()).send(bodyFor(index, overrides));
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('§1, §4.2, §4.3: another integration\'s booking is 404 NOT_FOUND, never 403', () => {
  it('by platform id', async () => {
    const booking = await create(0);
    expect((await h.api('get', `/bookings/${booking.id}`, 0)).status).toBe(200);
    expectNotFound(await h.api('get', `/bookings/${booking.id}`, 1));
  });

  it('by external id', async () => {
    const booking = await create(0);
    const path = `/bookings/external/${encodeURIComponent(booking.external_booking_id)}`;
    expect((await h.api('get', path, 0)).status).toBe(200);
    expectNotFound(await h.api('get', path, 1));
  });

  it('another integration\'s booking answers exactly like an id that never existed', async () => {
    const booking = await create(0);
    const theirs = await h.api('get', `/bookings/${booking.id}`, 1);
    const nobody = await h.api('get', `/bookings/${booking.id + 1000}`, 1);
    expect({ status: theirs.status, body: theirs.body }).toEqual({ status: nobody.status, body: nobody.body });
  });

  it('the same external id in two integrations names each its own booking', async () => {
    const mine = await create(0, { external_booking_id: 'SHARED-1' });
    const theirs = await create(1, { external_booking_id: 'SHARED-1' });
    expect(mine.id).not.toBe(theirs.id);
    expect((await h.api('get', '/bookings/external/SHARED-1', 0)).body.data.id).toBe(mine.id);
    expect((await h.api('get', '/bookings/external/SHARED-1', 1)).body.data.id).toBe(theirs.id);
  });

  it('the other integration\'s list does not contain it', async () => {
    const booking = await create(0);
    const list = await h.api('get', '/bookings?per_page=200', 1);
    expect(list.status).toBe(200);
    expect(list.body.data.map((b: { id: number }) => b.id)).not.toContain(booking.id);
    expect(list.body.pagination.total).toBe(0);
  });
});

describe('§1, §4.4: GET /bookings?property_id= outside coverage is 404 (spec x-assumption on property_id)', () => {
  it('another integration\'s property is 404 NOT_FOUND, not an empty page', async () => {
    await create(1);
    const theirs = h.fixtures.integrations[1]!.properties[0]!.doorloom_id;
    expect((await h.api('get', `/bookings?property_id=${theirs}`, 1)).status).toBe(200);
    expectNotFound(await h.api('get', `/bookings?property_id=${theirs}`, 0));
  });

  it('a property nobody covers (cohosted) and one that does not exist are 404 as well', async () => {
    const world = await h.staff<{ properties: { id: number; ownership: string }[] }>('get', '/world');
    const cohosted = world.properties.find((p) => p.ownership === 'cohosted')!;
    expectNotFound(await h.api('get', `/bookings?property_id=${cohosted.id}`, 0));
    expectNotFound(await h.api('get', '/bookings?property_id=99999', 0));
  });

  it('an own covered property, archived included, is a page', async () => {
    const archived = h.fixtures.integrations[0]!.properties.find((p) => p.archived)!;
    const res = await h.api('get', `/bookings?property_id=${archived.doorloom_id}`, 0);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});

describe('§4.2: the path segment must be numeric', () => {
  it.each(['abc', '1.5', '-1', '1e3', '0x10', '%20', '5001abc', '9'.repeat(40), 'null'])('/bookings/%s → 404 NOT_FOUND', async (segment) => {
    expectNotFound(await h.api('get', `/bookings/${segment}`));
  });

  it('an unknown numeric id is 404 NOT_FOUND', async () => {
    expectNotFound(await h.api('get', '/bookings/0'));
    expectNotFound(await h.api('get', '/bookings/424242'));
  });
});

describe('§1 property: whatever integration A creates, integration B never sees', () => {
  /** The pair (creator, reader) is acme/globe either way round. */
  const scenario = fc.record({
    creator: fc.constantFrom(0, 1),
    bookings: fc.array(
      fc.record({
        external_booking_id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
          // `.` and `..` are dot segments: a URL path cannot carry them as a segment, whatever the API does.
          .filter((s) => s !== '.' && s !== '..' && s.length <= 128),
        startOffset: fc.integer({ min: 0, max: 200 }),
        nights: fc.integer({ min: 1, max: 5 }),
        pending: fc.boolean(),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    perPage: fc.integer({ min: 1, max: 5 }),
  });

  it('every read by B (id, external id, list with any filter, every page) is 404 or leaves it out', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ creator, bookings, perPage }) => {
        h = makeHarness();
        const reader = 1 - creator;
        const created: Record<string, any>[] = [];
        for (const b of bookings) {
          const checkIn = new Date(Date.UTC(2026, 9, 1) + b.startOffset * 86_400_000).toISOString().slice(0, 10);
          const checkOut = new Date(Date.UTC(2026, 9, 1) + (b.startOffset + b.nights) * 86_400_000).toISOString().slice(0, 10);
          const res = await h.api('post', '/bookings', creator).set('Idempotency-Key', newKey())
            .send(bodyFor(creator, { external_booking_id: b.external_booking_id, check_in: checkIn, check_out: checkOut, status: b.pending ? 'pending' : 'confirmed' }));
          // 409 UNAVAILABLE when stays overlap; 200 when a generated external id repeats.
          expect([200, 201, 409], res.text).toContain(res.status);
          if (res.status === 201) created.push(res.body.data);
        }
        // The reader has a booking of its own with a colliding external id, so "empty" is not the only answer it gets.
        await h.api('post', '/bookings', reader).set('Idempotency-Key', newKey()).send(bodyFor(reader, { external_booking_id: 'READER-OWN' }));

        for (const booking of created) {
          expectNotFound(await h.api('get', `/bookings/${booking.id}`, reader));
          expectNotFound(await h.api('get', `/bookings/external/${encodeURIComponent(booking.external_booking_id)}`, reader));
          expectNotFound(await h.api('get', `/bookings?property_id=${booking.property.doorloom_id}`, reader));
          // The creator still reads it, so the 404s above are about who asks.
          expect((await h.api('get', `/bookings/external/${encodeURIComponent(booking.external_booking_id)}`, creator)).body.data?.id).toBe(booking.id);
        }
        const ids = new Set(created.map((b) => b.id));
        for (const query of ['', 'status=confirmed', 'status=pending', 'updated_since=2000-01-01', 'check_in_from=2026-10-01&check_in_to=2027-12-31']) {
          for (let page = 1; ; page++) {
            const res = await h.api('get', `/bookings?per_page=${perPage}&page=${page}&${query}`, reader);
            expect(res.status).toBe(200);
            for (const item of res.body.data) expect(ids.has(item.id), `reader ${reader} listed booking ${item.id}`).toBe(false);
            if (page >= res.body.pagination.last_page) break;
          }
        }
        expect(h.violations).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});
