/**
 * `npm run mutation`: StrykerJS over the simulator (stryker.config.mjs),
 * killed by the conformance suite alone, then the summary.
 *
 *   npm run mutation                      every mutant; refreshes the incremental file
 *   npm run mutation -- --incremental     only mutants whose code or covering checks changed
 *   npm run mutation -- --mutate simulator/domain/pricing.ts    one file (or glob); leaves the incremental file alone
 *   npm run mutation -- --area protocol   one area of scope.mjs, as a slice of the whole run (incremental file and summary)
 *   npm run mutation -- --own-tests       the second score: the store, killed by the simulator's own tests
 *   npm run mutation -- --own-tests --mutate simulator/store/lock.ts   one file of it, added to the others' last results
 *   npm run mutation -- --contract        the contract's mutants (spec/openapi.yaml), cached by document and sources
 *
 * Writes reports/mutation/ (Stryker's index.html and mutation.json,
 * summary.json and summary.md). A run over the whole scope also writes what
 * is committed: the summary, conformance/mutation/last-summary.{json,md},
 * and Stryker's incremental file, conformance/mutation/stryker-incremental.json.
 * The own tests' runs are always incremental: each adds its files' results to
 * conformance/mutation/stryker-own-tests-incremental.json (committed), which
 * the summary reads, so runs of single files add up to one score.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { catalogue } from '../catalogue.ts';
import { equivalentSeed, ownTestsSeed, readEquivalents } from './recorded-equivalents.ts';
import { AREAS, mutateFor, placeOf } from './scope.mjs';
import { REPORT_DIR } from './settings.ts';
import { census } from './census.ts';
import { contractMutants, LIMIT_KEYWORDS, type ContractKeyword } from './contract-mutants.ts';
import { runContractMutation, type ContractRun } from './contract-mutation.ts';
import { readContractEquivalents } from './contract-equivalents.ts';
import { changedSince, contractPart, filesRun, headline, headlineMarkdown, ownTestsRun, withCommittedOwnTests, type Headline, type Provenance } from './headline.ts';
import { summarise, summaryMarkdown, type MutationSummary, type StrykerReport } from './summary.ts';
import { contractDocument } from '../../spec/contract.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LAST = new URL('./last-summary', import.meta.url);
/** stryker.config.mjs's incrementalFile: the last whole run's results, committed. */
const INCREMENTAL = join(ROOT, 'conformance/mutation/stryker-incremental.json');
/** stryker.own-tests.config.mjs's incrementalFile: every own-tests run's results, each file as its last run left it, committed. */
const OWN_INCREMENTAL = join(ROOT, 'conformance/mutation/stryker-own-tests-incremental.json');

const SUITE_AREAS: string[] = AREAS.filter((a) => a.killer === 'suite').map((a) => a.area);

