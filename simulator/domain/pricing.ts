/** §4.5 rule 5 and §2.3: unit prices, advance and balance. */
import { NO_FAULTS, type Faults } from './faults.ts';

/**
 * If every unit has `stay_price`, those values are used; if any is missing,
 * the total is split evenly across units (rounded to paise, the last unit
 * taking the rounding remainder so the parts add up to the total).
 */
export function unitPrices(total: number, stayPrices: (number | undefined)[], faults: Faults = NO_FAULTS): number[] {
  if (stayPrices.every((p): p is number => typeof p === 'number')) return stayPrices;
  const n = stayPrices.length;
  // §4.5 rule 5: split in whole paise. Flooring the float `(total / n) * 100`
  // lost a paisa whenever it landed just below a whole number (1.16 / 2 * 100
  // is 57.999…, which split 1.16 as 0.57 + 0.59 instead of 0.58 + 0.58).
  const totalPaise = Math.round(total * 100);
  const sharePaise = Math.floor(totalPaise / n);
  const lastPaise = totalPaise - sharePaise * (n - 1);
  // A release that gives the remainder to every unit but the last (a fault): from three units the parts no longer
  // add up to the total (100.03 over 4 units is 25.03 × 3 + 25.00 = 100.09).
  const remainderAt = (i: number) => (faults.has('split-remainder-misplaced') ? i !== n - 1 : i === n - 1);
  return stayPrices.map((_, i) => (remainderAt(i) ? lastPaise : sharePaise) / 100);
}

/** §2.3: advance equals payment.amount_collected at create; balance is total minus advance. */
export function advanceAndBalance(total: number, amountCollected: number | undefined): { advance: number; balance: number } {
  const advance = amountCollected ?? 0;
  return { advance, balance: Math.round((total - advance) * 100) / 100 };
}
