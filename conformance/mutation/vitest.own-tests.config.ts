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
 * (lock.test.ts), and that every store module loads (modules-load.test.ts: a module that throws at load fails
 * a test there, where elsewhere it only errs the files importing it, which Stryker reads as survived).
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
  'simulator/store/file-store-promises.test.ts',
  'simulator/store/acknowledged.test.ts',
  'simulator/store/restart.test.ts',
  'simulator/store/disk-faults.test.ts',
  'simulator/store/pg-store.test.ts',
  'simulator/store/modules-load.test.ts',
];

export default defineConfig({
  test: {
    include: OWN_TESTS,
    // One PostgreSQL cluster for the whole instance: Stryker reruns pg-store.test.ts per mutant, and a cluster of its own each time cost seconds.
    globalSetup: ['conformance/mutation/pg-cluster.global-setup.ts'],
    // Unlike npm test (vitest.config.ts), each file loads its modules afresh. Shared (isolate: false), a module loaded by
    // an earlier run stayed loaded in the reused worker, so a static mutant (one in code run at load time: a constant, the
    // migrations list) was never switched on and "survived": journal.ts's read chunk of 16 / 1024 bytes, which fails 41
    // tests by hand, read as survived (issue 40). Isolated, it times out as it should. Costs CPU per run; buys the truth.
    isolate: true,
    // The project's one cap (vitest.config.ts, build/test-caps.test.ts), never a budget; Stryker sets its own time-out per mutant on top.
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    reporters: ['default'],
  },
});
