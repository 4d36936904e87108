/**
 * When a mutant is killed: the check's outcome is what the conformance run
 * under `--fail-on-not-applicable` fails on (`failed`, `errored`, or
 * `not_applicable`: on the seeded world every check applies, so a check with
 * nothing to work on was answered otherwise by the mutated simulator). One
 * rule for Stryker's mutants (catalogue.mutation.ts) and the contract's
 * (contract-mutation.ts).
 */
import type { CheckResult } from '../types.ts';

/** Why the result kills a mutant (the runner's words, ending with the clause a failure names), or null when the check passed. */
export function killReason(result: CheckResult): string | null {
  if (result.outcome === 'failed') {
    const f = result.failure!;
    return `${result.id} failed: ${f.kind}: received ${f.received}; documented ${f.documented} (${f.clause})`;
  }
  if (result.outcome === 'errored') return `${result.id} errored: ${result.error?.split('\n')[0]}`;
  if (result.outcome === 'not_applicable') return `${result.id} not applicable in-process (--fail-on-not-applicable): ${result.reason}`;
  return null;
}
