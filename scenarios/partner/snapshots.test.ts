/** Snapshot windows of at most 92 nights (§4.8, §8) and the nights missing from a copy. */
import { describe, expect, it } from 'vitest';
import { missingRanges, snapshotWindows } from './snapshots.ts';
import { emptyPropertyCopy } from './state.ts';

describe('snapshotWindows', () => {
  it.each([
    ['one night', '2026-10-01', '2026-10-01', [['2026-10-01', '2026-10-01']]],
    ['exactly 92 nights', '2026-10-01', '2026-12-31', [['2026-10-01', '2026-12-31']]],
    ['93 nights', '2026-10-01', '2027-01-01', [['2026-10-01', '2026-12-31'], ['2027-01-01', '2027-01-01']]],
    ['120 nights', '2026-09-15', '2027-01-12', [['2026-09-15', '2026-12-15'], ['2026-12-16', '2027-01-12']]],
    ['365 nights', '2026-09-15', '2027-09-14', [['2026-09-15', '2026-12-15'], ['2026-12-16', '2027-03-17'], ['2027-03-18', '2027-06-17'], ['2027-06-18', '2027-09-14']]],
  ] as const)('%s', (_name, from, to, want) => {
    const windows = snapshotWindows(from, to);
    expect(windows.map((w) => [w.from, w.to])).toEqual(want);
  });

  it('an empty window (to before from) yields nothing', () => {
    expect(snapshotWindows('2026-10-02', '2026-10-01')).toEqual([]);
  });
});

describe('missingRanges', () => {
  it('finds the runs of nights the copy does not hold', () => {
    const copy = emptyPropertyCopy(101, 'SEA-VIEW');
    for (const d of ['2026-10-02', '2026-10-03', '2026-10-06']) copy.nights.rates[d] = { value: {}, sequence: 1 };
    expect(missingRanges(copy, 'rates', '2026-10-01', '2026-10-07')).toEqual([
      { from: '2026-10-01', to: '2026-10-01' }, { from: '2026-10-04', to: '2026-10-05' }, { from: '2026-10-07', to: '2026-10-07' },
    ]);
    expect(missingRanges(copy, 'availability', '2026-10-01', '2026-10-02')).toEqual([{ from: '2026-10-01', to: '2026-10-02' }]);
    expect(missingRanges(undefined, 'rates', '2026-10-01', '2026-10-01')).toEqual([{ from: '2026-10-01', to: '2026-10-01' }]);
  });
});
