import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{protocol,spec,simulator,conformance,scenarios,reports,certify,bench,cli,library,build,docs,watch}/**/*.test.ts'],
    testTimeout: 120_000,
    // Two files at a time on CI's two cores: the slowest files (certify and live runs) mostly wait on
    // deliveries and timers in real time, so a second worker fills the idle core (three saturate both).
    maxWorkers: 2,
    // The work tree after the run is what it was before (git status, ignored files included).
    globalSetup: ['./build/work-tree-guard.ts'],
    // fast-check failures print their seed; keep the reporter that shows them whole.
    reporters: ['default'],
  },
});
