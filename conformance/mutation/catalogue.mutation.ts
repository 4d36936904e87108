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
 * Run by `npm run mutation` (conformance/mutation/run.ts), never by `npm test`.
 */
import { describe, it } from 'vitest';
import { catalogue } from '../catalogue.ts';
import { runConformance } from '../runner.ts';
import { killReason } from './kill.ts';
import { CHECK_TESTS, checkTestName, MUTATION_DELIVERY_TIMEOUT_MS, MUTATION_RUNS, MUTATION_SEED } from './settings.ts';

describe.sequential(CHECK_TESTS, () => {
  for (const check of catalogue()) {
    it(checkTestName(check), async () => {
      const report = await runConformance({ target: 'in-process', checks: [check.id], runs: MUTATION_RUNS, seed: MUTATION_SEED, deliveryTimeoutMs: MUTATION_DELIVERY_TIMEOUT_MS });
      const killed = killReason(report.results[0]!);
      if (killed !== null) throw new Error(killed);
    });
  }
});
