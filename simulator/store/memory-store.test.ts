/** The memory store against the Store contract (it keeps nothing: no durability cases), and what only it has. */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.ts';
import { runStoreContract, sampleBooking } from './store.contract.ts';

runStoreContract('MemoryStore', async () => new MemoryStore());

describe('MemoryStore.tableNames', () => {
  it('names the tables that hold records, and only those: a table read but never written, or emptied, is not named', () => {
    const store = new MemoryStore();
    expect(store.tableNames()).toEqual([]);
    store.transaction((tx) => {
      tx.put('bookings', '1', sampleBooking(1));
      tx.put('counters', 'booking', { value: 1 });
    });
    expect([...store.values('events')]).toEqual([]);
    expect(store.tableNames().sort()).toEqual(['bookings', 'counters']);
    store.transaction((tx) => tx.delete('counters', 'booking'));
    expect(store.tableNames()).toEqual(['bookings']);
  });
});
