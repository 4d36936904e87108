/**
 * The seed of a whole run: the last whole run's report (the committed
 * incremental file) cut down to the mutants recorded equivalent
 * (equivalent-mutants.yaml), handed to Stryker as its incremental file.
 * Stryker's own diff then keeps each one's recorded survival while its code
 * is unchanged, and tests every other mutant afresh: a recorded equivalent
 * is treated as a `// Stryker disable` comment with its reason would be, not
 * run. They took a third of a whole run (each runs every check that reaches
 * it, to survive again). Stryker would also rerun one whenever a check
 * reaching it changed; the seed names today's checks as the ones that
 * reached it, so only a change of its own code brings it back.
 * `npm run mutation -- --with-equivalents` runs them all again: after a
 * check is strengthened, it confirms that each still survives.
 */
import { originalText, recordedEntry, type Equivalent, type StrykerReport } from './summary.ts';

export function equivalentSeed<R extends StrykerReport>(last: R, equivalents: Equivalent[], tests: { file: string; names: string[] }): { seed: R; seeded: number } {
  let seeded = 0;
  const ids = tests.names.map((_, i) => `now-${i}`);
  const files = Object.fromEntries(Object.entries(last.files).map(([file, f]) => {
    // Only results that are the recorded outcome: a recorded mutant that was killed or timed out runs again.
    const mutants = f.mutants
      .filter((m) => (m.status === 'Survived' || m.status === 'NoCoverage') && f.source !== undefined && recordedEntry(equivalents, file, originalText(f.source, m.location), m) !== undefined)
      .map((m) => ({ ...m, coveredBy: ids, killedBy: [] }));
    seeded += mutants.length;
    return [file, { ...f, mutants }];
  }));
  // Without the test file's source, Stryker takes these tests as they are (no diff of their places).
  const testFiles = { [tests.file]: { tests: tests.names.map((name, i) => ({ id: ids[i]!, name })) } };
  return { seed: { ...last, files, testFiles }, seeded };
}
