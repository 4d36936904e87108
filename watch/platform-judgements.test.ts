import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../protocol/signature.ts';
import type { WatchedExchange } from './exchange.ts';
import { Judge } from './judge.ts';
import type { RuleId } from './rules.ts';
import { envelope, me, page, row, SLUG, Traffic } from './test-support.ts';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';

function judged(exchanges: WatchedExchange[], secrets: string[] = []): Judge {
  const judge = new Judge({ secrets });
  for (const e of exchanges) judge.observe(e);
  return judge;
}

/** The clauses a rule's findings named, in order. */
function clausesOf(judge: Judge, rule: RuleId): string[] {
  return judge.findings.filter((f) => f.rule === rule).map((f) => f.clause);
}

const booking = (id: number, external: string, extra: Record<string, unknown> = {}) => ({ success: true, message: 'Booking created.', data: { id, external_booking_id: external, ...extra } });
const create = (external: string, nights = '2026-11-01') => ({ external_booking_id: external, property: { doorloom_id: 101 }, check_in: nights, check_out: '2026-11-03', units: [{ adults: 2 }], guest: { name: 'A', mobile: '1' }, pricing: { total: 100 } });

type Case = [string, { given: (t: Traffic) => WatchedExchange[]; rule: RuleId; want: string[]; secrets?: string[] }];

