import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './build/longest-first.ts';

export default defineConfig({
  test: {
    include: ['{protocol,spec,simulator,conformance,scenarios,reports,certify,bench,cli,library,build,docs,watch}/**/*.test.ts'],
    testTimeout: 120_000,
    // Five files at a time on CI's two cores. The slowest files (certify's drills, the docs pages, live runs) mostly
    // wait on timers and child processes in real time: they start first (build/longest-first.ts) and the CPU-bound
    // files fill the cores meanwhile. npm test: 9 min 58 s at two workers, 6 min 4 s at four, 5 min 19 s at five. The
    // real-time judgements that went red under that load were fixed at their cause (a recipe's check giving up, a
    // stale keep-alive socket, a child's output read before it closed, the reference partner's cursor on a gap).
    maxWorkers: 5,
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
