/** What the mutation run and its summary agree on. */
import { createHash } from 'node:crypto';
import type { CheckDefinition } from '../check.ts';
import { DELIVERY_TIMEOUT_MS } from '../../simulator/domain/delivery.ts';

/** fast-check cases per property check: enough for each property's boundaries, small enough that a mutant costs seconds. */
export const MUTATION_RUNS = 10;
/**
 * The in-process simulator's delivery time-out in the mutation run (real ms; the assumed 10 s otherwise), given only to
 * the checks that leave a post unanswered and wait, idle, for the platform to give up on it (WAITS_OUT_A_POST) on every
 * mutant they cover. No check asserts the 10 s. A tenth of the simulator's own constant, not a number of its own: a
 * mutant of that constant (`10 / SECOND`, a time-out of 10 µs under which no webhook is ever answered in time, §6.2)
 * reaches the run's deliveries and is killed; a literal here hid it, and it was recorded equivalent as "the retry
 * schedule is not shown".
 */
export const MUTATION_DELIVERY_TIMEOUT_MS = DELIVERY_TIMEOUT_MS / 10;
/**
 * The checks that wait out a post left unanswered. Every other check runs the simulator as `npm start` does, with no
 * time-out given: one given to every check hid a mutant that only the default reads (the worker's `timeoutMs ??
 * DELIVERY_TIMEOUT_MS` as `&&`, under which `npm start` times out every delivery at once; issue 40).
 */
const WAITS_OUT_A_POST = new Set(['webhooks.unanswered-is-a-failure', 'supersession.in-flight-then-failed', 'webhooks.undelivered-count-through-retention']);

/** The delivery time-out a check's simulator is given in the mutation run: none (the default) unless it waits out a post. */
export function mutationDeliveryTimeoutMs(checkId: string): number | undefined {
  return WAITS_OUT_A_POST.has(checkId) ? MUTATION_DELIVERY_TIMEOUT_MS : undefined;
}
/** One seed for every run, so a survivor is the same survivor on a rerun (and an incremental run may reuse results). */
export const MUTATION_SEED = 20260901;
/** Where Stryker and the summary write (ignored by git). */
export const REPORT_DIR = 'reports/mutation';

/** The vitest test name of a check: its id and a digest of its code. */
export function testName(checkId: string, digest: string): string {
  return `${checkId} [${digest}]`;
}

/** The describe block every check's test stands in (catalogue.mutation.ts): the first words of Stryker's test names. */
export const CHECK_TESTS = 'conformance check';

/**
 * The test name of a check in the mutation run. The digest of its code, its clauses and what the harness gives its
 * simulator (the delivery time-out) makes a changed check, or a check run otherwise, a new test to Stryker's
 * incremental mode, which then runs the mutants it reaches again: Stryker tells tests apart by name only, so a change
 * of the harness alone was invisible to it (the short time-out given to every check hid delivery-worker.ts 337:84).
 */
export function checkTestName(check: Pick<CheckDefinition, 'id' | 'run' | 'clauses'>): string {
  const harness = `deliveryTimeoutMs=${mutationDeliveryTimeoutMs(check.id) ?? 'default'}`;
  return testName(check.id, createHash('sha256').update(check.run.toString()).update(check.clauses.join(',')).update(harness).digest('hex').slice(0, 8));
}

/** The check id in a Stryker test name (`conformance check <id> [digest]`, with or without the describe's name). */
export function checkIdOf(testName: string): string {
  return (testName.startsWith(`${CHECK_TESTS} `) ? testName.slice(CHECK_TESTS.length + 1) : testName).replace(/ \[[0-9a-f]+\]$/, '');
}