const cases: Case[] = [
  // §4.6 rule: paging along next_after_sequence visits every event that is not superseded.
  ['a replay page that skips a delivered sequence is 4.6.R4', {
    rule: 'platform.replay-contiguous', want: ['4.6.R4'],
    given: (t) => [t.api('GET', '/me', 200, me()), t.delivery(envelope(1)), t.delivery(envelope(2)), t.delivery(envelope(3)),
      t.api('GET', '/events?after_sequence=0&limit=2', 200, page(0, [row(envelope(1))], { next: 2, hasMore: true })),
      t.api('GET', '/events?after_sequence=2&limit=2', 200, page(2, [row(envelope(3))]))],
  }],
  ['a skip shows once the skipped sequence is delivered after the page (4.6.R4)', {
    rule: 'platform.replay-contiguous', want: ['4.6.R4'],
    given: (t) => [t.api('GET', '/events?after_sequence=0&limit=2', 200, page(0, [row(envelope(1), 'pending'), row(envelope(2), 'pending')], { next: 3, hasMore: true })),
      t.delivery(envelope(1)), t.delivery(envelope(2)), t.delivery(envelope(3))],
  }],
  ['a page passing over superseded rows, or events of another type under types[], skips nothing', {
    rule: 'platform.replay-contiguous', want: [],
    given: (t) => [t.delivery(envelope(1)), t.delivery(envelope(3, { type: 'booking.changed' })),
      t.api('GET', '/events?after_sequence=0&include_superseded=true', 200, page(0, [row(envelope(1)), row(envelope(2), 'superseded'), row(envelope(3, { type: 'booking.changed' }))])),
      t.api('GET', '/events?after_sequence=0', 200, page(0, [row(envelope(1)), row(envelope(3, { type: 'booking.changed' }))])),
      t.api('GET', '/events?after_sequence=0&types%5B%5D=rates.changed', 200, page(0, [row(envelope(1))], { next: 3 }))],
  }],
  // §4.6 with include_superseded (issue 41 item 2): every event above after_sequence is a row; a gap needs no delivery to show.
  ['pages read with include_superseded that leave a sequence out between them are 4.6.R4 at once', {
    rule: 'platform.replay-contiguous', want: ['4.6.R4'],
    given: (t) => [t.api('GET', '/events?after_sequence=0&limit=2&include_superseded=true', 200, page(0, [row(envelope(4)), row(envelope(5), 'superseded')], { next: 5, hasMore: true, latest: 8 })),
      t.api('GET', '/events?after_sequence=5&limit=2&include_superseded=true', 200, page(5, [row(envelope(7)), row(envelope(8))], { latest: 8 }))],
  }],
  ['an include_superseded page with a hole between its rows, or a next_after_sequence past its last row, is 4.6.R4', {
    rule: 'platform.replay-contiguous', want: ['4.6.R4', '4.6.R4'],
    given: (t) => [t.api('GET', '/events?after_sequence=0&include_superseded=true', 200, page(0, [row(envelope(1)), row(envelope(3))])),
      t.api('GET', '/events?after_sequence=3&limit=1&include_superseded=1', 200, page(3, [row(envelope(4))], { next: 5, hasMore: true, latest: 9 }))],
  }],
  ['include_superseded pages that follow one another, a filtered one, and a cursor never shown held skip nothing', {
    rule: 'platform.replay-contiguous', want: [],
    given: (t) => [t.api('GET', '/events?after_sequence=0&limit=2&include_superseded=true', 200, page(0, [row(envelope(5)), row(envelope(6), 'superseded')], { next: 6, hasMore: true, latest: 7 })),
      t.api('GET', '/events?after_sequence=6&limit=2&include_superseded=true', 200, page(6, [row(envelope(7))])),
      t.api('GET', '/events?after_sequence=0&include_superseded=true&property_id=102', 200, page(0, [row(envelope(9, { property: 102 }))], { latest: 9 })),
      // From a cursor no row was shown at, the log may have let the events after it go (§6.7 retention).
      t.api('GET', '/events?after_sequence=2&include_superseded=true', 200, page(2, [row(envelope(5))], { latest: 9 }))],
  }],
  ['the event at after_sequence shown more than 24 hours before: the page may start past events since retired (§6.7)', {
    rule: 'platform.replay-contiguous', want: [],
    given: (t) => [t.api('GET', '/events?after_sequence=0&limit=1&include_superseded=true', 200, page(0, [row(envelope(5))], { next: 5, hasMore: true, latest: 7 })),
      t.wait(24 * 3_600_000).api('GET', '/events?after_sequence=5&include_superseded=true', 200, page(5, [row(envelope(7))]))],
  }],
  // §3.3: omitted from replay unless include_superseded; never delivered.
  ['a superseded row in a default replay is 3.3.R2', {
    rule: 'platform.superseded-omitted', want: ['3.3.R2'],
    given: (t) => [t.api('GET', '/events', 200, page(0, [row(envelope(1)), row(envelope(2), 'superseded')]))],
  }],
  ['a superseded event delivered after is 3.3.R3', {
    rule: 'platform.superseded-never-delivered', want: ['3.3.R3'],
    given: (t) => [t.api('GET', '/events?include_superseded=true', 200, page(0, [row(envelope(1), 'superseded'), row(envelope(2), 'pending')])), t.delivery(envelope(1))],
  }],
  ['a delivered event shown superseded later is 3.3.T1a', {
    rule: 'platform.superseded-never-delivered', want: ['3.3.T1a'],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events?include_superseded=true', 200, page(0, [row(envelope(1), 'superseded'), row(envelope(2), 'pending')]))],
  }],
  ['delivering what replay showed pending holds', {
    rule: 'platform.superseded-never-delivered', want: [],
    given: (t) => [t.api('GET', '/events?include_superseded=true', 200, page(0, [row(envelope(1), 'pending')])), t.delivery(envelope(1))],
  }],
  // §2.5, §2.6: one event per sequence, byte for byte.
  ['a sequence reused by another event is 1.R3a', {
    rule: 'platform.sequence-never-reused', want: ['1.R3a'],
    given: (t) => [t.delivery(envelope(1)), t.delivery(envelope(1, { id: '01JOTHER00000000000000000001' }))],
  }],
  ['a delivery differing from its replay row is 2.6.R1', {
    rule: 'platform.replay-bytes', want: ['2.6.R1'],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events', 200, page(0, [row(envelope(1, { data: [{ date: '2026-11-01', base_rate: 4001 }] }))]))],
  }],
  ['a delivery equal to its replay row holds', {
    rule: 'platform.replay-bytes', want: [],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events', 200, page(0, [row(envelope(1))]))],
  }],
  // §6.2: one at a time, in order.
  ['a lower sequence after a higher one is 6.R2a', {
    rule: 'platform.delivery-order', want: ['6.R2a'],
    given: (t) => [t.delivery(envelope(1), 500), t.delivery(envelope(2)), t.delivery(envelope(1))],
  }],
  ['a retry of the head, then the next, holds', {
    rule: 'platform.delivery-order', want: [],
    given: (t) => [t.delivery(envelope(1), 500), t.delivery(envelope(1)), t.delivery(envelope(2))],
  }],
  // §6.3
  ['a delivery without X-Service-Integration is 6.R3', {
    rule: 'platform.delivery-integration-header', want: ['6.R3'],
    given: (t) => [t.delivery(envelope(1), 200, {})],
  }],
  // §5.4, only with the secret.
  ['a delivery signed with another secret is 5.R4', {
    rule: 'platform.delivery-signed', want: ['5.R4'], secrets: [SECRET],
    given: (t) => {
      const d = t.delivery(envelope(1));
      d.requestHeaders['x-service-signature'] = signatureHeader(['whsec_ffffffffffffffffffffffffffffffff'], Math.floor(Date.parse(d.at) / 1000), d.requestBody);
      return [d];
    },
  }],
  ['a delivery signed with the secret holds', {
    rule: 'platform.delivery-signed', want: [], secrets: [SECRET],
    given: (t) => {
      const d = t.delivery(envelope(1));
      d.requestHeaders['x-service-signature'] = signatureHeader([SECRET], Math.floor(Date.parse(d.at) / 1000), d.requestBody);
      return [d];
    },
  }],
  // §4.5 rule 1
  ['a create replayed under its key with different bytes is 4.5.R1', {
    rule: 'platform.idempotent-replay', want: ['4.5.R1'],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: create('ext-1'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 201, booking(5001, 'ext-1', { revision: 1 }), { request: create('ext-1'), headers: { 'idempotency-key': 'key-00000001' } })],
  }],
  ['a create replayed under its key with its body in another key order answers the same bytes and holds', {
    rule: 'platform.idempotent-replay', want: [],
    given: (t) => {
      const body = create('ext-1');
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      return [t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: body, headers: { 'idempotency-key': 'key-00000001' } }),
        t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: reordered, headers: { 'idempotency-key': 'key-00000001' } })];
    },
  }],
  ['a key reused with another body that books is 4.5.R1d', {
    rule: 'platform.idempotent-replay', want: ['4.5.R1d'],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: create('ext-1'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 201, booking(5002, 'ext-2'), { request: create('ext-2'), headers: { 'idempotency-key': 'key-00000001' } })],
  }],
  // §4.5 rule 4
  ['an existing external_booking_id booked again under a new key is 4.5.R4', {
    rule: 'platform.duplicate-external-id', want: ['4.5.R4'],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: create('ext-1'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 201, booking(5002, 'ext-1'), { request: create('ext-1', '2026-11-05'), headers: { 'idempotency-key': 'key-00000002' } })],
  }],
  ['an existing external_booking_id answered 200 duplicate holds', {
    rule: 'platform.duplicate-external-id', want: [],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: create('ext-1'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 200, booking(5001, 'ext-1', { duplicate: true }), { request: create('ext-1', '2026-11-05'), headers: { 'idempotency-key': 'key-00000002' } })],
  }],
  // §1 visibility
  ["another integration's booking served is 1.V2", {
    rule: 'platform.own-records-only', want: ['1.V2'],
    given: (t) => [t.api('GET', '/me', 200, me()), t.api('POST', '/bookings', 201, booking(5001, 'ext-1'), { request: create('ext-1'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('GET', '/me', 200, { ...me(), data: { ...(me().data as object), slug: 'other-channel' } }, { credential: 'key-000000000002' }),
      t.api('GET', '/bookings/5001', 200, booking(5001, 'ext-1'), { credential: 'key-000000000002' })],
  }],
  // §4.8 watermark
  ['a snapshot watermark behind a sequence delivered before it is 4.8.R7', {
    rule: 'platform.snapshot-watermark', want: ['4.8.R7'],
    given: (t) => [t.api('GET', '/me', 200, me()), t.delivery(envelope(1)), t.delivery(envelope(2)), t.api('GET', '/properties/101/rates?from=2026-11-01&to=2026-11-02', 200, { success: true, message: 'Snapshot.', data: { sequence: 1, property: { doorloom_id: 101, external_id: 'SEA-VIEW' }, window: { from: '2026-11-01', to: '2026-11-02' }, data: [] } })],
  }],
  ['a snapshot watermark at the last sequence holds', {
    rule: 'platform.snapshot-watermark', want: [],
    given: (t) => [t.api('GET', '/me', 200, me()), t.delivery(envelope(1)), t.delivery(envelope(2)), t.api('GET', '/properties/101/rates?from=2026-11-01&to=2026-11-02', 200, { success: true, message: 'Snapshot.', data: { sequence: 2, property: { doorloom_id: 101, external_id: 'SEA-VIEW' }, window: { from: '2026-11-01', to: '2026-11-02' }, data: [] } }), t.api('GET', '/me', 200, me(2))],
  }],
  // §4 every answer against spec/openapi.yaml, by the suite's ResponseCheck
  ['an answer with pagination inside data is 4.R2', {
    rule: 'platform.response-conforms', want: ['4.R2'],
    given: (t) => [t.api('GET', '/bookings', 200, { success: true, message: 'Bookings.', data: { items: [], pagination: { page: 1 } } })],
  }],
  ['GET /me as the simulator answers it holds', {
    rule: 'platform.response-conforms', want: [],
    given: (t) => [t.api('GET', '/me', 200, me())],
  }],
  // §7
  ['429 RATE_LIMITED without Retry-After is 7.E16', {
    rule: 'platform.rate-limit-headers', want: ['7.E16'],
    given: (t) => [t.api('GET', '/me', 429, { success: false, code: 'RATE_LIMITED', message: 'Slow down.', errors: {} }, { responseHeaders: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' } })],
  }],
  // §4.5 rule 7: the 409 names the stay's nights, check-in to the last night.
  ['a 409 UNAVAILABLE whose window ends on check_out is 4.5.R7a', {
    rule: 'platform.conflict-body', want: ['4.5.R7a'],
    given: (t) => [t.api('POST', '/bookings', 409, { success: false, code: 'UNAVAILABLE', message: 'Not available.', errors: { availability: { property: { doorloom_id: 101 }, window: { from: '2026-11-01', to: '2026-11-03' }, total_units: 1, dates: [] } } }, { request: create('x-1'), headers: { 'idempotency-key': 'key-00000001' } })],
  }],
  ['a 409 UNAVAILABLE up to the last night holds', {
    rule: 'platform.conflict-body', want: [],
    given: (t) => [t.api('POST', '/bookings', 409, { success: false, code: 'UNAVAILABLE', message: 'Not available.', errors: { availability: { property: { doorloom_id: 101 }, window: { from: '2026-11-01', to: '2026-11-02' }, total_units: 1, dates: [] } } }, { request: create('x-1'), headers: { 'idempotency-key': 'key-00000001' } })],
  }],
  // §8: per_page 1 to 200, limit 1 to 200; a 422 for a value inside is a valid query refused.
  ['422 for per_page=200 is 8.L1; for per_page=201 it holds', {
    rule: 'platform.valid-query-accepted', want: ['8.L1'],
    given: (t) => [t.api('GET', '/bookings?per_page=200', 422, { success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors: { per_page: ['Must be at most 199.'] } }),
      t.api('GET', '/bookings?per_page=201', 422, { success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors: { per_page: ['Must be at most 200.'] } }),
      t.api('GET', '/properties/101/availability?from=2026-11-01&to=2029-01-01', 422, { success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors: { to: ['Too far.'] } })],
  }],
  // §4.6: reading events changes nothing.
  ['a row shown pending, then delivered with no 2xx delivery of it, is 4.6.R11 (deliveries pass through watch)', {
    rule: 'platform.reading-changes-nothing', want: ['4.6.R11'],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events?after_sequence=1', 200, page(1, [row(envelope(2), 'pending')])),
      t.api('GET', '/events?after_sequence=1', 200, page(1, [row(envelope(2), 'delivered')]))],
  }],
  ['a row shown pending, delivered through watch, then shown delivered holds', {
    rule: 'platform.reading-changes-nothing', want: [],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events?after_sequence=1', 200, page(1, [row(envelope(2), 'pending')])), t.delivery(envelope(2)),
      t.api('GET', '/events?after_sequence=1', 200, page(1, [row(envelope(2), 'delivered')]))],
  }],
  // §4.7: a sync body the contract accepts is not VALIDATION_FAILED.
  ['422 VALIDATION_FAILED for types [availability.changed] is 4.7.Q3a; for types [nope] it holds', {
    rule: 'platform.valid-query-accepted', want: ['4.7.Q3a'],
    given: (t) => [t.api('POST', '/sync', 422, { success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors: { 'types.0': ['Must be one of: availability, rates.'] } }, { request: { types: ['availability.changed'] } }),
      t.api('POST', '/sync', 422, { success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors: { 'types.0': ['Must be one of: availability, rates.'] } }, { request: { types: ['nope'] } }),
      { ...t.api('POST', '/sync', 422, { success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors: { _body: ['Not JSON.'] } }), requestBody: '{"types": [' }],
  }],
  // §4.4, §8: the list defaults and the page size.
  ['a list without per_page served 25 a page is 4.4.Q7 (and 8.L1, 4.4.Q7 for its size and last page)', {
    rule: 'platform.list-page', want: ['4.4.Q7', '8.L1', '4.4.Q7'],
    given: (t) => [t.api('GET', '/bookings', 200, { success: true, message: 'Bookings retrieved.', data: Array.from({ length: 25 }, (_, i) => ({ id: 5001 + i })), pagination: { page: 1, per_page: 25, total: 60, last_page: 3 } })],
  }],
];

describe('platform judgements of traffic', () => {
  it.each(cases)('%s', (_name, { given, rule, want, secrets }) => {
    const judge = judged(given(new Traffic()), secrets);
    expect(clausesOf(judge, rule)).toEqual(want);
    expect(judge.tallies.get(rule)!.observed).toBeGreaterThan(0);
    expect(judge.internalErrors.count).toBe(0);
  });

  it('a read sent on a snapshot\'s heels, in the millisecond its answer began, is judged against its watermark (4.8.R7)', () => {
    // Starts are whole milliseconds; the answer began 0.6 ms into the snapshot's. A fast proxy passes the answer on at
    // once, so the next read can start in that same millisecond.
    const t = new Traffic(0);
    const snapshot = { ...t.api('GET', '/properties/101/rates?from=2026-11-01&to=2026-11-02', 200, { success: true, message: 'Snapshot.', data: { sequence: 3, property: { doorloom_id: 101, external_id: 'SEA-VIEW' }, window: { from: '2026-11-01', to: '2026-11-02' }, data: [] } }), ms: 0.8, answerMs: 0.6 };
    const judge = judged([t.api('GET', '/me', 200, me()), t.delivery(envelope(1)), t.delivery(envelope(2)), snapshot, t.api('GET', '/me', 200, me(2))]);
    expect(clausesOf(judge, 'platform.snapshot-watermark')).toEqual(['4.8.R7']);
  });

  it('without a webhook secret the signature rule is not observed, never passed', () => {
    const t = new Traffic();
    const judge = judged([t.delivery(envelope(1))]);
    expect(judge.tallies.get('platform.delivery-signed')!.observed).toBe(0);
  });

  it('bad input: an unparsable body or a delivery without a sequence is judged without a finding of the stream rules', () => {
    const t = new Traffic();
    const broken = t.api('GET', '/events', 200, 'not json');
    const ping = t.delivery({ type: 'ping', integration: { id: 1, slug: SLUG } });
    const judge = judged([broken, ping]);
    expect(judge.internalErrors.count).toBe(0);
    expect(judge.findings.filter((f) => f.rule !== 'platform.response-conforms')).toEqual([]);
  });
});
