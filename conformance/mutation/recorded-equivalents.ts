/**
 * The incremental file Stryker starts from, with the recorded equivalents
 * (equivalent-mutants.yaml) treated as settled: each keeps its recorded
 * survival, not run again, while its own code is unchanged. They took a
 * third of a whole run (each runs every check that reaches it, to survive
 * again). Stryker would rerun one whenever a check reaching it changed; the
 * seed names today's versions of the checks that reached it last time as the
 * ones that reached it, so a changed check brings none back, but a check
 * written since that reaches it does (Stryker sees a test added): a new check
 * may kill what the old ones could not (issue 40: the references-agree check
 * killed a mutant recorded equivalent, which whole runs kept as survived).
 * `npm run mutation -- --with-equivalents` runs them all again: after a check
 * is strengthened, it confirms each still survives.
 *
 * A whole run starts from them alone (everything else is tested afresh); an
 * incremental run from the last whole run's report, every other result kept
 * as Stryker's own diff allows.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkIdOf } from './settings.ts';
import { originalText, parseEquivalents, recordedEntry, type Equivalent, type StrykerMutant, type StrykerReport } from './summary.ts';

/** The committed list of recorded equivalents. */
export const EQUIVALENTS_FILE = new URL('./equivalent-mutants.yaml', import.meta.url);

/**
 * The recorded equivalents as every reader takes them (npm run mutation and the tests of the committed file): yaml's
 * own parse with its defaults, under which a duplicate key (a three-way merge once left two `reason`s in one entry)
 * is an error, never a silent last-wins.
 */
export function readEquivalents(file: URL = EQUIVALENTS_FILE): Equivalent[] {
  return parseEquivalents(parse(readFileSync(file, 'utf8')), file === EQUIVALENTS_FILE ? 'conformance/mutation/equivalent-mutants.yaml' : file.pathname);
}

export function equivalentSeed<R extends StrykerReport>(last: R, equivalents: Equivalent[], tests: { file: string; names: string[] }, keep: 'equivalents' | 'all' = 'equivalents', runs: (file: string) => boolean = () => true): { seed: R; seeded: number } {
  let seeded = 0;
  const ids = tests.names.map((_, i) => `now-${i}`);
  const lastCheck = new Map<string, string>();
  for (const file of Object.values(last.testFiles ?? {})) for (const t of file.tests) lastCheck.set(t.id, checkIdOf(t.name));
  // Today's tests of the checks that reached the mutant in the last run (all of today's where it recorded none).
  const reachedBefore = (m: StrykerMutant): string[] => {
    if (m.coveredBy === undefined || m.coveredBy.length === 0) return ids;
    const checks = new Set(m.coveredBy.map((id) => lastCheck.get(id) ?? id));
    return ids.filter((_, i) => checks.has(checkIdOf(tests.names[i]!)));
  };
  const files = Object.fromEntries(Object.entries(last.files).map(([file, f]) => {
    const mutants = f.mutants.flatMap((m) => {
      // Only results that are the recorded outcome: a recorded mutant that was killed or timed out runs again.
      // A mutant recorded not reached is not settled: a check written since may reach it, and a run must see that.
      const recorded = m.status === 'Survived' && f.source !== undefined && recordedEntry(equivalents, file, originalText(f.source, m.location), m)?.category === 'equivalent';
      if (recorded) seeded += 1;
      if (recorded) return [{ ...m, coveredBy: reachedBefore(m), killedBy: [] }];
      if (runsAgainAsStatic(m, file, runs)) return [];
      return keep === 'all' ? [m] : [];
    });
    return [file, { ...f, mutants }];
  }));
  // Without the test file's source, Stryker takes these tests as they are (no diff of their places).
  const today = tests.names.map((name, i) => ({ id: ids[i]!, name }));
  const before = keep === 'all' ? (last.testFiles?.[tests.file]?.tests ?? []) : [];
  const testFiles = { [tests.file]: { tests: [...before, ...today] } };
  return { seed: { ...last, files, testFiles }, seeded };
}

/**
 * A static mutant (module-load code) is reached by every test, which the report does not record (coveredBy is empty):
 * Stryker's diff then sees no covering test change and keeps its survival whatever tests were written since
 * (credentials.ts's whsec_ prefix stayed "survived" after a check came to look at it). It runs again, where this run
 * mutates its file (`runs`: a slice keeps the other results as they are).
 */
function runsAgainAsStatic(m: StrykerMutant, file: string, runs: (file: string) => boolean): boolean {
  return m.static === true && (m.status === 'Survived' || m.status === 'NoCoverage') && runs(file);
}

/**
 * The own tests' incremental file as their run starts from it (`npm run mutation -- --own-tests`): every result kept as
 * Stryker's own diff allows, but a mutant that survived or was not reached, unless recorded equivalent, runs again
 * wherever the run mutates its file (`runs`). Stryker reuses a survival while no test that covered it changed, and the
 * store's coverage per test misses tests written since, static or not: pg-store.ts's check of a damaged journal row
 * stayed "survived" after a test came to kill it (it fails that test when applied by hand). `again` counts them.
 */
export function ownTestsSeed<R extends StrykerReport>(last: R, equivalents: Equivalent[], runs: (file: string) => boolean): { seed: R; again: number } {
  let again = 0;
  const files = Object.fromEntries(Object.entries(last.files).map(([file, f]) => {
    const mutants = f.mutants.filter((m) => {
      if ((m.status !== 'Survived' && m.status !== 'NoCoverage') || !runs(file)) return true;
      const recorded = m.status === 'Survived' && f.source !== undefined && recordedEntry(equivalents, file, originalText(f.source, m.location), m)?.category === 'equivalent';
      if (recorded) return true;
      again += 1;
      return false;
    });
    return [file, { ...f, mutants }];
  }));
  return { seed: { ...last, files }, again };
}
