/**
 * The vitest helper (`import { itConforms } from 'partner-api-conformance/vitest'`):
 * one test that runs the conformance suite and fails naming each failed
 * check and its replay command, or the gate the run did not meet.
 * vitest is the caller's (an optional peer dependency).
 */
import { it } from 'vitest';
import { assertConformance, type ConformanceOptions } from '../conformance/runner.ts';

/**
 * `options` may be a function: it is called inside the test, so a missing
 * environment variable fails the test (naming it) instead of the file.
 */
export function itConforms(title: string, options: ConformanceOptions | (() => ConformanceOptions | Promise<ConformanceOptions>), timeoutMs = 300_000): void {
  it(title, async () => {
    const resolved = typeof options === 'function' ? await options() : options;
    await assertConformance(resolved);
  }, timeoutMs);
}
