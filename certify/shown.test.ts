/**
 * A regression is a value older than one the partner had already been shown
 * (§3.3, §6.4; issue 28 item 1): the outage drill's night, event 12 (7000)
 * superseded by event 220 (7500), read through the partner's state probe.
 * Table by table on hand-made journals and delivery logs.
 */
import { describe, expect, it } from 'vitest';
import { emptyObservations, gradeAll, type Observations } from './grade.ts';
import { regressed, type ShownRecords } from './shown.ts';
import type { DeliveryEvidence, JournalEntry, StateCheck } from './types.ts';

const T0 = Date.parse('2026-11-21T06:00:00Z');
const X = 12;
const Y = 220;
let n = 0;

/** A replay page answered at T0+at: rows after..next, built when the newest sequence was `latest`. */
function page(at: number, after: number, next: number, latest: number, limit = '100'): JournalEntry {
  n += 1;
  return {
    n, integration_id: 4, at: T0 + at, operation: 'listEvents', method: 'GET', path: '/api/integrations/v1/events', query: { after_sequence: String(after), limit, include_superseded: 'true' },
    idempotency_key: null, body_fingerprint: null, status: 200, code: null, credential: 'current', retry_after: null,
    cursor: { after_sequence: after, next_after_sequence: next, has_more: next < latest, first: after + 1, last: next, latest_sequence: latest } as JournalEntry['cursor'],
  };
}

function snapshot(at: number, watermark: number): JournalEntry {
  n += 1;
  return {
    n, integration_id: 4, at: T0 + at, operation: 'getRatesSnapshot', method: 'GET', path: '/api/integrations/v1/properties/101/rates', query: { from: '2026-12-01', to: '2027-02-28' },
    idempotency_key: null, body_fingerprint: null, status: 200, code: null, credential: 'current', retry_after: null, watermark,
  };
}

function delivered(sequence: number, at: number, ms = 5): DeliveryEvidence {
  return { source: 'platform', name: 'delivery', at: new Date(T0 + at).toISOString(), type: 'rates.changed', sequence, status: 200, ms };
}

/** The partner's copy of the night read at T0+at, after journal entry `afterCall`. */
function read(held: number, at: number, afterCall: number): StateCheck {
  return { when: `read at +${at}`, property_id: 101, type: 'rates', date: '2026-12-21', field: 'base_rate', expected: 7500, older: 7000, held, at: T0 + at, afterCall, sequence: Y, olderSequence: X };
}

type Case = [string, { journal: JournalEntry[]; deliveries?: DeliveryEvidence[]; check: (j: JournalEntry[]) => StateCheck; want: boolean }];

