/**
 * Measuring helpers shared by the comparisons: statistics, warm-up plus
 * rounds within a time budget, and deadlines so that no measurement can run
 * unbounded.
 */

/** The median of a list (the mean of the middle two for an even length); NaN when empty. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The nearest-rank percentile `p` (0 to 100) of a list; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Milliseconds since `t0` (from `process.hrtime.bigint()`). */
export function msSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export interface RoundsOptions {
  /** Runs whose results are thrown away (JIT, caches, connection pools). */
  warmup: number;
  rounds: number;
  /** Wall-clock budget for the measured rounds: no new round starts once it is spent (one always runs). */
  budgetMs: number;
}

/** Runs `fn` `warmup` times, then up to `rounds` times within the budget; returns the measured results. */
export async function runRounds<T>(fn: (round: number) => Promise<T>, options: RoundsOptions): Promise<T[]> {
  for (let i = 0; i < options.warmup; i++) await fn(-1 - i);
  const started = Date.now();
  const results: T[] = [];
  for (let round = 0; round < options.rounds; round++) {
    if (round > 0 && Date.now() - started > options.budgetMs) break;
    results.push(await fn(round));
  }
  return results;
}

/** Runs a body of timed calls until `count` are done or `budgetMs` is spent; returns each call's milliseconds. */
export async function timeCalls(fn: () => Promise<unknown>, count: number, budgetMs: number): Promise<number[]> {
  const times: number[] = [];
  const started = Date.now();
  while (times.length < count && (times.length === 0 || Date.now() - started < budgetMs)) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(msSince(t0));
  }
  return times;
}

export class DeadlineExceeded extends Error {
  override name = 'DeadlineExceeded';
}

/**
 * Rejects with DeadlineExceeded when `promise` has not settled within `ms`
 * and calls `onTimeout` (to stop what is still running). Synchronous work
 * cannot be interrupted; every long measurement here yields to the event loop.
 */
export async function withDeadline<T>(what: string, ms: number, promise: Promise<T>, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new DeadlineExceeded(`${what} did not finish within ${(ms / 1000).toFixed(0)} s`));
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves on the next turn of the event loop after pending I/O. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
