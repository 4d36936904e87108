/**
 * `npm run bite-evidence`: runs every simulator fault against the check that
 * must catch it (in-process) and writes conformance/bite-evidence.ts, the
 * committed record of which clause each caught breach was caught under. The
 * mutant counts are kept as they are unless --mutation FILE names a
 * StrykerJS JSON report (reports/mutation/mutation.json): a full run's
 * replaces them; with --merge, a partial run's (`--mutate FILE`) adds to
 * them, each clause keeping the larger count, so kills seen file by file
 * are not lost (--mutation repeated: each partial run's report in turn, the
 * faults run once). A kill is evidence that a check bites under its clause,
 * whichever run observed it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BITE_EVIDENCE } from '../bite-evidence.ts';
import { evidenceModule, faultKills, type BiteEvidence } from '../bite.ts';
import { mergeKills, mutantKills } from './mutant-kills.ts';
import { runMutants } from '../mutants.ts';

const { values } = parseArgs({ options: { mutation: { type: 'string', multiple: true }, merge: { type: 'boolean' }, help: { type: 'boolean' } }, strict: true });
if (values.help) {
  process.stdout.write('Usage: npm run bite-evidence [-- --mutation reports/mutation/mutation.json [--merge]]   (--merge: --mutation may be repeated)\n');
  process.exit(0);
}
// Usage first: the faults' run takes a minute.
if (values.merge && !values.mutation) {
  process.stderr.write('error: --merge needs --mutation FILE\n');
  process.exit(2);
}
if (values.mutation && values.mutation.length > 1 && !values.merge) {
  process.stderr.write('error: several --mutation reports need --merge (a whole run\'s report replaces the counts on its own)\n');
  process.exit(2);
}
const { results, score } = await runMutants({ runs: 10, seed: 7 });
if (score < 1) {
  process.stderr.write(`error: ${results.filter((r) => !r.detected).map((r) => r.fault).join(', ')} not detected by their checks: fix that before recording evidence\n`);
  process.exit(1);
}
let mutants = BITE_EVIDENCE.mutants;
let mutationRun = BITE_EVIDENCE.mutationRun;
for (const file of values.mutation ?? []) {
  const read = mutantKills(JSON.parse(readFileSync(file, 'utf8')));
  mutants = values.merge ? mergeKills(mutants, read) : read;
  mutationRun = new Date().toISOString();
}
const evidence: BiteEvidence = { faults: faultKills(results), mutants, mutationRun };
writeFileSync(new URL('../bite-evidence.ts', import.meta.url), evidenceModule(evidence));
process.stdout.write(`conformance/bite-evidence.ts: ${Object.keys(evidence.faults).length} faults, ${Object.values(mutants).reduce((a, b) => a + b, 0)} mutant kills over ${Object.keys(mutants).length} clauses\n`);
