/**
 * `npm run mutation`: StrykerJS over the simulator (stryker.config.mjs),
 * killed by the conformance suite alone, then the summary.
 *
 *   npm run mutation                      every mutant; refreshes the incremental file
 *   npm run mutation -- --incremental     only mutants whose code or covering checks changed
 *   npm run mutation -- --mutate simulator/domain/pricing.ts    one file (or glob); leaves the incremental file alone
 *
 * Writes reports/mutation/ (Stryker's index.html and mutation.json,
 * summary.json and summary.md). A run over the whole scope also writes what
 * is committed: the summary, conformance/mutation/last-summary.{json,md},
 * and Stryker's incremental file, conformance/mutation/stryker-incremental.json.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { catalogue } from '../catalogue.ts';
import { equivalentSeed } from './recorded-equivalents.ts';
import { REPORT_DIR } from './settings.ts';
import { parseEquivalents, summarise, summaryMarkdown, type Equivalent, type StrykerReport } from './summary.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LAST = new URL('./last-summary', import.meta.url);
/** stryker.config.mjs's incrementalFile: the last whole run's results, committed. */
const INCREMENTAL = join(ROOT, 'conformance/mutation/stryker-incremental.json');

const USAGE = `usage: npm run mutation [-- --incremental] [-- --with-equivalents] [-- --mutate GLOB[,GLOB…]] [-- --concurrency N]

  (no flag)        every mutant of stryker.config.mjs (simulator/domain, http, webhooks); refreshes
                   the incremental file and the committed summary (conformance/mutation/). A mutant
                   recorded equivalent keeps its last result, not run, while its code is unchanged
                   (recorded-equivalents.ts); all else is tested afresh
  --with-equivalents  the same, with the recorded equivalents run again too (after strengthening a
                   check: each should still survive)
  --incremental    rerun only what changed since the incremental file (code or a covering check;
                   a recorded equivalent only when its code changed)
  --mutate GLOB    only these files (Stryker's --mutate); the incremental file and the committed
                   summary are left alone
  --concurrency N  Stryker's test-runner processes (default: one per core, one fewer above four cores)
  --summary-only   write the summary of the last run's reports/mutation/mutation.json, run nothing
  --help           this text
`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        incremental: { type: 'boolean', default: false },
        mutate: { type: 'string' },
        concurrency: { type: 'string' },
        'with-equivalents': { type: 'boolean', default: false },
        'summary-only': { type: 'boolean', default: false },
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
  if (args.concurrency !== undefined && !/^[1-9]\d*$/.test(args.concurrency)) {
    process.stderr.write(`error: --concurrency must be a whole number ≥ 1, got ${JSON.stringify(args.concurrency)}\n${USAGE}`);
    return 2;
  }
  const started = Date.now();
  const full = args.mutate === undefined;
  let seeded: number | undefined;
  if (!args['summary-only']) {
    // The package exports no bin path: take its `bin` from beside its package.json.
    const manifest = createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json');
    const stryker = join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { stryker: string } }).bin.stryker);
    // A full run always writes the incremental file; a partial run must not overwrite it with a part. A whole run starts from
    // the recorded equivalents alone, an incremental one from everything (recorded-equivalents.ts); --with-equivalents runs
    // them again: a whole run from nothing (--force), an incremental one from the committed file as it stands.
    const seed = full && !args['with-equivalents'] ? writeSeed(args.incremental ? 'all' : 'equivalents') : undefined;
    seeded = seed?.seeded;
    const flags = !full ? ['--mutate', args.mutate!]
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
  const ran: { minutes?: number; command: string; when: string; seeded?: number } = args['summary-only']
    ? (existsSync(ranFile) ? JSON.parse(readFileSync(ranFile, 'utf8')) : { command: 'npm run mutation -- --summary-only', when: new Date().toISOString().slice(0, 10) })
    : { minutes: Math.round((Date.now() - started) / 6000) / 10, command: `npm run mutation${args.incremental ? ' -- --incremental' : ''}${args['with-equivalents'] ? ' -- --with-equivalents' : ''}${full ? '' : ` -- --mutate ${args.mutate}`}`, when: new Date().toISOString().slice(0, 10), ...(seeded !== undefined ? { seeded } : {}) };
  if (!args['summary-only']) writeFileSync(ranFile, `${JSON.stringify(ran)}\n`);
  const report = JSON.parse(readFileSync(new URL('mutation.json', dir), 'utf8')) as StrykerReport;
  const summary = summarise(report, catalogue(), readEquivalents());
  const t = summary.totals;
  // Every check's world is the simulator Stryker switches mutants in: a run that killed nothing ran the checks against something else.
  if (t.killed === 0 && t.mutants - t.ignored > 0) {
    process.stderr.write('error: no mutant was killed: the checks did not run the mutated simulator (is it loaded in the test\'s own process?)\n');
    return 1;
  }
  // An entry that names no mutant, or more than one, or calls an unreached mutant equivalent, is an error (issue 40).
  if (summary.entryErrors.length > 0) process.stderr.write(`error: conformance/mutation/equivalent-mutants.yaml:\n${summary.entryErrors.map((e) => `  ${e}`).join('\n')}\n`);
  const page = summaryMarkdown(summary, ran);
  const json = `${JSON.stringify({ ...ran, ...summary }, null, 2)}\n`;
  writeFileSync(new URL('summary.json', dir), json);
  writeFileSync(new URL('summary.md', dir), page);
  // The committed summary is the whole scope's: a partial run (or the summary of one) never replaces it.
  const whole = JSON.stringify(report.config?.mutate) === JSON.stringify(await configuredMutate());
  if (whole) {
    writeFileSync(new URL(`${LAST.href}.json`), json);
    writeFileSync(new URL(`${LAST.href}.md`), page);
  }
  process.stdout.write(`\nmutation score ${t.score ?? 'n/a'}% (${t.killed + t.timeout} detected, ${t.survived} survived, ${t.noCoverage} not reached; ${t.equivalent} equivalent, ${t.ignored} ignored)${ran.minutes !== undefined ? ` in ${ran.minutes} min` : ''}\n`
    + `summary: ${REPORT_DIR}/summary.md${whole ? ' and conformance/mutation/last-summary.md' : ''}; report: ${REPORT_DIR}/index.html\n`);
  return summary.entryErrors.length > 0 ? 1 : 0;
}

/** The incremental file Stryker starts from (recorded-equivalents.ts), beside the reports. */
function writeSeed(keep: 'equivalents' | 'all'): { file: string; seeded: number } {
  const last = existsSync(INCREMENTAL) ? (JSON.parse(readFileSync(INCREMENTAL, 'utf8')) as StrykerReport) : { files: {} };
  const { seed, seeded } = equivalentSeed(last, readEquivalents(), checkTests(), keep);
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

function readEquivalents(): Equivalent[] {
  return parseEquivalents(parse(readFileSync(new URL('./equivalent-mutants.yaml', import.meta.url), 'utf8')), 'conformance/mutation/equivalent-mutants.yaml');
}

/** The `mutate` list of stryker.config.mjs, as Stryker records it in its report. */
async function configuredMutate(): Promise<string[]> {
  const config = (await import(new URL('../../stryker.config.mjs', import.meta.url).href)) as { default: { mutate: string[] } };
  return config.default.mutate;
}

process.exitCode = await main();
