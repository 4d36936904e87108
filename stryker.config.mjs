// @ts-check
/**
 * `npm run mutation` (conformance/mutation/run.ts runs Stryker with this,
 * then writes the summary): StrykerJS mutates the simulator's behaviour and
 * only the conformance suite may kill a mutant. docs/conformance.md
 * "Mutation testing with StrykerJS" says how to read and rerun it.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  mutate: [
    'simulator/domain/**/*.ts',
    'simulator/http/**/*.ts',
    'simulator/webhooks/**/*.ts',
    // Unit tests are not behaviour.
    '!**/*.test.ts',
    // The fault catalogue (names and a Set): off in the run, its mutants only rename a fault or turn faults on (conformance --mutants proves those caught).
    '!simulator/domain/faults.ts',
    // The standalone receiver's command line (argument parsing and printing): a tool for people, no check talks to it.
    '!simulator/webhooks/receiver-cli.ts',
  ],
  testRunner: 'vitest',
  vitest: {
    // One test per conformance check, and no unit test: a mutant is killed by the conformance suite alone.
    configFile: 'conformance/mutation/vitest.mutation.config.ts',
    // The checks reach the simulator over HTTP through the runner, not by importing the mutated file: `related` would find no test.
    related: false,
  },
  // Each mutant runs only the checks whose run reached its code.
  coverageAnalysis: 'perTest',
  // Reruns (`npm run mutation -- --incremental`) reuse the results of the last run where neither the code nor the check changed.
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['html', 'json', 'clear-text', 'progress-append-only'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  appendPlugins: ['./conformance/mutation/switch-ignorer.mjs'],
  // The simulator's fault and reading switches, with the code only they run (reasons in the plugin and in each ignored mutant of the report).
  ignorers: ['simulator-switches'],
  // Other sessions share the two cores: a slow check is not a mutant's infinite loop.
  timeoutMS: 10_000,
  timeoutFactor: 2,
  // The sandbox needs the sources, not what runs wrote.
  ignorePatterns: ['dist', 'data', 'reports/*/', 'tmp', 'partner-state'],
  tempDirName: '.stryker-tmp',
};
