/**
 * §4.5 rule 5 and §2.3 pricing, as pure functions: unit prices from
 * `stay_price` or the even split (spec BookingCreateRequest x-assumption:
 * rounds down to paise, the remainder to the last unit), advance and balance.
 * Money is generated in whole paise, the unit the split is defined in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { advanceAndBalance, unitPrices } from './pricing.ts';

const paise = (rupees: number) => Math.round(rupees * 100);
const sumPaise = (parts: number[]) => parts.reduce((s, p) => s + paise(p), 0);

describe('unitPrices (§4.5 rule 5)', () => {
  it.each([
    ['every unit priced: the given values, even when they do not add up to the total', { total: 12000, given: [7000, 6000], want: [7000, 6000] }],
    ['every unit priced with zero: zero is a price, not a missing one', { total: 500, given: [0, 500], want: [0, 500] }],
    ['none priced: an even split', { total: 12000, given: [undefined, undefined], want: [6000, 6000] }],
    ['one missing: the given prices are ignored and the total is split', { total: 9000, given: [1000, undefined, 1000], want: [3000, 3000, 3000] }],
    ['a split that does not divide: round down to paise, the remainder to the last unit', { total: 1000, given: [undefined, undefined, undefined], want: [333.33, 333.33, 333.34] }],
    ['a split exact in paise stays exact (1.16 / 2 is 0.58, not 0.57 and 0.59)', { total: 1.16, given: [undefined, undefined], want: [0.58, 0.58] }],
    ['a split exact in paise stays exact (10.10 / 2 is 5.05 each)', { total: 10.1, given: [undefined, undefined], want: [5.05, 5.05] }],
    ['one unit takes the whole total', { total: 0.29, given: [undefined], want: [0.29] }],
    ['a total smaller than one paisa per unit', { total: 0.02, given: [undefined, undefined, undefined], want: [0, 0, 0.02] }],
  ] as const)('§4.5 rule 5: %s', (_name, { total, given, want }) => {
    expect(unitPrices(total, [...given])).toEqual(want);
  });

  it('§4.5 rule 5: the even split is floor(total / n) in paise for every unit but the last, which takes the rest; the parts add up to the total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 19 }), (totalPaise, n, missingAt) => {
        const total = totalPaise / 100;
        const given = Array.from({ length: n }, (_, i) => (i === missingAt % n ? undefined : 1234.5));
        const parts = unitPrices(total, given);
        const share = Math.floor(totalPaise / n);
        expect(parts).toHaveLength(n);
        parts.slice(0, -1).forEach((p) => expect(p).toBe(share / 100));
        expect(parts[n - 1]).toBe((totalPaise - share * (n - 1)) / 100);
        expect(sumPaise(parts)).toBe(totalPaise);
      }),
      { numRuns: 200 },
    );
  });

  it('§4.5 rule 5: when every unit has stay_price those values are used unchanged', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.array(fc.double({ min: 0, max: 1e7, noNaN: true }), { minLength: 1, maxLength: 20 }), (total, prices) => {
        expect(unitPrices(total, prices)).toEqual(prices);
      }),
      { numRuns: 100 },
    );
  });
});

describe('advanceAndBalance (§2.3)', () => {
  it.each([
    ['no payment: advance 0, balance the total', { total: 12000, collected: undefined, want: { advance: 0, balance: 12000 } }],
    ['partial payment', { total: 12000, collected: 3000.5, want: { advance: 3000.5, balance: 8999.5 } }],
    ['paid in full', { total: 12000, collected: 12000, want: { advance: 12000, balance: 0 } }],
    ['paise that float arithmetic gets wrong (0.3 - 0.1)', { total: 0.3, collected: 0.1, want: { advance: 0.1, balance: 0.2 } }],
  ] as const)('§2.3 advance = payment.amount_collected, balance = total − advance: %s', (_name, { total, collected, want }) => {
    expect(advanceAndBalance(total, collected)).toEqual(want);
  });

  it('§2.3: advance is amount_collected verbatim and advance + balance is the total, to the paisa', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), fc.integer({ min: 0, max: 2_000_000_000 }), (totalPaise, collectedPaise) => {
        const { advance, balance } = advanceAndBalance(totalPaise / 100, collectedPaise / 100);
        expect(advance).toBe(collectedPaise / 100);
        expect(balance).toBe((totalPaise - collectedPaise) / 100);
      }),
      { numRuns: 200 },
    );
  });
});
