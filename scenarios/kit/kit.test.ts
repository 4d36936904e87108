/** The scenario kit: how differences are found and how timelines are written for people. */
import { describe, expect, it } from 'vitest';
import { firstDifference, MISSING } from './convergence.ts';
import { clockText, elapsedText, renderHtml, renderMarkdown, verdictWord, type ScenarioReport } from './report.ts';
import { formatDuration, summarizeCall } from './scenario.ts';

describe('firstDifference', () => {
  it.each([
    ['equal objects, keys in another order', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, null],
    ['a changed leaf', { a: 1, b: { c: 2 } }, { a: 1, b: { c: 3 } }, { path: 'b.c', expected: 2, actual: 3 }],
    ['a missing key', { a: 1, b: 2 }, { a: 1 }, { path: 'b', expected: 2, actual: MISSING }],
    ['an extra key', { a: 1 }, { a: 1, z: 0 }, { path: 'z', expected: MISSING, actual: 0 }],
    ['array lengths', { held: [1001] }, { held: [1001, 1002] }, { path: 'held[1]', expected: MISSING, actual: 1002 }],
    ['null against a value', { cap: null }, { cap: 2 }, { path: 'cap', expected: null, actual: 2 }],
    ['types differ', { a: [1] }, { a: { 0: 1 } }, { path: 'a', expected: [1], actual: { 0: 1 } }],
    ['a value against missing', { a: 1 }, MISSING, { path: '(value)', expected: { a: 1 }, actual: MISSING }],
  ] as const)('%s', (_name, expected, actual, want) => {
    expect(firstDifference(expected, actual)).toEqual(want);
  });
});

const report = (over: Partial<ScenarioReport> = {}): ScenarioReport => ({
  name: 'demo', number: 99, title: 'A <demo> | scenario', story: 'A story.', live: { capable: false, note: 'simulator only' }, mode: 'simulator',
  ok: false, breakages: ['ignoreWatermark'], failure: 'not converged', startedAt: 0, durationMs: 1234,
  divergence: {
    total: 1,
    compared: { window: { from: '2026-09-15', to: '2027-01-12' }, properties: 4, nights: 1440, bookings: 1, reservations: 0 },
    differences: [{ where: 'LAKE-HOUSE (103) · availability · 2026-10-05 · available_units', property: 103, type: 'availability', date: '2026-10-05', field: 'available_units', expected: 1, actual: 2 }],
  },
  timeline: [
    { at: Date.parse('2026-09-15T06:30:00Z'), actor: 'staff', action: 'rotates the API key | pipes', sequence: '', outcome: 'new key dlk_0123456789abcdef0123456789abcdef shown once', level: 'info' },
    { at: Date.parse('2026-09-15T08:30:10Z'), actor: 'webhook', action: '<script>alert(1)</script>', sequence: '#7', outcome: '200 · applied 2 nights', level: 'info' },
  ],
  ...over,
});

describe('the timeline report', () => {
  it('shows the platform clock, the elapsed time, actors, calls, sequences and outcomes', () => {
    const md = renderMarkdown(report());
    expect(md).toContain('| 2 | 2026-09-15 14:00:10 | +2:00:10 | webhook | <script>alert(1)</script> | #7 | 200 · applied 2 nights |');
    expect(md).toContain('rotates the API key \\| pipes');
  });

  it('on failure, opens with where the partner\'s state first diverged', () => {
    const md = renderMarkdown(report());
    expect(md.indexOf("Where the partner's state first diverged")).toBeLessThan(md.indexOf('## Timeline'));
    expect(md).toContain('**LAKE-HOUSE (103) · availability · 2026-10-05 · available_units: expected 1, actual 2**');
    expect(md).toContain('Partner deliberately broken: **ignoreWatermark**');
  });

  it('never writes a credential, and the HTML is self-contained and escaped', () => {
    const html = renderHtml(report());
    for (const text of [html, renderMarkdown(report())]) expect(text).not.toMatch(/dlk_[0-9a-f]{16}/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script|<link|src=|href=/i);
    expect(html).toContain('first diverged');
  });

  it('a passing run has no failure section', () => {
    const md = renderMarkdown(report({ ok: true, failure: null, divergence: null, breakages: [] }));
    expect(md).toContain('**PASSED**');
    expect(md).not.toContain('## Failure');
  });

  it('a live wait that ran out is NOT OBSERVED, naming what was awaited: neither passed nor failed (issue 38)', () => {
    const awaited = 'not observed: the platform\'s delivery of every event up to sequence 9 to the partner (its cursor 4), after 120 s of real time';
    const r = report({ ok: false, failure: null, notObserved: awaited, divergence: null, breakages: [], mode: 'live' });
    expect(verdictWord(r)).toBe('NOT OBSERVED');
    const md = renderMarkdown(r);
    expect(md).toContain('**NOT OBSERVED**');
    expect(md).toContain(`## Not observed\n\n${awaited}: a live wait that ran out judges nothing`);
    expect(md).not.toContain('## Failure');
    expect(renderHtml(r)).toContain('<span class="verdict info">NOT OBSERVED</span>');
    expect(verdictWord(report())).toBe('FAILED');
    expect(verdictWord(report({ ok: true, failure: null }))).toBe('PASSED');
  });

  it('clock and duration texts', () => {
    expect(clockText(Date.parse('2026-09-15T06:30:00Z'))).toBe('2026-09-15 12:00:00');
    expect(elapsedText(31 * 86_400_000 + 3_661_000)).toBe('+31d 1:01:01');
    expect([500, 1000, 90_000, 7_200_000, 86_400_000, 31 * 86_400_000].map(formatDuration)).toEqual(['0.5 s', '1 s', '1 min 30 s', '2 h', '1 day', '31 days']);
  });
});

describe('summarizeCall', () => {
  it('a replay page: rows, superseded, cursor', () => {
    const s = summarizeCall({
      method: 'GET', path: '/events?after_sequence=12&limit=200&include_superseded=true', status: 200, headers: {},
      body: { data: [{ sequence: 13, status: 'delivered' }, { sequence: 14, status: 'superseded' }], cursor: { next_after_sequence: 14, latest_sequence: 14 } },
    });
    expect(s).toEqual({ action: 'GET /events after_sequence=12', outcome: '200 · 2 row(s), 1 superseded · next 14 · latest 14', sequence: '#13–14', level: 'info' });
  });

  it('a refused create shows the 409 availability body', () => {
    const s = summarizeCall({
      method: 'POST', path: '/bookings', status: 409, code: 'UNAVAILABLE', headers: {}, idempotencyKey: 'bk_0000aaaa', requestBody: '{"external_booking_id":"R-B"}',
      body: { errors: { availability: { window: { from: '2026-10-10', to: '2026-10-11' }, dates: [{ date: '2026-10-10', available_units: 0 }] } } },
    });
    expect(s.action).toBe('POST /bookings R-B · Idempotency-Key …0000aaaa');
    expect(s.outcome).toBe('409 UNAVAILABLE · window 2026-10-10..2026-10-11, available_units 2026-10-10: 0');
  });
});
