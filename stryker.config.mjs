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
    // The loopback receiver is the suite's own instrument (conformance/suites/receiver.ts judges deliveries with it), not the platform: its mutants weaken the judge, never the simulator.
    '!simulator/webhooks/receiver.ts',
    // The receiver's command line (`npm run receiver`): a tool for people around that instrument.
    '!simulator/webhooks/receiver-cli.ts',
    // The listening server's transport below the API (issue 17/29): the envelope for what Node's HTTP parser refuses, the socket time
    // limits, and the one function wiring them. No request the document describes reaches this code (§7 covers requests that reach the
    // API), it states no rule for a request that is not HTTP the server can read, and the in-process target listens with Koa's own server.
    '!simulator/http/node-refusals.ts',
    '!simulator/http/server-timeouts.ts',
    '!simulator/http/server.ts',
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
  ignorePatterns: ['dist', 'data', 'reports/*/', 'tmp', 'partner-state'],
  tempDirName: '.stryker-tmp',
};
