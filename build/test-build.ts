/**
 * The clone's sources as plain JavaScript, for the commands tests start as
 * their own processes (the simulator, conformance, certify, the partner
 * doubles). Through tsx each such process costs about half a second of CPU
 * more than the same code as .js (its loader thread and a round trip per
 * module), and the test run starts several hundred of them: that was a
 * fifth of `npm test`'s CPU time on two cores (issue 27).
 *
 * Each source file is transpiled on its own by esbuild, the compiler tsx
 * itself runs, so the code is what tsx would run; relative `.ts` import
 * specifiers become `.js`, and every other file of those folders (the YAML
 * documents, the JSON Schema, the .mjs preloads) is copied beside it. The
 * layout is an installed package's (`<build>/package.json`,
 * `<build>/dist/simulator/cli.js`), so modules that find their documents,
 * their package.json or their own command relative to themselves find them
 * as they do in dist/.
 *
 * The build lives in node_modules/.cache/partner-api-conformance/, named by a
 * digest of its inputs: a source changed since is another build, and an
 * unchanged clone reuses the last one. It is written to a temporary
 * directory and renamed into place, so two runs never see half of one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders whose code a test may start as a command (tsconfig.build.json's, the ones dist/ holds). */
export const BUILT_FOLDERS = ['protocol', 'cli', 'library', 'certify', 'spec', 'simulator', 'conformance', 'scenarios', 'reporting', 'watch'];
const KEEP = 4;
const FORMAT = 1;

/** `./x.ts`, `../y/z.ts` in an import, export-from or dynamic import of esbuild's output. */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

function sourcesOf(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // The mutation run's tools find the clone's files relative to themselves; dist/ leaves them out too.
      if (entry.isDirectory()) {
        if (path !== join('conformance', 'mutation')) walk(path);
      } else if (entry.isFile() && !/\.test\.ts$/.test(entry.name)) files.push(path);
    }
  };
  for (const folder of BUILT_FOLDERS) if (existsSync(join(root, folder))) walk(folder);
  return files.sort();
}

/** Rewrites the relative `.ts` specifiers of transpiled code to `.js`. */
export function withJsSpecifiers(code: string): string {
  return code.replace(RELATIVE_TS, (_all, lead: string, quote: string, path: string) => `${lead}${quote}${path}.js${quote}`);
}

/**
 * The directory of the build of `root`'s sources (built now unless an
 * identical one exists): its `dist/` mirrors the source folders.
 */
export function testBuild(root: string): string {
  const require = createRequire(join(root, 'package.json'));
  const esbuild = require('esbuild') as typeof import('esbuild');
  const files = sourcesOf(root);
  const digest = createHash('sha256').update(`${FORMAT} esbuild@${esbuild.version} ${root}\n`);
  for (const file of [...files, 'package.json']) digest.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  const cache = join(root, 'node_modules', '.cache', 'partner-api-conformance');
  const dir = join(cache, `test-build-${digest.digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, 'package.json'))) return dir;

  const temporary = `${dir}.${process.pid}.${Date.now()}.tmp`;
  const out = join(temporary, 'dist');
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const built = esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: sources,
    outdir: out,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  for (const file of built.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, withJsSpecifiers(file.text));
  }
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    copyFileSync(join(root, file), join(out, file)); // with its mode (libuv's copyfile keeps it)
  }
  copyFileSync(join(root, 'package.json'), join(temporary, 'package.json'));
  try {
    renameSync(temporary, dir);
  } catch {
    // Another run renamed the same build into place first: theirs is this one.
    rmSync(temporary, { recursive: true, force: true });
  }
  prune(cache, dir);
  return dir;
}

/**
 * Keeps the newest builds, and any made in the last hour: work trees that link this node_modules have their own, and a
 * run in one of them may still be using its build. A half-written build (`.tmp`) an hour old is one whose run died.
 */
export function prune(cache: string, keep: string, now = Date.now()): void {
  const entries = readdirSync(cache)
    .filter((name) => name.startsWith('test-build-'))
    .map((name) => ({ path: join(cache, name), at: statSync(join(cache, name)).mtimeMs, partial: name.endsWith('.tmp') }));
  const builds = entries.filter((e) => !e.partial).sort((a, b) => b.at - a.at);
  const stale = [...builds.slice(KEEP), ...entries.filter((e) => e.partial)];
  for (const old of stale) if (old.path !== keep && old.at < now - 3_600_000) rmSync(old.path, { recursive: true, force: true });
}

/** `script` (a path from the clone's root, `simulator/cli.ts`) as its built module in `build`. */
export function builtScript(build: string, script: string): string {
  return join(build, 'dist', script.split('/').join(sep).replace(/\.ts$/, '.js'));
}

/** The environment variable that names the run's build for the test files (set by the vitest globalSetup below). */
export const TEST_BUILD_ENV = 'CONFORMANCE_TEST_BUILD';

/**
 * vitest globalSetup: builds (or reuses) the clone's build before the workers start; they and their processes inherit its path.
 * `CONFORMANCE_TEST_BUILD=off npm test` builds nothing: every command then runs through tsx, as `npm run` runs it.
 */
export default function setup(): void {
  if (process.env[TEST_BUILD_ENV] === 'off') {
    delete process.env[TEST_BUILD_ENV];
    return;
  }
  process.env[TEST_BUILD_ENV] = testBuild(fileURLToPath(new URL('..', import.meta.url)));
}
