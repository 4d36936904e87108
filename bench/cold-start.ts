/**
 * Comparison 8: cold start to the first successful GET /me, as a user runs
 * it (`npm start -- --memory --port 0`) and with the layers of that command
 * peeled off one by one: without npm (tsx's CLI), without tsx's relaunch
 * (`node --import tsx`), and pre-bundled with esbuild (plain node, no
 * TypeScript at start); and as the installed package runs it (`partner-api
 * sim` from a project that installed the packed tarball with --omit=dev). The clock starts at spawn and stops at the first
 * 200 from GET /me with the key the simulator printed. Not pinned: a start
 * uses whatever cores it can, as on a user's machine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packAndInstall } from '../build/pack-and-install.ts';
import { median, msSince, runRounds, withDeadline } from './measure.ts';
import { removeScratch, scratchDir, start } from './processes.ts';
import { plural, target, type Outcome, type Row } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLAGS = ['--memory', '--port', '0'];
export const COLD_START_TARGET_SECONDS = 1;
/** The installed command (issue 19): plain node on built JavaScript, no npm, no tsx. */
export const INSTALLED_COLD_START_TARGET_SECONDS = 0.25;

export interface ColdStartOptions {
  warmup: number;
  rounds: number;
}

interface Variant {
  key: string;
  label: string;
  command: string;
  args: string[];
  /** Working directory of the start (default: the project root). */
  cwd?: string;
}

