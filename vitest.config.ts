import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{spec,simulator,conformance,scenarios,reports}/**/*.test.ts'],
    testTimeout: 30_000,
    // fast-check failures print their seed; keep the reporter that shows them whole.
    reporters: ['default'],
  },
});