const USAGE = `usage: npm run mutation [-- --incremental] [-- --with-equivalents] [-- --mutate GLOB[,GLOB…] | --area AREA] [-- --concurrency N]

  (no flag)        every mutant of stryker.config.mjs (the suite's areas of scope.mjs); refreshes
                   the incremental file and the committed summary (conformance/mutation/). A mutant
                   recorded equivalent keeps its last result, not run, while its code is unchanged and no
                   check written since reaches it (recorded-equivalents.ts); all else is tested afresh
  --with-equivalents  the same, with the recorded equivalents run again too (after strengthening a
                   check: each should still survive)
  --incremental    rerun only what changed since the incremental file (code or a covering check;
                   a recorded equivalent only when its code changed or a new check reaches it)
  --mutate GLOB    only these files (Stryker's --mutate); the incremental file and the committed
                   summary are left alone
  --area AREA      one area of conformance/mutation/scope.mjs as a slice of the whole run: incremental
                   within the area, every other area's last results kept; writes the incremental file and
                   the committed summary, which says which run last measured each area (a whole run in
                   slices that each finish). Areas: ${SUITE_AREAS.map((a) => JSON.stringify(a)).join(', ')}
  --concurrency N  Stryker's test-runner processes (default: one per core, one fewer above four cores)
  --own-tests      the second score instead (conformance/mutation/stryker.own-tests.config.mjs): the store,
                   killed by the simulator's own tests; with --mutate, only those files. Always incremental:
                   each run adds its files' results to conformance/mutation/stryker-own-tests-incremental.json
                   (the other files keep theirs), which --summary-only reads; a file whose code changed since
                   its run is out of the figures, named as to run again
  --contract       the contract mutator instead: one-step mutants of the limits, defaults, enum values and
                   required entries of spec/openapi.yaml the simulator enforces, each against a simulator built
                   from it (results cached in conformance/mutation/contract-incremental.json); a run of every mutant
                   rewrites the contract section of the committed summary, and only it (recorded equivalents:
                   conformance/mutation/contract-equivalents.yaml)
  --keyword K[,K]  with --contract: only these keywords (minLength, maxLength, minimum, maximum, minItems,
                   maxItems, default, enum, required)
  --only TEXT      with --contract: only mutants whose id contains TEXT
  --summary-only   write the summary of the last runs' reports (reports/mutation/), run nothing; it is also the
                   committed summary: each area says which run measured it, or that none has yet
  --help           this text
`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        incremental: { type: 'boolean', default: false },
        mutate: { type: 'string' },
        area: { type: 'string' },
        concurrency: { type: 'string' },
        'with-equivalents': { type: 'boolean', default: false },
        'summary-only': { type: 'boolean', default: false },
        'own-tests': { type: 'boolean', default: false },
        contract: { type: 'boolean', default: false },
        keyword: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.mutate !== undefined && args.mutate.trim() === '') {
    process.stderr.write(`error: --mutate needs a file or glob\n${USAGE}`);
    return 2;
  }
  if (args.area !== undefined && (args.mutate !== undefined || args.contract || args['own-tests'] || args['with-equivalents'] || args['summary-only'])) {
    process.stderr.write(`error: --area is a slice of the suite's whole run: it goes with no --mutate, --contract, --own-tests, --with-equivalents or --summary-only\n${USAGE}`);
    return 2;
  }
  if (args.area !== undefined && !SUITE_AREAS.includes(args.area)) {
    process.stderr.write(`error: --area ${JSON.stringify(args.area)} is not an area the suite kills: ${SUITE_AREAS.map((a) => JSON.stringify(a)).join(', ')}\n${USAGE}`);
    return 2;
  }
  if (args.concurrency !== undefined && !/^[1-9]\d*$/.test(args.concurrency)) {
    process.stderr.write(`error: --concurrency must be a whole number ≥ 1, got ${JSON.stringify(args.concurrency)}\n${USAGE}`);
    return 2;
  }
  if ((args.keyword !== undefined || args.only !== undefined) && !args.contract) {
    process.stderr.write(`error: --keyword and --only go with --contract\n${USAGE}`);
    return 2;
  }
  const keywords = args.keyword?.split(',').map((k) => k.trim());
  const unknownKeyword = keywords?.find((k) => !KEYWORDS.includes(k));
  if (unknownKeyword !== undefined) {
    process.stderr.write(`error: --keyword ${JSON.stringify(unknownKeyword)} is not one of ${KEYWORDS.join(', ')}\n${USAGE}`);
    return 2;
  }
  if (args.contract && !args['summary-only']) {
    const started = Date.now();
    const run = await runContractMutation({
      keywords: keywords as ContractKeyword[] | undefined, only: args.only,
      onResult: (r, i, n) => process.stdout.write(`${i}/${n} ${r.status}${r.cached ? ' (cached)' : ''} ${r.id}${r.killedBy ? ` by ${r.killedBy}` : ''}\n`),
    });
    const dir = join(ROOT, REPORT_DIR);
    mkdirSync(dir, { recursive: true });
    const cachedResults = run.results.filter((r) => r.cached).length;
    const provenance = { ...(cachedResults > 0 ? { note: `${cachedResults} of ${run.results.length} results from conformance/mutation/contract-incremental.json, measured by an earlier run of the same document and sources` } : {}), command: `npm run mutation -- --contract${args.keyword ? ` --keyword ${args.keyword}` : ''}${args.only ? ` --only ${JSON.stringify(args.only)}` : ''}`, when: new Date().toISOString().slice(0, 10), minutes: Math.round((Date.now() - started) / 6000) / 10 };
    writeFileSync(join(dir, 'contract.json'), `${JSON.stringify({ ...provenance, ...run }, null, 1)}\n`);
    const part = contractPart({ run, provenance, equivalents: readContractEquivalents(), ids: contractMutants(contractDocument()).map((m) => m.id) });
    const all = part.scores.at(-1)!;
    const limits = part.scores.find((r) => r.keyword === 'limits and defaults')!;
    // A run of every mutant replaces the committed summary's contract section, and nothing else of it: the other areas'
    // rows stay those of the runs that measured them (a partial contract run leaves the committed summary alone).
    const whole = run.chosen === run.mutants;
    if (whole) writeContractSection(part, provenance);
    if (part.entryErrors.length > 0) process.stderr.write(`error: conformance/mutation/contract-equivalents.yaml:\n${part.entryErrors.map((e) => `  ${e}`).join('\n')}\n`);
    process.stdout.write(`\ncontract mutants: ${all.killed} of ${all.mutants} killed, ${all.survived} survived, ${all.noCoverage} not reached, ${all.equivalent} recorded equivalent (${run.mutants} in the document); score ${all.score ?? 'n/a'}%, limits and defaults ${limits.score ?? 'n/a'}%; ${REPORT_DIR}/contract.json${whole ? ' and the contract section of conformance/mutation/last-summary.md' : ''}\n`);
    return part.entryErrors.length > 0 ? 1 : 0;
  }
  const started = Date.now();
  const area = args.area;
  const full = args.mutate === undefined && area === undefined;
  let seeded: number | undefined;
  if (args['own-tests'] && !args['summary-only']) {
    // Incremental with --mutate too: Stryker 9 keeps, from the incremental file, the results of every file outside --mutate
    // (diffed against today's code) and writes them back with this run's, so single files' runs add up to one result.
    // It starts from a seed of that file in which the survivors of the files it mutates run again (ownTestsSeed).
    const seed = writeOwnTestsSeed(full ? undefined : args.mutate!);
    const flags = ['run', 'conformance/mutation/stryker.own-tests.config.mjs', '--incremental', '--incrementalFile', seed, ...(full ? [] : ['--mutate', args.mutate!]), ...(args.concurrency ? ['--concurrency', args.concurrency] : [])];
    const before = lastOwnTestsRun();
    const ran = spawnSync(process.execPath, [strykerBin(), ...flags], { cwd: ROOT, stdio: 'inherit' });
    if (ran.status !== 0) {
      process.stderr.write(`error: stryker exited ${ran.status ?? ran.signal}\n`);
      return 1;
    }
    copyFileSync(seed, OWN_INCREMENTAL);
    const dir = join(ROOT, REPORT_DIR, 'own-tests');
    const report = JSON.parse(readFileSync(OWN_INCREMENTAL, 'utf8')) as StrykerReport;
    const now: Provenance = { command: `npm run mutation -- --own-tests${full ? '' : ` --mutate ${args.mutate}`}`, when: new Date().toISOString().slice(0, 10), minutes: Math.round((Date.now() - started) / 6000) / 10 };
    writeFileSync(join(dir, 'run.json'), `${JSON.stringify(ownTestsRun(before, now, filesRun(report, full ? undefined : args.mutate!)))}\n`);
    process.stdout.write(`\nthe simulator's own tests: ${REPORT_DIR}/own-tests/ and conformance/mutation/stryker-own-tests-incremental.json; npm run mutation -- --summary-only writes the summary\n`);
    return 0;
  }
  if (!args['summary-only']) {
    const stryker = strykerBin();
    // A full run always writes the incremental file; a partial run must not overwrite it with a part. A whole run starts from
    // the recorded equivalents alone, an incremental one from everything (recorded-equivalents.ts); --with-equivalents runs
    // them again: a whole run from nothing (--force), an incremental one from the committed file as it stands.
    // An area is a slice of a whole run: incremental from everything, and Stryker keeps the results of files outside the
    // slice's --mutate as the incremental file holds them, so the file it writes back still covers the whole scope.
    const seed = (full || area) && !args['with-equivalents'] ? writeSeed(args.incremental || area ? 'all' : 'equivalents', area) : undefined;
    seeded = seed?.seeded;
    const flags = area ? ['--mutate', mutateFor('suite', area).join(','), '--incremental', '--incrementalFile', seed!.file]
      : !full ? ['--mutate', args.mutate!]
      : seed ? ['--incremental', '--incrementalFile', seed.file]
        : args.incremental ? ['--incremental']
          : ['--incremental', '--force'];
    if (args.concurrency) flags.push('--concurrency', args.concurrency);
    const ran = spawnSync(process.execPath, [stryker, 'run', ...flags], { cwd: ROOT, stdio: 'inherit' });
    if (ran.status !== 0) {
      process.stderr.write(`error: stryker exited ${ran.status ?? ran.signal}\n`);
      return 1;
    }
    // Stryker wrote the whole run's results over the seed: they are the next incremental file.
    if (seed) copyFileSync(seed.file, INCREMENTAL);
  }
  const dir = new URL(`../../${REPORT_DIR}/`, import.meta.url);
  mkdirSync(dir, { recursive: true });
  // What ran: a --summary-only later keeps the figures of the run it summarises.
  const ranFile = new URL('run.json', dir);
  const ran: { minutes?: number; command: string; when: string; seeded?: number; areas?: Record<string, Provenance> } = args['summary-only']
    ? (existsSync(ranFile) ? JSON.parse(readFileSync(ranFile, 'utf8')) : lastWholeRun())
    : { minutes: Math.round((Date.now() - started) / 6000) / 10, command: `npm run mutation${args.incremental ? ' -- --incremental' : ''}${args['with-equivalents'] ? ' -- --with-equivalents' : ''}${area ? ` -- --area ${JSON.stringify(area)}` : full ? '' : ` -- --mutate ${args.mutate}`}`, when: new Date().toISOString().slice(0, 10), ...(seeded !== undefined ? { seeded } : {}) };
  // Which run last measured each area: a whole run measured them all; a slice, its own area, the others as before.
  if (area) ran.areas = { ...lastAreaRuns(), [area]: { command: ran.command, when: ran.when, ...(ran.minutes !== undefined ? { minutes: ran.minutes } : {}) } };
  if (!args['summary-only']) writeFileSync(ranFile, `${JSON.stringify(ran)}\n`);
  // --summary-only with no run of the suite's here: the last whole run's results, as Stryker committed them.
  const reportFile = existsSync(new URL('mutation.json', dir)) ? new URL('mutation.json', dir) : new URL(`file://${INCREMENTAL}`);
  const read = JSON.parse(readFileSync(reportFile, 'utf8')) as StrykerReport;
  // A slice's report holds every area (its own measured now, the rest carried from the incremental file): the whole scope's.
  const report: StrykerReport = area ? { ...read, config: { ...read.config, mutate: await configuredMutate() } } : read;
  const summary = summarise(report, catalogue(), readEquivalents());
  const t = summary.totals;
  // Every check's world is the simulator Stryker switches mutants in: a run that killed nothing ran the checks against something else.
  if (t.killed === 0 && t.mutants - t.ignored > 0) {
    process.stderr.write('error: no mutant was killed: the checks did not run the mutated simulator (is it loaded in the test\'s own process?)\n');
    return 1;
  }
  // An entry that names no mutant, or more than one, or calls an unreached mutant equivalent, is an error (issue 40).
  if (summary.entryErrors.length > 0) process.stderr.write(`error: conformance/mutation/equivalent-mutants.yaml:\n${summary.entryErrors.map((e) => `  ${e}`).join('\n')}\n`);
  const top = await headlineOf({ report, provenance: ran });
  const page = summaryMarkdown(summary, ran, headlineMarkdown(top));
  const json = `${JSON.stringify({ ...ran, ...summary, headline: top }, null, 2)}\n`;
  writeFileSync(new URL('summary.json', dir), json);
  writeFileSync(new URL('summary.md', dir), page);
  // The committed summary: a whole run's, or --summary-only's (its table says per area which run measured what, or none);
  // a partial run never replaces it.
  const whole = args['summary-only'] || JSON.stringify(report.config?.mutate) === JSON.stringify(await configuredMutate());
  if (whole) {
    writeFileSync(new URL(`${LAST.href}.json`), json);
    writeFileSync(new URL(`${LAST.href}.md`), page);
  }
  process.stdout.write(`\nmutation score ${t.score ?? 'n/a'}% (${t.killed + t.timeout} detected, ${t.survived} survived, ${t.noCoverage} not reached; ${t.equivalent} equivalent, ${t.ignored} ignored)${ran.minutes !== undefined ? ` in ${ran.minutes} min` : ''}\n`
    + `summary: ${REPORT_DIR}/summary.md${whole ? ' and conformance/mutation/last-summary.md' : ''}; report: ${REPORT_DIR}/index.html\n`);
  return summary.entryErrors.length > 0 ? 1 : 0;
}