/** Spawns a variant and times it to the first 200 from GET /me. */
async function coldStart(v: Variant): Promise<number> {
  const t0 = process.hrtime.bigint();
  const child = start(v.command, v.args, { cwd: v.cwd ?? ROOT });
  try {
    const [, base] = await child.waitFor(/base URL\s+(\S+)/, 20_000);
    const [, key] = await child.waitFor(/acme-channel\s.*API key (\S+)/, 20_000);
    for (;;) {
      try {
        const res = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        if (res.status === 200) return msSince(t0);
      } catch {
        // Not accepting yet: try again at once.
      }
      if (msSince(t0) > 20_000) throw new Error(`${v.label}: no 200 from GET /me within 20 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await child.stop();
  }
}

/**
 * Bundles simulator/cli.ts with the esbuild that tsx brings. Only spec/ reads
 * import.meta.url (its YAML, the parse cache in node_modules/.cache, and the
 * requires of ajv and yaml on first use in contract.ts and yaml-cache.ts),
 * so the bundle's import.meta.url is spec/contract.ts's: it reads the same
 * files and the same cache as the unbundled start.
 */
async function bundle(dir: string): Promise<{ file: string; ms: number }> {
  const esbuild = await import('esbuild');
  const t0 = process.hrtime.bigint();
  const file = join(dir, 'cli.mjs');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['simulator/cli.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    logLevel: 'silent',
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(ROOT, 'spec', 'contract.ts')).href) },
    // CommonJS dependencies call require(); an ESM bundle needs one made for it.
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
  });
  return { file, ms: msSince(t0) };
}

export async function compareColdStart(o: ColdStartOptions): Promise<Outcome> {
  const startScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  const variants: Variant[] = [
    { key: 'npm', label: `npm start -- ${FLAGS.join(' ')}  (what users get: "${startScript}")`, command: 'npm', args: ['start', '--', ...FLAGS] },
    { key: 'tsx', label: 'tsx simulator/cli.ts (no npm)', command: join(ROOT, 'node_modules', '.bin', 'tsx'), args: ['simulator/cli.ts', ...FLAGS] },
    { key: 'import', label: 'node --import tsx simulator/cli.ts (no tsx relaunch)', command: process.execPath, args: ['--import', 'tsx', 'simulator/cli.ts', ...FLAGS] },
  ];
  const notes: string[] = [];
  const dir = scratchDir('bench-cold-start-');
  try {
    try {
      const built = await withDeadline('esbuild bundle of simulator/cli.ts', 60_000, bundle(dir));
      variants.push({ key: 'bundle', label: 'node cli.mjs (pre-bundled with esbuild, plain node)', command: process.execPath, args: [built.file, ...FLAGS] });
      notes.push(`The bundle (${(readFileSync(built.file).length / 2 ** 20).toFixed(1)} MiB, built in ${(built.ms / 1000).toFixed(2)} s, not timed) is made for this run in a temporary directory; the project does not ship one.`);
    } catch (e) {
      notes.push(`Pre-bundled start not measured: ${(e as Error).message.split('\n')[0]}`);
    }
    try {
      const t0 = process.hrtime.bigint();
      const pkg = await withDeadline('npm pack and install of the package', 120_000, packAndInstall(dir));
      variants.push({ key: 'installed', label: 'partner-api sim (the installed package: its bin, plain node on dist/)', command: pkg.bin, args: ['sim', ...FLAGS], cwd: pkg.project });
      notes.push(`The installed package is this checkout packed (npm pack, which builds dist/) and installed with --omit=dev into an empty project in a temporary directory (${(msSince(t0) / 1000).toFixed(1)} s, not timed); the start runs its node_modules/.bin/partner-api from that project.`);
    } catch (e) {
      notes.push(`Installed start not measured: ${(e as Error).message.split('\n')[0]}`);
    }
    const times = new Map(variants.map((v) => [v.key, [] as number[]]));
    await runRounds(async (round) => {
      for (const v of variants) {
        const ms = await coldStart(v);
        if (round >= 0) times.get(v.key)!.push(ms);
      }
    }, { warmup: o.warmup, rounds: o.rounds, budgetMs: 90_000 });
    const med = (key: string) => (times.get(key)?.length ? median(times.get(key)!) : null);
    const rows: Row[] = variants.map((v) => ({ label: v.label, values: { median: med(v.key)! / 1000, min: Math.min(...times.get(v.key)!) / 1000, max: Math.max(...times.get(v.key)!) / 1000 } }));
    const npm = med('npm');
    const tsx = med('tsx');
    const imp = med('import');
    const bun = med('bundle');
    const installed = med('installed');
    if (npm !== null && tsx !== null && imp !== null) {
      // "start" runs either tsx's CLI (npm, then tsx relaunching node) or node --import tsx directly (npm, then node).
      const viaTsxCli = /^tsx\s/.test(startScript ?? '');
      notes.push(`Where the ${(npm / 1000).toFixed(2)} s of npm start go: `
        + (viaTsxCli
          ? `npm's own start-up ${(npm - tsx).toFixed(0)} ms, tsx's CLI relaunching node with its loader ${(tsx - imp).toFixed(0)} ms, `
          : `npm's own start-up ${(npm - imp).toFixed(0)} ms (tsx's CLI, not on this path, would add ${(tsx - imp).toFixed(0)} ms), `)
        + (bun !== null ? `compiling TypeScript on the fly ${(imp - bun).toFixed(0)} ms, and the simulator itself (node start, module evaluation, loading the contract, seeding the demo world, listening) ${bun.toFixed(0)} ms.` : `and the rest (TypeScript on the fly and the simulator itself) ${imp.toFixed(0)} ms.`));
    }
    return {
      comparison: {
        id: 8,
        title: 'Cold start to the first successful GET /me',
        status: 'measured',
        method: `a new process per start (its whole process group stopped after), unpinned; ${plural(o.warmup, 'warm-up start')} of each variant (disk and tsx caches), then ${plural(times.get('npm')!.length, 'interleaved round')}; medians`,
        columns: [
          { key: 'median', label: 'median s', digits: 3 },
          { key: 'min', label: 'min s', digits: 3 },
          { key: 'max', label: 'max s', digits: 3 },
        ],
        rows,
        ratios: bun !== null && npm !== null ? [{ label: 'npm start / pre-bundled', value: npm / bun }] : [],
        notes,
      },
      targets: [
        target({ id: 'cold-start', comparison: 8, description: 'cold start of npm start to the first GET /me', kind: 'below', bound: COLD_START_TARGET_SECONDS, unit: 's', measured: npm === null ? null : npm / 1000 }, () =>
          `npm start is a chain of three node processes (npm, tsx's CLI, node with tsx's loader) before the simulator's own start; ${bun !== null ? `the same simulator pre-bundled starts in ${(bun / 1000).toFixed(2)} s with plain node` : 'a pre-bundled start could not be measured'}. `
          + 'What would reach it: build a bundle with esbuild (a "build" step run by "prepare" after npm ci) and have "start" run node on it, or at least run "node --import tsx simulator/cli.ts" to skip the tsx relaunch; npm\'s own start-up stays unless users run the bundle directly.'),
        target({ id: 'cold-start-installed', comparison: 8, description: 'cold start of the installed partner-api sim to the first GET /me', kind: 'below', bound: INSTALLED_COLD_START_TARGET_SECONDS, unit: 's', measured: installed === null ? null : installed / 1000 }, () =>
          `the installed command runs the compiled modules one by one (${bun !== null ? `the same simulator as one esbuild bundle starts in ${(bun / 1000).toFixed(2)} s` : 'no bundle measured'}); bundling the sim entry at build time would close the gap.`),
      ],
    };
  } finally {
    removeScratch(dir);
  }
}
