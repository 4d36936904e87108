/**
 * Stoplight Prism, the mock a user would pick instead of the simulator,
 * installed on demand into a cache outside the repository (it is not a
 * dependency of the project). 5.14.2 is the newest that runs on Node 20.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { start } from './processes.ts';
import { withDeadline } from './measure.ts';

export const PRISM_VERSION = '5.14.2';
const INSTALL_BUDGET_MS = 240_000;

/** `$BENCH_CACHE_DIR`, else `~/.cache/partner-api-bench`. */
export function benchCacheDir(): string {
  return process.env.BENCH_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'partner-api-bench');
}

function installedEntry(dir: string): string | null {
  const pkg = join(dir, 'node_modules', '@stoplight', 'prism-cli', 'package.json');
  if (!existsSync(pkg)) return null;
  const { version, bin } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string; bin: { prism: string } };
  return version === PRISM_VERSION ? join(dir, 'node_modules', '@stoplight', 'prism-cli', bin.prism) : null;
}

export type PrismInstall = { entry: string; installedNow: boolean; dir: string } | { unavailable: string };

/** Finds Prism in the cache or installs it there with npm; never throws. */
export async function ensurePrism(): Promise<PrismInstall> {
  const dir = join(benchCacheDir(), `prism-${PRISM_VERSION}`);
  const cached = installedEntry(dir);
  if (cached) return { entry: cached, installedNow: false, dir };
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    return { unavailable: `cannot create the cache directory ${dir}: ${(e as Error).message}` };
  }
  const npm = start('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `@stoplight/prism-cli@${PRISM_VERSION}`]);
  const exit = new Promise<number | null>((resolve) => npm.process.once('exit', (code) => resolve(code)));
  let code: number | null;
  try {
    code = await withDeadline(`npm install @stoplight/prism-cli@${PRISM_VERSION}`, INSTALL_BUDGET_MS, exit);
  } catch (e) {
    await npm.stop();
    return { unavailable: (e as Error).message };
  }
  await npm.stop();
  const entry = installedEntry(dir);
  if (code !== 0 || !entry) {
    // npm's first error lines say what went wrong (code, then the message); the rest is a stack and a log path.
    const lines = npm.output().split('\n').map((l) => l.trim()).filter(Boolean);
    const errors = lines.filter((l) => l.startsWith('npm error') && !/^npm error\s+at |complete log|^npm error$/.test(l));
    const tail = [errors.find((l) => / code /.test(l)), errors.find((l) => !/ (code|syscall|errno) /.test(l))].filter(Boolean).join(' / ') || lines.slice(-3).join(' / ') || `exit code ${code}`;
    return { unavailable: `npm install @stoplight/prism-cli@${PRISM_VERSION} into ${dir} failed: ${tail}` };
  }
  return { entry, installedNow: true, dir };
}