/**
 * Which run last measured each area of the suite, from the committed summary: its slices' own record, or else the
 * whole run it names for every area that run had results for.
 */
function lastAreaRuns(): Record<string, Provenance> {
  const last = new URL(`${LAST.href}.json`);
  if (!existsSync(last)) return {};
  const committed = JSON.parse(readFileSync(last, 'utf8')) as { command: string; when: string; minutes?: number; areas?: Record<string, Provenance>; headline?: Headline };
  if (committed.areas) return committed.areas;
  const whole: Provenance = { command: committed.command, when: committed.when, ...(committed.minutes !== undefined ? { minutes: committed.minutes } : {}) };
  return Object.fromEntries((committed.headline?.areas ?? []).filter((a) => a.killer === 'suite' && a.measuredFiles > 0).map((a) => [a.area, whole]));
}

/**
 * With no run of the suite's here, its figures are the committed incremental file's: the run the committed summary names,
 * with the slices that last measured each area (a summary written again must not forget them).
 */
function lastWholeRun(): { command: string; when: string; minutes?: number; seeded?: number; areas?: Record<string, Provenance> } {
  const last = new URL(`${LAST.href}.json`);
  if (!existsSync(last)) return { command: 'npm run mutation -- --summary-only', when: new Date().toISOString().slice(0, 10) };
  const { command, when, minutes, seeded, areas } = JSON.parse(readFileSync(last, 'utf8')) as { command: string; when: string; minutes?: number; seeded?: number; areas?: Record<string, Provenance> };
  return { command, when, ...(minutes !== undefined ? { minutes } : {}), ...(seeded !== undefined ? { seeded } : {}), ...(areas ? { areas } : {}) };
}

