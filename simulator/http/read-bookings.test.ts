/**
 * §4.1–§4.4 reads: GET /me (§2.1), a booking by platform id and by the
 * partner's URL-encoded id, and the polled list (filters, pagination,
 * ordering by update time).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type supertest from 'supertest';
import { loadContract } from '../../spec/contract.ts';
import { EVENT_TYPES } from '../domain/model.ts';
import { expectConformingResponses, makeHarness, newKey, TEST_NOW, type Harness } from '../testing.ts';

let h: Harness;
beforeEach(() => {
  h = makeHarness();
});
afterEach(() => {
  expectConformingResponses(h);
});

type Booking = Record<string, any>;

const dayAfter = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** Creates a booking for acme (integrations[0]); `property` indexes its covered, sellable properties. */
async function create(overrides: Record<string, unknown> = {}, property = 0): Promise<Booking> {
  const p = h.fixtures.integrations[0]!.properties.filter((x) => !x.archived)[property]!;
  const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ property: { doorloom_id: p.doorloom_id }, ...overrides }));
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function list(query: string, key: number | string = 0): Promise<supertest.Response> {
  const res = await h.api('get', `/bookings${query ? `?${query}` : ''}`, key);
  return res;
}

const ids = (res: supertest.Response) => (res.body.data as Booking[]).map((b) => b.id);

async function setClock(iso: string): Promise<void> {
  await h.staff('put', '/clock', { now: iso });
}

async function advance(seconds: number): Promise<void> {
  await h.staff('post', '/clock/advance', { seconds });
}

