/**
 * The vitest run Stryker drives (stryker.config.mjs, `npm run mutation`):
 * one test per conformance check, nothing else. The project's unit tests are
 * not in it, so a mutant counts as killed only when the conformance suite
 * fails it. Not part of `npm test` (vitest.config.ts includes `*.test.ts`
 * only; this file's test is `*.mutation.ts`).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['conformance/mutation/catalogue.mutation.ts'],
    // One check can wait on deliveries stepped through the virtual clock; Stryker sets its own time-out per mutant on top.
    testTimeout: 120_000,
    // Stryker's runner forces one thread per worker; the checks share nothing across tests (a fresh simulator each).
    reporters: ['default'],
  },
});
