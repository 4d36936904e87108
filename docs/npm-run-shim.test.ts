import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtModule } from '../build/node-command.ts';
import { shimmedScripts, writeNpmRunShim } from './npm-run-shim.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE_JSON = join(ROOT, 'package.json');
const work = mkdtempSync(join(tmpdir(), 'npm-run-shim-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A clone as the docs test makes one (links into the checkout), with a subdirectory to run from. */
function clone(): string {
  const dir = mkdtempSync(join(work, 'clone-'));
  for (const entry of ['package.json', 'node_modules', 'cli', 'conformance', 'simulator', 'spec', 'protocol', 'reports', 'library', 'certify', 'scenarios', 'watch']) symlinkSync(join(ROOT, entry), join(dir, entry));
  mkdirSync(join(dir, 'sub'));
  return dir;
}

function sh(command: string, cwd: string, path?: string): Promise<{ code: number; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(path ? { PATH: `${path}:${process.env.PATH}` } : {}) };
  for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k];
  return new Promise((done) => {
    execFile('bash', ['-c', command], { cwd, env }, (error, out, err) => done({ code: error ? Number(error.code ?? 1) : 0, out, err }));
  });
}

describe('npm-run-shim: the docs pages\' npm start and npm run, from the test build', () => {
  it('shims exactly the scripts that are `node --import tsx FILE.ts` with FILE built, each to its built module', () => {
    const { scripts } = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { scripts: Record<string, string> };
    const shimmed = shimmedScripts(PACKAGE_JSON);
    expect(shimmed.size).toBeGreaterThan(0);
    for (const [name, script] of Object.entries(scripts)) {
      const file = /^node --import tsx ([\w/.-]+\.ts)$/.exec(script)?.[1];
      const built = file ? builtModule(file) : null;
      expect(shimmed.get(name)?.module ?? null, name).toBe(built);
    }
    // Node flags other than --import tsx: npm's way (the shim would drop them).
    expect(shimmed.has('bench')).toBe(false);
  });

  it('runs npm run NAME -- ARGS as npm does, from the package.json found upward: the same stdout, banner included, the same stderr and exit code', async () => {
    if (builtModule('conformance/cli.ts') === null) return; // Nothing is shimmed without a test build (CONFORMANCE_TEST_BUILD=off).
    const shim = writeNpmRunShim(join(work, 'shim-a'), PACKAGE_JSON);
    const dir = clone();
    for (const command of ['npm run conformance -- --help', 'npm run conformance -- --targt x', 'npm run partner-api -- spec --list']) {
      const real = await sh(command, join(dir, 'sub'));
      const shimmed = await sh(command, join(dir, 'sub'), shim);
      expect(shimmed, command).toEqual(real);
    }
  });

  it("hands everything else to the real npm: npm's options before --, other scripts and commands, another package.json", async () => {
    const recorder = join(work, 'recorder');
    const record = join(work, 'recorded');
    writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${record}'\n`);
    chmodSync(recorder, 0o755);
    const shim = writeNpmRunShim(join(work, 'shim-b'), PACKAGE_JSON, recorder);
    const dir = clone();
    const other = mkdtempSync(join(work, 'other-'));
    writeFileSync(join(other, 'package.json'), JSON.stringify({ name: 'other', version: '1.0.0', scripts: { conformance: 'node --import tsx conformance/cli.ts' } }));
    const handed = ['run conformance --silent', 'run --silent conformance -- --help', 'run conformance x', 'run typecheck', 'ci', 'test', 'start --port 1'];
    for (const args of handed) await sh(`npm ${args}`, dir, shim);
    await sh('npm run conformance -- --help', other, shim);
    expect(readFileSync(record, 'utf8').trim().split('\n')).toEqual([...handed, 'run conformance -- --help']);
  });
});