/** The own tests' last run, as this clone's report says or else the committed summary. */
function lastOwnTestsRun(): Provenance | null {
  const local = join(ROOT, REPORT_DIR, 'own-tests', 'run.json');
  if (existsSync(local)) return JSON.parse(readFileSync(local, 'utf8')) as Provenance;
  const last = new URL(`${LAST.href}.json`);
  return existsSync(last) ? (JSON.parse(readFileSync(last, 'utf8')) as { headline?: Headline }).headline?.provenance.ownTests ?? null : null;
}

/** Stryker's command (the package exports no bin path: its `bin` from beside its package.json). */
function strykerBin(): string {
  const manifest = createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json');
  return join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { stryker: string } }).bin.stryker);
}

const KEYWORDS: string[] = [...LIMIT_KEYWORDS, 'default', 'enum', 'required'];

/**
 * The committed summary with its contract section replaced: the page is rendered again from the committed JSON (which
 * renders to the committed page byte for byte), so every other area keeps the figures of the run that measured it.
 */
function writeContractSection(part: NonNullable<Headline['contract']>, provenance: Provenance): void {
  const committed = JSON.parse(readFileSync(new URL(`${LAST.href}.json`), 'utf8')) as Record<string, any>;
  const { command, when, minutes, seeded, headline: top, ...summary } = committed;
  const next: Headline = { ...top, contract: part, provenance: { ...top.provenance, contract: provenance } };
  const page = summaryMarkdown({ entryErrors: [], ...summary } as unknown as MutationSummary, { command, when, minutes, seeded }, headlineMarkdown(next));
  writeFileSync(new URL(`${LAST.href}.json`), `${JSON.stringify({ ...committed, headline: next }, null, 2)}\n`);
  writeFileSync(new URL(`${LAST.href}.md`), page);
}

