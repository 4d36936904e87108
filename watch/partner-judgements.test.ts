import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../protocol/signature.ts';
import type { WatchedExchange } from './exchange.ts';
import { Judge } from './judge.ts';
import type { RuleId } from './rules.ts';
import { envelope, me, page, row, Traffic } from './test-support.ts';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const booking = (id: number) => ({ success: true, message: 'Booking created.', data: { id } });
const create = (external: string, total = 100) => ({ external_booking_id: external, property: { doorloom_id: 101 }, check_in: '2026-11-01', check_out: '2026-11-03', units: [{ adults: 2 }], guest: { name: 'A', mobile: '1' }, pricing: { total } });
const unavailable = { success: false, code: 'UNAVAILABLE', message: 'No unit.', errors: {} };
const rateLimited = { success: false, code: 'RATE_LIMITED', message: 'Slow down.', errors: {} };
const limitHeaders = (after: string) => ({ 'retry-after': after, 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': after });

type Case = [string, { given: (t: Traffic) => WatchedExchange[]; rule: RuleId; want: string[] }];

const cases: Case[] = [
  ['a key sent again with another body is 4.5.Q2', {
    rule: 'partner.key-per-attempt', want: ['4.5.Q2'],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001), { request: create('a'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 422, { success: false, code: 'IDEMPOTENCY_KEY_REUSED', message: 'Reused.', errors: {} }, { request: create('b'), headers: { 'idempotency-key': 'key-00000001' } })],
  }],
  ['a retry under a fresh key is 4.5.Q2', {
    rule: 'partner.key-per-attempt', want: ['4.5.Q2'],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001), { request: create('a'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 200, { ...booking(5001), data: { id: 5001, duplicate: true } }, { request: create('a'), headers: { 'idempotency-key': 'key-00000002' } })],
  }],
  ['a retry under the same key and body, and a new booking under a new key, hold', {
    rule: 'partner.key-per-attempt', want: [],
    given: (t) => [t.api('POST', '/bookings', 201, booking(5001), { request: create('a'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 201, booking(5001), { request: create('a'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 201, booking(5002), { request: create('b'), headers: { 'idempotency-key': 'key-00000002' } })],
  }],
  ['409 UNAVAILABLE sent again under its key is 7.E6', {
    rule: 'partner.unavailable-not-retried', want: ['7.E6'],
    given: (t) => [t.api('POST', '/bookings', 409, unavailable, { request: create('a'), headers: { 'idempotency-key': 'key-00000001' } }),
      t.api('POST', '/bookings', 409, unavailable, { request: create('a'), headers: { 'idempotency-key': 'key-00000001' } })],
  }],
  ['a call repeated before Retry-After is 7.E16', {
    rule: 'partner.retry-after-honoured', want: ['7.E16'],
    given: (t) => [t.api('GET', '/me', 429, rateLimited, { responseHeaders: limitHeaders('30') }), t.api('GET', '/me', 200, me())],
  }],
  ['a call repeated after Retry-After holds', {
    rule: 'partner.retry-after-honoured', want: [],
    given: (t) => [t.api('GET', '/me', 429, rateLimited, { responseHeaders: limitHeaders('2') }), t.wait(2_000).api('GET', '/me', 200, me())],
  }],
  ['GET /me twice within a minute is 8.C1', {
    rule: 'partner.health-check-polling', want: ['8.C1'],
    given: (t) => [t.api('GET', '/me', 200, me()), t.wait(30_000).api('GET', '/me', 200, me())],
  }],
  ['GET /me once a minute holds', {
    rule: 'partner.health-check-polling', want: [],
    given: (t) => [t.api('GET', '/me', 200, me()), t.wait(60_000).api('GET', '/me', 200, me())],
  }],
  ['a walk that asks past next_after_sequence is 4.6.R4', {
    rule: 'partner.replay-cursor', want: ['4.6.R4'],
    given: (t) => [t.api('GET', '/events?after_sequence=0&limit=1', 200, page(0, [row(envelope(1))], { next: 1, hasMore: true, latest: 3 })),
      t.api('GET', '/events?after_sequence=2&limit=1', 200, page(2, [row(envelope(3))], { latest: 3 }))],
  }],
  ['a catch-up from past what the partner took in is 6.R8', {
    rule: 'partner.replay-cursor', want: ['6.R8'],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events?after_sequence=3', 200, page(3, [row(envelope(4))], { latest: 4 }))],
  }],
  ['a walk along next_after_sequence from the last delivery holds', {
    rule: 'partner.replay-cursor', want: [],
    given: (t) => [t.delivery(envelope(1)), t.api('GET', '/events?after_sequence=1&limit=1', 200, page(1, [row(envelope(2))], { next: 2, hasMore: true, latest: 3 })),
      t.api('GET', '/events?after_sequence=2&limit=1', 200, page(2, [row(envelope(3))], { latest: 3 }))],
  }],
  ['a forged delivery answered 200 is 5.R4', {
    rule: 'partner.forgery-refused', want: ['5.R4'],
    given: (t) => {
      const d = t.delivery(envelope(1));
      d.requestHeaders['x-service-signature'] = signatureHeader(['whsec_ffffffffffffffffffffffffffffffff'], Math.floor(Date.parse(d.at) / 1000), d.requestBody);
      return [d];
    },
  }],
  ['a forged delivery refused 400 holds', {
    rule: 'partner.forgery-refused', want: [],
    given: (t) => {
      const d = t.delivery(envelope(1), 400);
      d.requestHeaders['x-service-signature'] = signatureHeader(['whsec_ffffffffffffffffffffffffffffffff'], Math.floor(Date.parse(d.at) / 1000), d.requestBody);
      return [d];
    },
  }],
];

describe('partner judgements of traffic', () => {
  it.each(cases)('%s', (_name, { given, rule, want }) => {
    const judge = new Judge({ secrets: [SECRET] });
    for (const e of given(new Traffic())) judge.observe(e);
    expect(judge.findings.filter((f) => f.rule === rule).map((f) => f.clause)).toEqual(want);
    expect(judge.tallies.get(rule)!.observed).toBeGreaterThan(0);
  });

  it('--side platform judges no partner rule: a test tool breaks partner guidance on purpose', () => {
    const t = new Traffic();
    const judge = new Judge({ sides: ['platform'] });
    judge.observe(t.api('GET', '/me', 200, me()));
    judge.observe(t.api('GET', '/me', 200, me()));
    expect(judge.findings).toEqual([]);
    expect(judge.rules().every((r) => r.side === 'platform')).toBe(true);
  });
});
