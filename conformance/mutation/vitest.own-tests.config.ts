/**
 * The vitest run of the second score (stryker.own-tests.config.mjs,
 * `npm run mutation -- --own-tests`): the simulator's own tests of the
 * store, those that run the store in the test's own process, where Stryker
 * switches a mutant on. The store contract (memory, file and PostgreSQL
 * stores), the acknowledged-write and restart drills, the disk faults, and
 * how the domain enters a store's sections (store.test.ts), the records a
 * restart loads as text (lazy-table.test.ts), the snapshot's format,
 * loading, damage detection and sliced writer (snapshot.test.ts), the file-system steps
 * durability rests on (durable-fs.test.ts), the data directory's lock
 * (lock.test.ts).
 * Not here: the drills that start the simulator as a process (crash.test.ts,
 * data-dir-cli.test.ts, pg-processes.test.ts): a mutant Stryker switches in
 * its worker does not reach another process, so they could only pass.
 */
import { defineConfig } from 'vitest/config';

export const OWN_TESTS = [
  'simulator/store/store.test.ts',
  'simulator/store/lazy-table.test.ts',
  'simulator/store/snapshot.test.ts',
  'simulator/store/durable-fs.test.ts',
  'simulator/store/lock.test.ts',
  'simulator/store/memory-store.test.ts',
  'simulator/store/file-store.test.ts',
  'simulator/store/acknowledged.test.ts',
  'simulator/store/restart.test.ts',
  'simulator/store/disk-faults.test.ts',
  'simulator/store/pg-store.test.ts',
];

export default defineConfig({
  test: {
    include: OWN_TESTS,
    // One PostgreSQL cluster for the whole instance: Stryker reruns pg-store.test.ts per mutant, and a cluster of its own each time cost seconds.
    globalSetup: ['conformance/mutation/pg-cluster.global-setup.ts'],
    // As in npm test (vitest.config.ts): the files of one run share the modules they load, so a mutant's rerun of the file
    // store's four files loads the simulator and the store once, not four times (about a quarter of the CPU of such a rerun).
    // Each run (each of Stryker's mutant runs) still starts in a new worker, so a mutant switched on at load time is loaded anew.
    isolate: false,
    // The project's one cap (vitest.config.ts, build/test-caps.test.ts), never a budget; Stryker sets its own time-out per mutant on top.
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    reporters: ['default'],
  },
});
