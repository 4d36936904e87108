import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtScript, prune, testBuild, withJsSpecifiers } from './test-build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'test-build-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A clone in miniature: a package.json, esbuild in its own node_modules (so its builds stay in it), and `files`. */
function miniClone(files: Record<string, string>): string {
  const root = mkdtempSync(join(work, 'clone-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mini', version: '1.2.3', type: 'module' }));
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules', 'esbuild'), join(root, 'node_modules', 'esbuild'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('test-build: the sources as .js for the commands tests start', () => {
  it('rewrites relative .ts specifiers of imports, re-exports and dynamic imports, and nothing else', () => {
    const code = [
      'import { a } from "./a.ts";',
      'import "../side/effect.ts";',
      'export * from "./b/c.ts";',
      'const m = await import("./lazy.ts");',
      'import x from "tsx";',
      'import y from "pkg/file.ts";',
      'const text = "see ./notes.ts";',
    ].join('\n');
    expect(withJsSpecifiers(code).split('\n')).toEqual([
      'import { a } from "./a.js";',
      'import "../side/effect.js";',
      'export * from "./b/c.js";',
      'const m = await import("./lazy.js");',
      'import x from "tsx";',
      'import y from "pkg/file.ts";',
      'const text = "see ./notes.ts";',
    ]);
  });

  it('builds runnable code laid out as dist/ with the other files beside it, leaves tests out, and reuses an identical build', () => {
    const root = miniClone({
      'simulator/cli.ts': "import { answer } from './answer.ts';\nimport { readFileSync } from 'node:fs';\nconst doc: string = readFileSync(new URL('../spec/doc.yaml', import.meta.url), 'utf8');\nconsole.log(answer(), doc.trim());\n",
      'simulator/answer.ts': 'export const answer = (): number => 42;\n',
      'simulator/answer.test.ts': 'throw new Error("a test is not built");\n',
      'spec/doc.yaml': 'title: doc\n',
      'cli/run.sh': '#!/bin/sh\n',
    });
    execFileSync('chmod', ['755', join(root, 'cli/run.sh')]);
    const build = testBuild(root);
    expect(execFileSync(process.execPath, [builtScript(build, 'simulator/cli.ts')], { encoding: 'utf8' })).toBe('42 title: doc\n');
    expect(existsSync(join(build, 'package.json'))).toBe(true);
    expect(existsSync(join(build, 'dist', 'simulator', 'answer.test.js'))).toBe(false);
    expect(statSync(join(build, 'dist', 'cli', 'run.sh')).mode & 0o777).toBe(0o755);
    expect(testBuild(root)).toBe(build);
  });

  it('a changed source is another build', () => {
    const root = miniClone({ 'simulator/cli.ts': "console.log('one');\n" });
    const first = testBuild(root);
    writeFileSync(join(root, 'simulator/cli.ts'), "console.log('two');\n");
    const second = testBuild(root);
    expect(second).not.toBe(first);
    expect(execFileSync(process.execPath, [builtScript(second, 'simulator/cli.ts')], { encoding: 'utf8' })).toBe('two\n');
  });
  it('prunes the builds past the newest four once an hour old, and a half-written build of a run that died; keeps the one in use and anything younger', () => {
    const cache = mkdtempSync(join(work, 'cache-'));
    const hourAgo = Date.now() - 3_700_000;
    const make = (name: string, at: number) => {
      mkdirSync(join(cache, name));
      utimesSync(join(cache, name), at / 1000, at / 1000);
    };
    for (let i = 0; i < 6; i++) make(`test-build-${i}`, hourAgo - i * 1000);
    make('test-build-young.1.2.tmp', Date.now());
    make('test-build-dead.1.2.tmp', hourAgo);
    make('test-build-old-in-use', hourAgo - 10_000);
    prune(cache, join(cache, 'test-build-old-in-use'));
    expect(readdirSync(cache).sort()).toEqual(['test-build-0', 'test-build-1', 'test-build-2', 'test-build-3', 'test-build-old-in-use', 'test-build-young.1.2.tmp']);
  });
});
