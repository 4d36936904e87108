/** The catch-up decision of §6.8, table by table. */
import { describe, expect, it } from 'vitest';
import { cursorBeyondRetention, decideCatchUp, type CatchUpObservation } from './catch-up.ts';

const seen = (o: Partial<CatchUpObservation>): CatchUpObservation => ({
  cursor: 40, firstAfterCursor: 41, latestSequence: 55, knownProperties: [101, 102], coveredProperties: [101, 102], driftedProperties: [], ...o,
});

const cases: [string, { given: CatchUpObservation; recovery?: 'snapshots' | 'sync' }, string[]][] = [
  ['ordinary outage: replay from the cursor', { given: seen({}) }, ['replay 40']],
  ['up to date: nothing', { given: seen({ firstAfterCursor: null, latestSequence: 40 }) }, []],
  ['superseded rows included, the next retained is cursor + 1: replay', { given: seen({ firstAfterCursor: 41 }) }, ['replay 40']],
  ['cold start with snapshots', { given: seen({ cursor: null }) }, ['rebuild snapshots', 'poll-bookings beginning']],
  ['cold start with POST /sync', { given: seen({ cursor: null }), recovery: 'sync' }, ['rebuild sync', 'poll-bookings beginning']],
  ['beyond retention: the first retained event is past cursor + 1', { given: seen({ firstAfterCursor: 48 }) }, ['rebuild snapshots', 'poll-bookings stored']],
  ['beyond retention: nothing retained after the cursor but newer events exist', { given: seen({ firstAfterCursor: null, latestSequence: 60 }) }, ['rebuild snapshots', 'poll-bookings stored']],
  ['a new property: snapshots of it', { given: seen({ coveredProperties: [101, 102, 109] }) }, ['replay 40', 'snapshot-properties 109']],
  ['a drifted property: a snapshot of it', { given: seen({ driftedProperties: [102], latestSequence: 40, firstAfterCursor: null }) }, ['snapshot-properties 102']],
  ['a property no longer covered: forgotten', { given: seen({ coveredProperties: [101] }) }, ['replay 40', 'forget-properties 102']],
  ['a drifted property the partner does not hold is not "repaired"', { given: seen({ driftedProperties: [999], latestSequence: 40, firstAfterCursor: null }) }, []],
];

describe('decideCatchUp (§6.8)', () => {
  it.each(cases)('%s', (_name, { given, recovery }, want) => {
    const steps = decideCatchUp(given, recovery ?? 'snapshots').map((s) => {
      switch (s.do) {
        case 'replay': return `replay ${s.after}`;
        case 'rebuild': return `rebuild ${s.with}`;
        case 'poll-bookings': return `poll-bookings ${s.since}`;
        default: return `${s.do} ${s.properties.join(',')}`;
      }
    });
    expect(steps).toEqual(want);
  });

  it('every step says which rule it follows', () => {
    for (const [, { given }] of cases) for (const step of decideCatchUp(given, 'snapshots')) expect(step.why).toMatch(/§|covered/);
  });

  it('cursorBeyondRetention: a cold start is not a gap', () => {
    expect(cursorBeyondRetention({ cursor: null, firstAfterCursor: 5, latestSequence: 9 })).toBe(false);
    expect(cursorBeyondRetention({ cursor: 3, firstAfterCursor: 4, latestSequence: 9 })).toBe(false);
    expect(cursorBeyondRetention({ cursor: 3, firstAfterCursor: 5, latestSequence: 9 })).toBe(true);
  });
});
