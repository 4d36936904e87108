import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './build/longest-first.ts';
import { testWorkers } from './build/test-workers.ts';

export default defineConfig({
  test: {
    include: ['{protocol,spec,simulator,conformance,scenarios,reporting,certify,bench,cli,library,build,docs,watch}/**/*.test.ts'],
    // A cap far above the need, never a budget a verdict rests on (issue 38): a test waits for the events it needs, so
    // a slow or loaded machine makes it slower, not red. No test sets a shorter one; a hung test still ends the run.
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    // Files at a time from the cores this run may use (os.availableParallelism(): `taskset -c 0` gives 1), two and a
    // half a core: the slowest files (certify's drills, the docs pages, live runs) mostly wait on child processes and
    // the platform's record of events, and the CPU-bound files fill the cores meanwhile (build/test-workers.ts).
    maxWorkers: testWorkers(),
    sequence: { sequencer: LongestFirstSequencer },
    // A worker keeps the modules it loaded from one file to the next: the contract, its compiled validators
    // and the simulator are loaded once per worker instead of once per file (about 40% of the CPU time of the
    // simulator's HTTP tests). Test files are still evaluated afresh; no test mocks a module.
    isolate: false,
    // The work tree after the run is what it was before (git status, ignored files included), as far as the
    // run's own processes wrote it. The commands tests start as processes run from a build of the sources made once
    // per run (build/test-build.ts, build/node-command.ts), not through tsx: half a second of CPU less per process.
    globalSetup: ['./build/work-tree-guard.ts', './build/test-build.ts'],
    // fast-check failures print their seed; keep the reporter that shows them whole.
    reporters: ['default'],
  },
});