const cases: Case[] = [
  ['a page read before the newer event was recorded: the older value was the newest shown (restart, periodic replay, GET /me poll)',
    { journal: [page(100, 9, 109, 150)], check: (j) => read(7000, 200, j.at(-1)!.n), want: false }],
  ['the older value shown live, then re-read as a superseded row before the newer one: still no regression',
    { journal: [page(100, 9, 109, 150), page(300, 9, 209, 221)], check: (j) => read(7000, 400, j.at(-1)!.n), want: false }],
  ['the newer event on a page fetched before the read: a regression',
    { journal: [page(100, 9, 109, 221), page(200, 109, 221, 221)], check: (j) => read(7000, 300, j.at(-1)!.n), want: true }],
  ['the older event only ever given as a superseded row (applied anyway): a regression before the newer page',
    { journal: [page(100, 9, 109, 221)], check: (j) => read(7000, 200, j.at(-1)!.n), want: true }],
  ['the newer event delivered and answered 2xx before the read: a regression',
    { journal: [], deliveries: [delivered(Y, 100)], check: () => read(7000, 200, 0), want: true }],
  ['the newer event delivered but answered after the read: not yet shown',
    { journal: [page(50, 9, 109, 150)], deliveries: [delivered(Y, 190, 50)], check: (j) => read(7000, 200, j.at(-1)!.n), want: false }],
  ['the newer page answered after the read (the read came first): not yet shown',
    { journal: [page(100, 9, 109, 150), page(300, 109, 221, 221)], check: (j) => read(7000, 250, j[0]!.n), want: false }],
  ['a peek (a page of one) is not a replay: reading latest_sequence shows no value',
    { journal: [page(100, 9, 109, 150), page(150, Y - 1, Y, 221, '1')], check: (j) => read(7000, 200, j.at(-1)!.n), want: false }],
  // Issue 38 item 2: killed after a page with the newer event was answered and before it stored its cursor, the partner
  // comes back holding the older value it had stored, and reads again from its stored cursor, below the newer event.
  ['the newer event on a page the partner did not move on from (its next GET /events starts below it): not taken in',
    { journal: [page(100, 9, 109, 150), page(200, 109, 221, 221), page(300, 109, 110, 221, '1')], check: (j) => read(7000, 250, j[1]!.n), want: false }],
  ['the same page, the partner\'s next GET /events from past the newer event: taken in, a regression',
    { journal: [page(100, 9, 109, 150), page(200, 109, 221, 221), page(300, 221, 221, 221, '1')], check: (j) => read(7000, 250, j[1]!.n), want: true }],
  ['the newer event delivered and answered 2xx is taken in whatever pages follow (§6.2: acknowledged means stored)',
    { journal: [page(100, 9, 109, 150), page(300, 9, 109, 221, '1')], deliveries: [delivered(Y, 150)], check: (j) => read(7000, 250, j[0]!.n), want: true }],
  ['a rates snapshot whose watermark is between the two: the older value was live in it',
    { journal: [snapshot(100, 150)], check: (j) => read(7000, 200, j.at(-1)!.n), want: false }],
  ['a rates snapshot whose watermark includes the newer event: a regression',
    { journal: [snapshot(100, 221)], check: (j) => read(7000, 200, j.at(-1)!.n), want: true }],
];

describe('a regression is older than what the partner had been shown', () => {
  it.each(cases)('%s', (_name, { journal, deliveries, check, want }) => {
    const records: ShownRecords = { journal, platformDeliveries: deliveries ?? [] };
    expect(regressed(records, check(journal)).regressed).toBe(want);
  });

  it('holding the newest value, or neither, is never a regression', () => {
    const journal = [page(100, 9, 221, 221)];
    for (const held of [7500, 6100]) expect(regressed({ journal, platformDeliveries: [] }, read(held, 200, journal[0]!.n)).regressed).toBe(false);
  });

  it('a reading without its moment (a bundle written before the rule) is judged by value alone', () => {
    const { at: _at, afterCall: _after, ...old } = read(7000, 200, 0);
    expect(regressed({ journal: [], platformDeliveries: [] }, old).regressed).toBe(true);
  });

  it('receiver.no-regression: a partner restarted during the outage that read the older value live passes, and says so; one that applied the superseded row fails', () => {
    const grade = (o: Partial<Observations>) => gradeAll({ ...emptyObservations(), stateProbe: true, ...o }).find((r) => r.id === 'receiver.no-regression')!;
    const early = [page(100, 9, 109, 150), page(120, 109, 150, 150)];
    const repaired = [...early, page(5_000, 150, 221, 221)];
    const clean = grade({ journal: repaired, probes: [], state: [read(7000, 200, early.at(-1)!.n), read(7500, 6_000, repaired.at(-1)!.n)] });
    expect(clean.outcome, clean.summary).toBe('pass');
    expect(clean.summary).toMatch(/1 read of the older value 7000 came before the partner had been shown the newer event/);
    const superseded = [page(100, 9, 109, 221)];
    const broken = grade({ journal: superseded, probes: [], state: [read(7000, 200, superseded[0]!.n)] });
    expect(broken.outcome).toBe('fail');
    expect(broken.summary).toMatch(/^Received: the partner holds base_rate 7000 for 2026-12-21 read at \+200, although event 12 \(7000\) was never given to it as a value to apply, only as a superseded row \(§3\.3\) \/ Documented: /);
  });
});
