import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './build/longest-first.ts';

export default defineConfig({
  test: {
    include: ['{protocol,spec,simulator,conformance,scenarios,reports,certify,bench,cli,library,build,docs}/**/*.test.ts'],
    testTimeout: 120_000,
    // Three files at a time on two cores: the slowest files (certify's drills, the docs pages, live runs)
    // spend much of their time waiting on timers and child processes, and with two workers one of them
    // often held a core idle. They start first (build/longest-first.ts), the CPU-bound files fill in.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirstSequencer },
    // The work tree after the run is what it was before (git status, ignored files included), as far as the
    // run's own processes wrote it.
    globalSetup: ['./build/work-tree-guard.ts'],
    // fast-check failures print their seed; keep the reporter that shows them whole.
    reporters: ['default'],
  },
});
