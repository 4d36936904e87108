/** §4.5 rule 5 and §2.3: unit prices, advance and balance. */

/**
 * If every unit has `stay_price`, those values are used; if any is missing,
 * the total is split evenly across units (rounded to paise, the last unit
 * taking the rounding remainder so the parts add up to the total).
 */
export function unitPrices(total: number, stayPrices: (number | undefined)[]): number[] {
  if (stayPrices.every((p): p is number => typeof p === 'number')) return stayPrices;
  const n = stayPrices.length;
  const share = Math.floor((total / n) * 100) / 100;
  const last = Math.round((total - share * (n - 1)) * 100) / 100;
  return stayPrices.map((_, i) => (i === n - 1 ? last : share));
}

/** §2.3: advance equals payment.amount_collected at create; balance is total minus advance. */
export function advanceAndBalance(total: number, amountCollected: number | undefined): { advance: number; balance: number } {
  const advance = amountCollected ?? 0;
  return { advance, balance: Math.round((total - advance) * 100) / 100 };
}
