/**
 * The seed of a whole run: the last whole run's report (the committed
 * incremental file) cut down to the mutants recorded equivalent
 * (equivalent-mutants.yaml). Handed to Stryker as its incremental file, it
 * lets Stryker's own diff reuse each of those results where the mutant's code
 * and every check reaching it are unchanged (a check's test name carries a
 * digest of its code: a changed or new check reruns what it reaches), and
 * every other mutant is tested afresh. A recorded equivalent can only
 * survive again, after running every check that reaches it: a third of a
 * whole run's time went to them. `npm run mutation -- --with-equivalents`
 * runs them all again.
 */
import { originalText, recordedEntry, type Equivalent, type StrykerReport } from './summary.ts';

export function equivalentSeed<R extends StrykerReport>(last: R, equivalents: Equivalent[]): { seed: R; seeded: number } {
  let seeded = 0;
  const files = Object.fromEntries(Object.entries(last.files).map(([file, f]) => {
    // Only results that are the recorded outcome: a recorded mutant that was killed or timed out is run again.
    const mutants = f.mutants.filter((m) => (m.status === 'Survived' || m.status === 'NoCoverage') && f.source !== undefined && recordedEntry(equivalents, file, originalText(f.source, m.location), m) !== undefined);
    seeded += mutants.length;
    return [file, { ...f, mutants }];
  }));
  return { seed: { ...last, files }, seeded };
}