describe('§4.2: GET /bookings/{doorloom_id}', () => {
  it('returns the booking object exactly as create returned it', async () => {
    const created = await create({ status: 'pending', notes: 'late arrival' });
    const res = await h.api('get', `/bookings/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), data: created });
    expect(res.body.data.duplicate).toBeUndefined();
  });

  it('shows the latest revision after a staff change', async () => {
    const created = await create();
    await advance(5);
    await h.staff('post', `/bookings/${created.id}/status`, { status: 'cancelled' });
    const res = await h.api('get', `/bookings/${created.id}`);
    expect(res.body.data).toMatchObject({ id: created.id, status: 'cancelled', revision: 2, updated_at: '2026-09-15T12:00:05.000+05:30' });
  });
});

describe('§4.3: GET /bookings/external/{external_booking_id}, URL-encoded', () => {
  const awkward: [string, string][] = [
    ['a slash', 'OTA/2026/000123'],
    ['slashes only', '//'],
    ['spaces', 'Booking 42 for Asha'],
    ['a leading and a trailing space', ' padded '],
    ['percent signs', '100%-sure %2F %'],
    ['an already-encoded look-alike', 'a%2Fb'],
    ['query and fragment characters', 'a?b=c&d#e'],
    ['a plus', 'a+b'],
    ['unicode', 'ümlaut-日本-予約-🏨'],
    ['a backslash and quotes', 'C:\\x "y" \'z\''],
    ['dots inside', 'a/../b'],
    ['128 characters', 'x'.repeat(127) + '/'],
  ];
  it.each(awkward)('an id with %s reads back', async (_name, external) => {
    const created = await create({ external_booking_id: external });
    const res = await h.api('get', `/bookings/external/${encodeURIComponent(external)}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual(created);
    expect(res.body.data.external_booking_id).toBe(external);
  });

  it('the encoded id names one booking: a near miss is 404', async () => {
    await create({ external_booking_id: 'a/b' });
    for (const miss of ['a', 'a%2Fb', 'A/B', 'a/b ', 'x'.repeat(129)]) {
      const res = await h.api('get', `/bookings/external/${encodeURIComponent(miss)}`);
      expect(res.status, miss).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('property: any id that create accepts reads back by its URL-encoded form', async () => {
    await fc.assert(
      fc.asyncProperty(
        // `.` and `..` cannot be a URL path segment at all (dot segments); lone surrogates cannot be URL-encoded.
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => s !== '.' && s !== '..' && s.length <= 128),
        async (external) => {
          h = makeHarness();
          const created = await create({ external_booking_id: external });
          const res = await h.api('get', `/bookings/external/${encodeURIComponent(external)}`);
          expect(res.status, res.text).toBe(200);
          expect(res.body.data.id).toBe(created.id);
          expect(h.violations).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('§2.1, §4.1: GET /me', () => {
  const webhookIdle = {
    configured: false,
    url: null,
    event_types: [...EVENT_TYPES],
    last_sequence: 0,
    undelivered_events: 0,
    consecutive_failures: 0,
    last_success_at: null,
    last_failure_at: null,
    paused_at: null,
    paused_reason: null,
  };

  it('returns every §2.1 field with the integration\'s true values', async () => {
    const acme = h.fixtures.integrations[0]!;
    const world = await h.staff<{ brands: { id: number; name: string }[] }>('get', '/world');
    const brand = world.brands.find((b) => b.name === 'Seaside Stays')!;
    const res = await h.api('get', '/me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: expect.any(String),
      data: {
        id: acme.id,
        slug: 'acme-channel',
        name: 'Acme Channel Manager',
        status: 'active',
        brand: { id: brand.id, name: 'Seaside Stays' },
        api_version: '2026-09',
        webhook: webhookIdle,
        horizon_days: 365,
        covered_properties: 4,
      },
    });
  });

  it('is the caller\'s own record: globe sees its own brand and coverage', async () => {
    const res = await h.api('get', '/me', 1);
    expect(res.body.data).toMatchObject({ id: h.fixtures.integrations[1]!.id, slug: 'globe-ota', brand: { name: 'Mountain Retreats' }, covered_properties: 2, status: 'active' });
  });

  it('covered_properties follows staff coverage changes', async () => {
    const acme = h.fixtures.integrations[0]!;
    await h.staff('put', `/integrations/${acme.id}/coverage`, { property_ids: [acme.properties[0]!.doorloom_id] });
    expect((await h.api('get', '/me')).body.data.covered_properties).toBe(1);
  });

  it('webhook.configured is false without a URL and true once staff register one', async () => {
    const acme = h.fixtures.integrations[0]!;
    expect((await h.api('get', '/me')).body.data.webhook).toMatchObject({ configured: false, url: null });
    await h.staff('put', `/integrations/${acme.id}/webhook`, { url: 'http://127.0.0.1:9/hook' });
    expect((await h.api('get', '/me')).body.data.webhook).toMatchObject({ configured: true, url: 'http://127.0.0.1:9/hook' });
    await h.staff('put', `/integrations/${acme.id}/webhook`, { url: null });
    expect((await h.api('get', '/me')).body.data.webhook).toMatchObject({ configured: false, url: null });
  });

  it('a manual pause shows status paused, paused_reason manual and paused_at; the API keeps working (§3.1)', async () => {
    const acme = h.fixtures.integrations[0]!;
    await h.staff('post', `/integrations/${acme.id}/pause`);
    const res = await h.api('get', '/me');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('paused');
    expect(res.body.data.webhook).toMatchObject({ paused_reason: 'manual', paused_at: '2026-09-15T12:00:00.000+05:30' });
    expect((await h.api('get', '/bookings')).status).toBe(200);
    await h.staff('post', `/integrations/${acme.id}/resume`);
    const resumed = await h.api('get', '/me');
    expect(resumed.body.data.status).toBe('active');
    expect(resumed.body.data.webhook).toMatchObject({ paused_reason: null, paused_at: null });
  });

  it('changes nothing: two reads answer the same record and leave the integration as it was', async () => {
    const stored = JSON.stringify(h.sim.store.get('integrations', String(h.fixtures.integrations[0]!.id)));
    const first = await h.api('get', '/me');
    await advance(90);
    const second = await h.api('get', '/me');
    expect(second.body).toEqual(first.body);
    expect(JSON.stringify(h.sim.store.get('integrations', String(h.fixtures.integrations[0]!.id)))).toBe(stored);
  });
});

describe('§4.4: GET /bookings filters', () => {
  /** A small world: bookings across properties, check-ins, statuses and update times. */
  async function seed(): Promise<{ a: Booking; b: Booking; c: Booking; d: Booking }> {
    const a = await create({ check_in: '2026-10-01', check_out: '2026-10-03' }, 0);
    const b = await create({ check_in: '2026-10-05', check_out: '2026-10-06', status: 'pending' }, 0);
    const c = await create({ check_in: '2026-10-10', check_out: '2026-10-12' }, 1);
    await advance(3600);
    const d = await create({ check_in: '2026-11-01', check_out: '2026-11-02' }, 2);
    await advance(60);
    await h.staff('post', `/bookings/${a.id}/status`, { status: 'cancelled' });
    return { a, b, c, d };
  }

  it('no filter: all of the caller\'s bookings', async () => {
    const { a, b, c, d } = await seed();
    await h.api('post', '/bookings', 1).set('Idempotency-Key', newKey())
      .send(h.bookingBody({ property: { doorloom_id: h.fixtures.integrations[1]!.properties[0]!.doorloom_id } }));
    expect(ids(await list('')).sort()).toEqual([a.id, b.id, c.id, d.id].sort());
  });

  it('status', async () => {
    const { a, b, c, d } = await seed();
    expect(ids(await list('status=pending'))).toEqual([b.id]);
    expect(ids(await list('status=cancelled'))).toEqual([a.id]);
    expect(ids(await list('status=confirmed')).sort()).toEqual([c.id, d.id].sort());
    expect(ids(await list('status=refunded'))).toEqual([]);
    const bad = await list('status=lost');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['status']);
  });

  it('property_id', async () => {
    const { a, b, c } = await seed();
    const [p0, p1] = h.fixtures.integrations[0]!.properties;
    expect(ids(await list(`property_id=${p0!.doorloom_id}`)).sort()).toEqual([a.id, b.id].sort());
    expect(ids(await list(`property_id=${p1!.doorloom_id}`))).toEqual([c.id]);
  });

  it('check_in_from and check_in_to, both inclusive', async () => {
    const { a, b, c, d } = await seed();
    expect(ids(await list('check_in_from=2026-10-05')).sort()).toEqual([b.id, c.id, d.id].sort());
    expect(ids(await list('check_in_to=2026-10-05')).sort()).toEqual([a.id, b.id].sort());
    expect(ids(await list('check_in_from=2026-10-02&check_in_to=2026-10-10')).sort()).toEqual([b.id, c.id].sort());
    expect(ids(await list('check_in_from=2026-10-11&check_in_to=2026-10-09'))).toEqual([]);
    for (const [query, field] of [['check_in_from=2026-10', 'check_in_from'], ['check_in_to=01-10-2026', 'check_in_to']]) {
      const bad = await list(query!);
      expect(bad.status, query).toBe(422);
      expect(Object.keys(bad.body.errors)).toEqual([field]);
    }
  });

  it('filters combine', async () => {
    const { b } = await seed();
    const p0 = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    expect(ids(await list(`property_id=${p0}&status=pending&check_in_from=2026-10-02`))).toEqual([b.id]);
    expect(ids(await list(`property_id=${p0}&status=confirmed`))).toEqual([]);
  });

  it('updated_since is inclusive and means one instant however it is written', async () => {
    const { a, b, c, d } = await seed();
    // a, b, c were made at 12:00:00 +05:30 (06:30:00Z); d at 13:00:00; a was changed at 13:01:00.
    const all = [a.id, b.id, c.id, d.id].sort();
    for (const since of ['2026-09-15T06:30:00Z', '2026-09-15T12:00:00+05:30', '2026-09-15T12:00:00.000+05:30']) {
      expect(ids(await list(`updated_since=${encodeURIComponent(since)}`)).sort(), since).toEqual(all);
    }
    for (const since of ['2026-09-15T06:30:01Z', '2026-09-15T13:00:00+05:30']) {
      expect(ids(await list(`updated_since=${encodeURIComponent(since)}`)).sort(), since).toEqual([a.id, d.id].sort());
    }
    expect(ids(await list(`updated_since=${encodeURIComponent('2026-09-15T13:01:00+05:30')}`))).toEqual([a.id]);
    expect(ids(await list(`updated_since=${encodeURIComponent('2026-09-15T13:01:01+05:30')}`))).toEqual([]);
  });

  it('updated_since accepts an ISO 8601 date or timestamp; a bare date is midnight in the platform zone (spec x-assumption)', async () => {
    // One booking changed just after midnight +05:30 on the 15th (18:40Z on the 14th), one before it.
    await setClock('2026-09-14T23:50:00+05:30');
    const before = await create({ check_in: '2026-10-20', check_out: '2026-10-21' });
    await setClock('2026-09-15T00:10:00+05:30');
    const early = await create({ check_in: '2026-10-22', check_out: '2026-10-23' });
    await setClock('2026-09-15T12:00:00+05:30');
    const noon = await create();
    const sinceMidnight = [early.id, noon.id].sort();
    const cases: [string, number[]][] = [
      ['2026-09-15', sinceMidnight],
      ['2026-09-15T00:00:00+05:30', sinceMidnight],
      ['2026-09-14T18:30:00Z', sinceMidnight],
      ['2026-09-15T06:30:00Z', [noon.id]],
      ['2026-09-15T12:00:00+05:30', [noon.id]],
      // Zone-less timestamps are read in the platform zone too, never the simulator host's.
      ['2026-09-15T12:00:00', [noon.id]],
      ['2026-09-15T00:10', sinceMidnight],
      ['2026-09-15T06:30:00.000+0000', [noon.id]],
      ['2026-09-15T11:30+05', [noon.id]],
      ['2026-09-14', [before.id, early.id, noon.id].sort()],
      ['2026-09-16', []],
    ];
    for (const [since, want] of cases) {
      const res = await list(`updated_since=${encodeURIComponent(since)}`);
      expect(res.status, `${since}: ${res.text}`).toBe(200);
      expect(ids(res).sort(), since).toEqual(want);
    }
  });

  // Issue 29: "parseable" is ISO 8601 (spec x-assumption on updated_since, §4.4); an engine's parser read `1` as 2001-01-01.
  it.each(['not-a-date', '2026-02-30', '2026-13-01', '2026-09-15T25:00:00Z', '2026-09-31T10:00:00+05:30', 'x'.repeat(65), '',
    '1', 'yesterday', 'Sep 15 2026', '15 September 2026', '2026/09/15', 'Tue, 15 Sep 2026 06:30:00 GMT', '2026-09-15 00:10',
    '2026-09-15T12:00:00 05:30', ' 2026-09-15', '2026-09-15T12:00:00+24:00'])(
    'updated_since=%s → 422 naming updated_since', async (since) => {
      const res = await list(`updated_since=${encodeURIComponent(since)}`);
      expect(res.status, res.text).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      expect(Object.keys(res.body.errors)).toEqual(['updated_since']);
    },
  );
});

describe('§4.4: pagination', () => {
  async function many(n: number): Promise<Booking[]> {
    const out: Booking[] = [];
    for (let i = 0; i < n; i++) out.push(await create({ check_in: dayAfter('2026-10-01', i * 2), check_out: dayAfter('2026-10-01', i * 2 + 1) }, i % 3));
    return out;
  }

  it('`pagination` is a top-level sibling of `data` with page, per_page, total, last_page; no data.pagination', async () => {
    await many(3);
    const res = await list('per_page=2');
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'pagination', 'success']);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.pagination).toBeUndefined();
    expect(res.body.pagination).toEqual({ page: 1, per_page: 2, total: 3, last_page: 2 });
  });

  it('defaults: page 1, per_page 50', async () => {
    await many(2);
    expect((await list('')).body.pagination).toEqual({ page: 1, per_page: 50, total: 2, last_page: 1 });
    expect((await list('page=1')).body.pagination).toEqual({ page: 1, per_page: 50, total: 2, last_page: 1 });
  });

  it('an empty list is one empty page', async () => {
    const res = await list('');
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 50, total: 0, last_page: 1 });
  });

  it('pages partition the list; a page past the last is empty', async () => {
    const all = await many(5);
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(`per_page=2&page=${page}`);
      expect(res.body.pagination).toEqual({ page, per_page: 2, total: 5, last_page: 3 });
      pages.push(...ids(res));
    }
    expect(pages).toEqual(all.map((b) => b.id));
    const beyond = await list('per_page=2&page=4');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toEqual({ page: 4, per_page: 2, total: 5, last_page: 3 });
  });

  it('per_page runs from 1 to 200', async () => {
    await many(2);
    expect((await list('per_page=1')).body.pagination).toEqual({ page: 1, per_page: 1, total: 2, last_page: 2 });
    expect((await list('per_page=200')).body.pagination).toEqual({ page: 1, per_page: 200, total: 2, last_page: 1 });
  });

  it.each([['per_page=0', 'per_page'], ['per_page=201', 'per_page'], ['per_page=-1', 'per_page'], ['per_page=1.5', 'per_page'], ['per_page=ten', 'per_page'], ['per_page=', 'per_page'], ['page=0', 'page'], ['page=-3', 'page'], ['page=x', 'page']])(
    '%s → 422 VALIDATION_FAILED naming %s', async (query, field) => {
      const res = await list(query);
      expect(res.status, res.text).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      expect(Object.keys(res.body.errors)).toEqual([field]);
      expect(res.body.errors[field]).toEqual([expect.any(String)]);
    },
  );
});

describe('§4.4: ordering, oldest update first, ties by id (spec x-assumption-ordering)', () => {
  it('a change moves a booking to the end; same-instant updates keep id order', async () => {
    const b1 = await create({ check_in: '2026-10-01', check_out: '2026-10-02' });
    const b2 = await create({ check_in: '2026-10-03', check_out: '2026-10-04' });
    const b3 = await create({ check_in: '2026-10-05', check_out: '2026-10-06' });
    expect(ids(await list(''))).toEqual([b1.id, b2.id, b3.id]);
    await advance(10);
    await h.staff('post', `/bookings/${b1.id}/status`, { status: 'cancelled' });
    const b4 = await create({ check_in: '2026-10-07', check_out: '2026-10-08' });
    expect(ids(await list(''))).toEqual([b2.id, b3.id, b1.id, b4.id]);
    await advance(1);
    await h.staff('post', `/bookings/${b2.id}/dates`, { check_in: '2026-10-20', check_out: '2026-10-22' });
    const res = await list('');
    expect(ids(res)).toEqual([b3.id, b1.id, b4.id, b2.id]);
    const times = (res.body.data as Booking[]).map((b) => Date.parse(b.updated_at));
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });
});

describe('§4.4, §6.9: polling by updated_since never misses a latest revision', () => {
  type Action =
    | { kind: 'create'; property: number; offset: number; nights: number; pending: boolean }
    | { kind: 'status'; pick: number; status: 'confirmed' | 'cancelled' | 'completed' | 'refunded' }
    | { kind: 'dates'; pick: number; offset: number; nights: number }
    | { kind: 'advance'; seconds: number }
    | { kind: 'poll' };

  const action: fc.Arbitrary<Action> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('create' as const), property: fc.integer({ min: 0, max: 2 }), offset: fc.integer({ min: 0, max: 90 }), nights: fc.integer({ min: 1, max: 4 }), pending: fc.boolean() }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant('status' as const), pick: fc.nat(), status: fc.constantFrom('confirmed' as const, 'cancelled' as const, 'completed' as const, 'refunded' as const) }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('dates' as const), pick: fc.nat(), offset: fc.integer({ min: 0, max: 90 }), nights: fc.integer({ min: 1, max: 4 }) }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.constantFrom(0.25, 0.5, 0.999)) }), weight: 2 },
    { arbitrary: fc.constant({ kind: 'poll' as const }), weight: 3 },
  );

  /**
   * The partner of §6.9: stores the highest updated_at processed and asks for
   * page 1 from there. When a whole page shares the cursor's instant (a tie
   * larger than the page) it reads on through the tie's pages in the same
   * step: offset pages over a tie cannot be read safely while rows leave it,
   * and the document orders by update time only.
   */
  class Poller {
    cursor: string | null = null;
    readonly seen = new Map<number, number>();

    constructor(private readonly perPage: number) {}

    /** One poll; returns true when everything from the cursor fitted in what was read. */
    async step(): Promise<boolean> {
      for (let page = 1; ; page++) {
        const since = this.cursor === null ? '' : `&updated_since=${encodeURIComponent(this.cursor)}`;
        const res = await list(`per_page=${this.perPage}&page=${page}${since}`);
        expect(res.status, res.text).toBe(200);
        const items = res.body.data as Booking[];
        for (const b of items) {
          const before = this.seen.get(b.id) ?? 0;
          expect(b.revision, `booking ${b.id} went back from revision ${before}`).toBeGreaterThanOrEqual(before);
          this.seen.set(b.id, b.revision);
        }
        const times = items.map((b) => Date.parse(b.updated_at));
        // What makes the cursor safe: each page is oldest update first. (The id tie-break is checked
        // with whole-second clock moves in the ordering test: the wire updated_at has no sub-second part.)
        for (let i = 1; i < items.length; i++) expect(times[i]!, `page order at ${i}: ${res.text}`).toBeGreaterThanOrEqual(times[i - 1]!);
        const tie = this.cursor !== null && items.length === this.perPage && times.every((t) => t === Date.parse(this.cursor!));
        if (tie) continue;
        if (items.length > 0) this.cursor = items.reduce((m, b) => (Date.parse(b.updated_at) > Date.parse(m) ? b.updated_at : m), items[0]!.updated_at);
        return res.body.pagination.total <= page * this.perPage;
      }
    }
  }

  it('with bookings created and changed and the clock moving between page reads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(action, { minLength: 1, maxLength: 25 }), async (perPage, actions) => {
        h = makeHarness();
        const poller = new Poller(perPage);
        const mine: number[] = [];
        const properties = h.fixtures.integrations[0]!.properties.filter((p) => !p.archived);
        for (const a of actions) {
          if (a.kind === 'create') {
            const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({
              property: { doorloom_id: properties[a.property]!.doorloom_id },
              check_in: dayAfter('2026-10-01', a.offset),
              check_out: dayAfter('2026-10-01', a.offset + a.nights),
              status: a.pending ? 'pending' : 'confirmed',
            }));
            expect([201, 409], res.text).toContain(res.status);
            if (res.status === 201) mine.push(res.body.data.id);
          } else if (a.kind === 'status' || a.kind === 'dates') {
            if (mine.length === 0) continue;
            const id = mine[a.pick % mine.length]!;
            const body = a.kind === 'status' ? { status: a.status } : { check_in: dayAfter('2026-10-01', a.offset), check_out: dayAfter('2026-10-01', a.offset + a.nights) };
            // Transitions the staff plane refuses (422) or dates that cannot be held (409) change nothing.
            const res = await h.http.post(`/_staff/bookings/${id}/${a.kind}`).set('Authorization', 'Bearer stf_test_staff_token').send(body);
            expect([200, 409, 422], res.text).toContain(res.status);
          } else if (a.kind === 'advance') {
            await advance(a.seconds);
          } else {
            await poller.step();
          }
        }
        // Catch up: poll until one read covers everything from the cursor.
        for (let i = 0; !(await poller.step()); i++) expect(i, 'polling does not converge').toBeLessThan(100);
        const latest = Array.from(h.sim.store.values('bookings')).filter((b) => b.integration_id === h.fixtures.integrations[0]!.id);
        expect(latest.length).toBe(mine.length);
        for (const b of latest) expect(poller.seen.get(b.id), `booking ${b.id}`).toBe(b.revision);
        expect(h.violations).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  it('the clock really moved in the property above: updated_at is the change instant', async () => {
    const b = await create();
    expect(b.updated_at).toBe('2026-09-15T12:00:00.000+05:30');
    expect(Date.parse(b.updated_at)).toBe(TEST_NOW);
    await advance(61.5);
    const changed = await h.staff<Booking>('post', `/bookings/${b.id}/status`, { status: 'cancelled' });
    expect(changed.updated_at).toBe('2026-09-15T12:01:01.500+05:30');
  });
});

describe('the contract shows what both GET booking operations answer (issue 29 item 6)', () => {
  /** The messages of the 200 examples of `path` in spec/openapi.yaml (its "Booking created." was the create's). */
  function exampleMessages(path: string): unknown[] {
    const paths = loadContract().document.paths as Record<string, any>;
    const media = paths[path].get.responses['200'].content['application/json'];
    return Object.values(media.examples as Record<string, { value: { message: unknown } }>).map((e) => e.value.message);
  }

  it.each([
    ['§4.2 GET /bookings/{doorloom_id}', '/bookings/{doorloom_id}', (b: Booking) => `/bookings/${b.id}`],
    ['§4.3 GET /bookings/external/{external_booking_id}', '/bookings/external/{external_booking_id}', (b: Booking) => `/bookings/external/${encodeURIComponent(b.external_booking_id)}`],
  ])('%s: the 200 example says the message the answer carries', async (_name, path, url) => {
    const res = await h.api('get', url(await create()));
    expect(res.status, res.text).toBe(200);
    const messages = exampleMessages(path);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).toBe(res.body.message);
  });
});
