/**
 * How a test starts one of the clone's commands as its own process: the
 * built .js of the run's test build (build/test-build.ts) when there is one,
 * else the TypeScript source through tsx, as `npm run` does. Same code either
 * way (tsx compiles with the same esbuild); the build saves each process
 * tsx's start-up, about half a second of CPU.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtScript, TEST_BUILD_ENV } from './test-build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist');

/** The module `script` as the test build holds it, or null without a build or when the build has no such file (bench/ is not built). */
export function builtModule(script: string): string | null {
  const build = process.env[TEST_BUILD_ENV];
  const built = build ? builtScript(build, script) : null;
  return built !== null && existsSync(built) ? built : null;
}

/** `node`'s arguments before the command's own, for a process whose cwd is the clone's root: `script` is a path from there (`simulator/cli.ts`). */
export function nodeArgs(script: string): string[] {
  return [builtModule(script) ?? ['--import', 'tsx', script]].flat();
}

/** The same from any working directory (tsx, when it is used, named by its files rather than found from the cwd). */
export function nodeArgsFromAnywhere(script: string): string[] {
  return [builtModule(script) ?? ['--require', join(TSX, 'preflight.cjs'), '--import', pathToFileURL(join(TSX, 'loader.mjs')).href, join(ROOT, script)]].flat();
}

/** As a shell command line, from any working directory (for `--partner-command`, a shim in PATH). */
export function nodeCommandLine(script: string): string {
  return [process.execPath, ...nodeArgsFromAnywhere(script)].map((word) => `"${word}"`).join(' ');
}
