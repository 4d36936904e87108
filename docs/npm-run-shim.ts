/**
 * `npm` for the docs pages run in a clone (docs/examples.test.ts): `npm
 * start -- ARGS` and `npm run NAME -- ARGS`, where package.json's script NAME
 * is exactly `node --import tsx FILE.ts`, run the test run's build of FILE
 * (build/test-build.ts) as npm would run the script: from the directory of
 * the package.json found upward from the working directory, its banner
 * printed first on stdout, the arguments after `--` passed on, the exit code
 * the command's. Everything else (another script, npm's own options before
 * `--`, a package.json other than this clone's, `npm ci`) goes to the real
 * npm. What it saves: npm's start-up and tsx's, about a second of CPU for
 * each of the pages' hundred-odd npm commands.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { builtModule } from '../build/node-command.ts';

/** A script npm runs as `node --import tsx FILE.ts`, and no other way. */
const TSX_SCRIPT = /^node --import tsx ([\w/.-]+\.ts)$/;

/** The scripts of `packageJson` the shim runs itself, by name: their command line and the built module. */
export function shimmedScripts(packageJson: string): Map<string, { script: string; module: string }> {
  const { scripts = {} } = JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts?: Record<string, string> };
  const shimmed = new Map<string, { script: string; module: string }>();
  for (const [name, script] of Object.entries(scripts)) {
    const file = TSX_SCRIPT.exec(script)?.[1];
    const module = file ? builtModule(file) : null;
    if (module) shimmed.set(name, { script, module });
  }
  return shimmed;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes `npm` into `dir` (put it first in PATH) for the clone whose
 * package.json is `packageJson`; returns `dir`. Without a test build there
 * is nothing to shim: the script hands everything to the real npm.
 */
export function writeNpmRunShim(dir: string, packageJson: string, realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()): string {
  const { name, version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { name: string; version: string };
  const cases = [...shimmedScripts(packageJson)].map(([script, s]) => `  ${quote(script)}) script=${quote(s.script)}; module=${quote(s.module)} ;;`).join('\n');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'npm'), `#!/usr/bin/env bash
# docs/npm-run-shim.ts: npm start / npm run NAME for this clone's tsx scripts, from the test run's build; the rest to npm.
real=${quote(realNpm)}
case "\${1-}" in
  start) name=start; rest=("\${@:2}") ;;
  run|run-script) name="\${2-}"; rest=("\${@:3}") ;;
  *) exec "$real" "$@" ;;
esac
if [ \${#rest[@]} -gt 0 ]; then
  [ "\${rest[0]}" = "--" ] || exec "$real" "$@"
  rest=("\${rest[@]:1}")
fi
case "$name" in
${cases}
  *) exec "$real" "$@" ;;
esac
dir=$PWD
while [ ! -f "$dir/package.json" ]; do
  [ "$dir" = / ] && exec "$real" "$@"
  dir=$(dirname "$dir")
done
cmp -s "$dir/package.json" ${quote(packageJson)} || exec "$real" "$@"
if [ \${#rest[@]} -gt 0 ]; then shown="$script \${rest[*]}"; else shown="$script"; fi
printf '\\n> %s %s\\n> %s\\n\\n' ${quote(`${name}@${version}`)} "$name" "$shown"
cd "$dir" && exec ${quote(process.execPath)} "$module" "\${rest[@]}"
`);
  chmodSync(join(dir, 'npm'), 0o755);
  return dir;
}
