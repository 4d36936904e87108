// @ts-check
import base from '../../stryker.config.mjs';
import { mutateFor } from './scope.mjs';

/**
 * The second score (issue 40): the areas the conformance suite cannot reach, the store above all (the durability of every
 * acknowledged write: a check works on a fresh in-memory world and never restarts it), killed by the simulator's own tests
 * (vitest.own-tests.config.ts). `npm run mutation -- --own-tests` runs it; its score is reported apart from the suite's bite.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  ...base,
  mutate: mutateFor('own-tests'),
  vitest: {
    configFile: 'conformance/mutation/vitest.own-tests.config.ts',
    // The tests import the store directly: `related` is right here, but perTest coverage already picks the tests that reach a mutant.
    related: false,
  },
  incrementalFile: 'conformance/mutation/stryker-own-tests-incremental.json',
  htmlReporter: { fileName: 'reports/mutation/own-tests/index.html' },
  jsonReporter: { fileName: 'reports/mutation/own-tests/mutation.json' },
  // The store's tests wait on fsync and PostgreSQL, not on the virtual clock. A time-out counts as detected: at Stryker's
  // 1.5 × every time-out seen on a loaded machine was a survivor run slowly (manifest.ts: 7 of 7, each passing all own
  // tests when applied by hand), so 2 ×, as the suite's run (stryker.config.mjs).
  timeoutMS: 10_000,
  timeoutFactor: 2,
  tempDirName: '.stryker-tmp',
};