/** The headline over every run's last report here: the suite's, the own tests' (reports/mutation/own-tests/), the contract's. */
async function headlineOf(suite: { report: StrykerReport; provenance: Provenance }): Promise<Headline> {
  const dir = join(ROOT, REPORT_DIR);
  const read = <T>(file: string): T | undefined => (existsSync(join(dir, file)) ? JSON.parse(readFileSync(join(dir, file), 'utf8')) as T : undefined);
  // The own tests' results: the committed incremental file every run of theirs adds to (else an older run's report here).
  const own = existsSync(OWN_INCREMENTAL) ? JSON.parse(readFileSync(OWN_INCREMENTAL, 'utf8')) as StrykerReport : read<StrykerReport>('own-tests/mutation.json');
  const local = read<ContractRun & Provenance>('contract.json');
  // A killer with no report here (a clone runs the suite's slices, not the store's hours or the contract's run) keeps the
  // figures of the committed summary, with the run that measured them: a suite run never erases another killer's score.
  const last = existsSync(new URL(`${LAST.href}.json`)) ? (JSON.parse(readFileSync(new URL(`${LAST.href}.json`), 'utf8')) as { headline?: Headline }).headline : undefined;
  const contract = local
    ? { run: local as ContractRun, provenance: { command: local.command, when: local.when, minutes: local.minutes, ...(local.note ? { note: local.note } : {}) } }
    : last?.contract && last.provenance.contract ? { run: last.contract.run, provenance: last.provenance.contract } : undefined;
  const h = headline({
    census: await census(),
    suite,
    ...(own ? { ownTests: { report: own, provenance: lastOwnTestsRun() ?? { command: 'npm run mutation -- --own-tests', when: '?' }, changed: changedSince(own, (file) => (existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : undefined)) } } : {}),
    ...(contract ? { contract: { ...contract, equivalents: readContractEquivalents(), ids: contractMutants(contractDocument()).map((m) => m.id) } } : {}),
    equivalents: readEquivalents(),
  });
  return own || !last ? h : withCommittedOwnTests(h, last);
}

