/** The memory store against the Store contract (it keeps nothing: no durability cases). */
import { MemoryStore } from './memory-store.ts';
import { runStoreContract } from './store.contract.ts';

runStoreContract('MemoryStore', async () => new MemoryStore());
