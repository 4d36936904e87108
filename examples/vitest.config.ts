// The examples are run against a deployment on purpose (npm test runs them against the simulator from conformance/library-example.test.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['examples/**/*.test.ts'], testTimeout: 1_800_000 } });