/** The own tests' incremental file their run starts from (recorded-equivalents.ts ownTestsSeed), beside the reports. */
function writeOwnTestsSeed(mutate: string | undefined): string {
  const last = existsSync(OWN_INCREMENTAL) ? (JSON.parse(readFileSync(OWN_INCREMENTAL, 'utf8')) as StrykerReport) : { files: {} };
  const mutated = new Set(filesRun(last, mutate));
  const { seed, again } = ownTestsSeed(last, readEquivalents(), (file) => mutated.has(file));
  const file = join(ROOT, REPORT_DIR, 'own-tests', 'incremental-seed.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(seed));
  process.stdout.write(`${again} mutant(s) that survived or were not reached run again (recorded equivalents keep their result)\n`);
  return file;
}

/** The incremental file Stryker starts from (recorded-equivalents.ts), beside the reports. */
function writeSeed(keep: 'equivalents' | 'all', area?: string): { file: string; seeded: number } {
  const last = existsSync(INCREMENTAL) ? (JSON.parse(readFileSync(INCREMENTAL, 'utf8')) as StrykerReport) : { files: {} };
  const inSlice = (file: string) => area === undefined || (placeOf(file) as { area?: { area: string } } | undefined)?.area?.area === area;
  const { seed, seeded } = equivalentSeed(last, readEquivalents(), checkTests(), keep, inSlice);
  const file = join(ROOT, REPORT_DIR, 'incremental-seed.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(seed));
  process.stdout.write(`${seeded} recorded equivalent(s) keep their last result unless their code changed (--with-equivalents runs them)\n`);
  return { file, seeded };
}

/**
 * Today's check tests as Stryker will name them (describe and test joined by a space). vitest lists them: a test's
 * name carries a digest of its check's code as vitest compiles it, which another compiler would digest otherwise.
 */
function checkTests(): { file: string; names: string[] } {
  const file = 'conformance/mutation/catalogue.mutation.ts';
  const manifest = createRequire(import.meta.url).resolve('vitest/package.json');
  const vitest = join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { vitest: string } }).bin.vitest);
  const listed = spawnSync(process.execPath, [vitest, 'list', '--config', 'conformance/mutation/vitest.mutation.config.ts', '--json'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`vitest list of ${file} exited ${listed.status ?? listed.signal}: ${listed.stderr}`);
  return { file, names: (JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name.split(' > ').join(' ')) };
}

/** The `mutate` list of stryker.config.mjs, as Stryker records it in its report. */
async function configuredMutate(): Promise<string[]> {
  const config = (await import(new URL('../../stryker.config.mjs', import.meta.url).href)) as { default: { mutate: string[] } };
  return config.default.mutate;
}

process.exitCode = await main();
