/**
 * inSection and outsideSection, the domain's way into a store's sections:
 * a store several processes share (PgStore) runs the work as its section
 * (§4.5 rule 3's claims, every write after catching up); the memory and file
 * stores have none and run it at once, synchronously, as they always did.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.ts';
import { inSection, outsideSection, type Store } from './store.ts';

/** A memory store with sections that records what ran where. */
function sectioned(log: string[]): Store {
  const store = new MemoryStore() as Store;
  return Object.assign(store, {
    section: async <R>(work: () => R | Promise<R>, options?: { waitTurn?: boolean }) => {
      log.push(`section waitTurn=${options?.waitTurn ?? false}`);
      return work();
    },
    outside: async <R>(wait: () => Promise<R>) => {
      log.push('outside');
      return wait();
    },
  });
}

describe('inSection and outsideSection', () => {
  it('a store without sections runs the work at once and hands back its result as it is, not a promise', () => {
    const result = inSection(new MemoryStore(), () => 42);
    expect(result).toBe(42);
  });

  it('a store with sections runs the work as its section, with the options given', async () => {
    const log: string[] = [];
    const result = inSection(sectioned(log), () => 42, { waitTurn: true });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe(42);
    expect(log).toEqual(['section waitTurn=true']);
  });

  it('outsideSection waits as it is in a store without sections, and with the section suspended in one that has them', async () => {
    expect(await outsideSection(new MemoryStore(), async () => 'waited')).toBe('waited');
    const log: string[] = [];
    expect(await outsideSection(sectioned(log), async () => 'waited')).toBe('waited');
    expect(log).toEqual(['outside']);
  });
});
