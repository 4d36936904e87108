/**
 * Each check of the catalogue as its own vitest test, run in-process (the
 * simulator is imported into this worker, so Stryker's mutant switch is the
 * code the check talks to). A test fails exactly when the conformance run
 * would under `--fail-on-not-applicable`: the check's outcome is `failed`,
 * `errored` or `not_applicable`. In-process every check of the catalogue
 * applies to the seeded world (Stryker's dry run proves it on the code as
 * written), so a check that finds nothing to work on there (no free night,
 * no unit to pin) was answered otherwise by the simulator. With Stryker's
 * `coverageAnalysis: 'perTest'` a mutant runs only the checks that reached it.
 *
 * Two things a run needs beside the checks, both about code that runs when modules load:
 * - A suite that does not load is a run that fails (`npm run conformance` stops there): Stryker activates a static
 *   mutant before any import, and one that throws then (the contract loader, which the suite's modules and the
 *   simulator share, or a module's constant) left no test to fail, so Stryker counted it survived. It is one
 *   failing test here.
 * - Before each check the process's contract is forgotten, so the check's simulator loads spec/openapi.yaml again
 *   under the mutant, as a process starting does: a loader mutant reaches every check's simulator, and every check
 *   that reaches it covers it (loaded once, only the first check did, and Stryker ran only that one). A load costs
 *   about 0.3 s a check, so a mutant run does it only for a mutant of the loader (scope.mjs's area).
 *
 * Run by `npm run mutation` (conformance/mutation/run.ts), never by `npm test`.
 */
import { readFileSync } from 'node:fs';
import { describe, inject, it } from 'vitest';
import { AREAS } from './scope.mjs';
import { killReason } from './kill.ts';
import { CHECK_TESTS, checkTestName, mutationDeliveryTimeoutMs, MUTATION_RUNS, MUTATION_SEED } from './settings.ts';

/** The test a suite that fails to load stands as (its name is no check's: the summary counts it apart). */
const SUITE_LOADS = 'the conformance suite and the simulator load';

/** What Stryker's vitest runner provides the tests (nothing outside a Stryker run). */
const provided = inject as (key: string) => unknown;
const mode = provided('mode');
const namespace = provided('globalNamespace');

/** The contract loader's mutants in this (instrumented) copy of the sources: Stryker's switch names each by its id. */
const loaderMutants = new Set(mode === 'mutant'
  ? AREAS.find((a) => a.area === 'contract loader')!.files.flatMap((file) => [...readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').matchAll(/stryMutAct_\w+\("(\d+)"\)/g)].map((m) => m[1]!))
  : []);

/** Whether this check's world loads the contract anew: always, but in a mutant run only for a mutant of the loader. */
function reloadsContract(): boolean {
  if (mode !== 'mutant') return true;
  const active = typeof namespace === 'string' ? (globalThis as Record<string, { activeMutant?: unknown } | undefined>)[namespace]?.activeMutant : undefined;
  return loaderMutants.has(String(active));
}

const loaded = await Promise.all([import('../catalogue.ts'), import('../runner.ts'), import('../../spec/contract.ts')]).catch((error: unknown) => error);

describe.sequential(CHECK_TESTS, () => {
  if (!Array.isArray(loaded)) {
    it(SUITE_LOADS, () => {
      throw loaded;
    });
    return;
  }
  const [{ catalogue }, { runConformance }, { forgetLoadedContract }] = loaded;
  for (const check of catalogue()) {
    it(checkTestName(check), async () => {
      if (reloadsContract()) forgetLoadedContract();
      const report = await runConformance({ target: 'in-process', checks: [check.id], runs: MUTATION_RUNS, seed: MUTATION_SEED, deliveryTimeoutMs: mutationDeliveryTimeoutMs(check.id) });
      const killed = killReason(report.results[0]!);
      if (killed !== null) throw new Error(killed);
    });
  }
});
