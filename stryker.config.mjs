// @ts-check
import { mutateFor } from './conformance/mutation/scope.mjs';

/**
 * `npm run mutation` (conformance/mutation/run.ts runs Stryker with this,
 * then writes the summary): StrykerJS mutates the simulator's behaviour and
 * only the conformance suite may kill a mutant (the suite's bite). docs/conformance.md
 * "Mutation testing with StrykerJS" says how to read and rerun it.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  // The areas the conformance suite must kill, and every file or region left out with its reason: conformance/mutation/scope.mjs
  // (the store is scored apart, by the simulator's own tests: conformance/mutation/stryker.own-tests.config.mjs).
  mutate: mutateFor('suite'),
  testRunner: 'vitest',
  vitest: {
    // One test per conformance check, and no unit test: a mutant is killed by the conformance suite alone.
    configFile: 'conformance/mutation/vitest.mutation.config.ts',
    // The checks reach the simulator over HTTP through the runner, not by importing the mutated file: `related` would find no test.
    related: false,
  },
  // Each mutant runs only the checks whose run reached its code.
  coverageAnalysis: 'perTest',
  // Reruns (`npm run mutation -- --incremental`) reuse the results of the last full run where neither the code nor a covering check changed.
  // Committed with the summary (a full run writes both), so a clone's first rerun after a one-file change is incremental too.
  incrementalFile: 'conformance/mutation/stryker-incremental.json',
  reporters: ['html', 'json', 'clear-text', 'progress-append-only'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  appendPlugins: ['./conformance/mutation/ignorer.mjs'],
  // The simulator's fault and reading switches with the code only they run, and message wording (reasons in the plugin and on each ignored mutant of the report).
  ignorers: ['switches-and-wording'],
  // A mutant that stops deliveries or loops makes a check wait: a time-out at 2 × the checks' own time + 5 s. Much of a run is spent
  // waiting for time-outs, but at Stryker's 1.5 × a survivor was seen timing out on the shared cores (counted detected: a false kill).
  timeoutMS: 5_000,
  timeoutFactor: 2,
  // The sandbox needs the sources, not what runs wrote.
  ignorePatterns: ['dist', 'data', '/reports', 'tmp', 'partner-state'],
  tempDirName: '.stryker-tmp',
};
