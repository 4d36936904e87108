/**
 * How many test files `npm test` runs at a time: two and a half for each core
 * the run may use, at least one. Most of the slowest files wait (on the
 * processes they start and on the events those record), so more files than
 * cores keep the cores busy; a fixed count sized for two cores overloaded one
 * core and left a larger machine idle. `os.availableParallelism()` honours the
 * CPU affinity, so `taskset -c 0 npm test` runs on one core as one core.
 * `PARTNER_API_TEST_WORKERS` overrides it (a positive whole number).
 */
import { availableParallelism } from 'node:os';

export const TEST_WORKERS_ENV = 'PARTNER_API_TEST_WORKERS';
export const FILES_PER_CORE = 2.5;

export function testWorkers(cores = availableParallelism(), override = process.env[TEST_WORKERS_ENV]): number {
  if (override !== undefined && override !== '') {
    const n = Number(override);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${TEST_WORKERS_ENV} must be a positive whole number, got ${JSON.stringify(override)}`);
    return n;
  }
  return Math.max(1, Math.round(cores * FILES_PER_CORE));
}
