/**
 * The work-tree guard (vitest globalSetup) on a scratch git repository: it
 * notices what the run's own processes leave behind, and only that. "The
 * run's processes" are Node processes started with the guard's environment
 * (as vitest's workers and everything they start are); the test process
 * itself plays the person who writes into the clone while the run goes on.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardWorkTree, type WorkTreeGuard } from './work-tree-guard.ts';

const dirs: string[] = [];
const savedExitCode = process.exitCode;
afterEach(() => {
  process.exitCode = savedExitCode;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'work-tree-guard-'));
  dirs.push(dir);
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  writeFileSync(join(dir, '.gitignore'), 'reports/*/\nnode_modules/\ndist/\n');
  writeFileSync(join(dir, 'kept.txt'), 'kept\n');
  git('add', '-A');
  git('commit', '-qm', 'start');
  return dir;
}

/** A process of the run: Node, started with the guard's environment, running `script` (ES module) in `cwd`. */
function runProcess(guard: WorkTreeGuard, cwd: string, script: string): void {
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env: { ...process.env, ...guard.env }, encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
}

describe('guardWorkTree', () => {
  it('passes when the run left the tree as it was (node_modules/ and dist/ aside)', () => {
    const dir = repository();
    const guard = guardWorkTree(dir, () => {})!;
    runProcess(guard, dir, `import { mkdirSync, writeFileSync } from 'node:fs'; mkdirSync('dist'); writeFileSync('dist/built.js', '');`);
    expect(guard.teardown()).toBe(true);
    expect(process.exitCode).toBe(savedExitCode);
  });

  it.each([
    ['an ignored report file', `import { mkdirSync, writeFileSync } from 'node:fs'; mkdirSync('reports/scenarios', { recursive: true }); writeFileSync('reports/scenarios/x--live.md', 'x');`, '!! reports/scenarios/x--live.md'],
    ['an untracked file', `import fs from 'node:fs'; fs.writeFileSync('fixtures.json', '{}');`, '?? fixtures.json'],
    ['a changed tracked file', `import { appendFile } from 'node:fs/promises'; await appendFile('kept.txt', 'more');`, ' M kept.txt'],
    ['a removed tracked file', `import { rmSync } from 'node:fs'; rmSync('kept.txt');`, ' D kept.txt'],
    ['a file written by a stream', `import { createWriteStream } from 'node:fs'; const s = createWriteStream('out.log'); s.end('x'); await new Promise((ok) => s.on('finish', ok));`, '?? out.log'],
  ])('fails the run naming %s that a process of the run wrote', (_what, script, line) => {
    const dir = repository();
    let said = '';
    const guard = guardWorkTree(dir, (t) => (said += t))!;
    runProcess(guard, dir, script);
    expect(guard.teardown()).toBe(false);
    expect(said).toContain(`now   ${line}`);
    expect(process.exitCode).toBe(1);
  });

  it('follows symbolic links: a process writing into a linked folder of the tree from a temporary directory is judged', () => {
    const dir = repository();
    mkdirSync(join(dir, 'spec'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'work-tree-guard-link-'));
    dirs.push(elsewhere);
    spawnSync('ln', ['-s', join(dir, 'spec'), join(elsewhere, 'spec')]);
    let said = '';
    const guard = guardWorkTree(dir, (t) => (said += t))!;
    runProcess(guard, elsewhere, `import { writeFileSync } from 'node:fs'; writeFileSync('spec/generated.d.ts', ''); writeFileSync('own.txt', '');`);
    expect(guard.teardown()).toBe(false);
    expect(said).toContain('now   ?? spec/generated.d.ts');
    expect(said).not.toContain('own.txt');
  });

  it('judges what any program wrote below a directory a process of the run made', () => {
    const dir = repository();
    let said = '';
    const guard = guardWorkTree(dir, (t) => (said += t))!;
    runProcess(guard, dir, `import { mkdirSync } from 'node:fs'; mkdirSync('scratch/deep', { recursive: true });`);
    writeFileSync(join(dir, 'scratch', 'deep', 'by-a-shell.txt'), '');
    expect(guard.teardown()).toBe(false);
    expect(said).toContain('now   ?? scratch/deep/by-a-shell.txt');
  });

  it('does not fail for files a person writes or edits in the clone during the run, and says it saw them', () => {
    const dir = repository();
    let said = '';
    const guard = guardWorkTree(dir, (t) => (said += t))!;
    // The run's process writes only where tests write; the person (this process, not traced) writes into the clone.
    runProcess(guard, dir, `import { mkdtempSync, writeFileSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path'; writeFileSync(join(mkdtempSync(join(tmpdir(), 'x-')), 'a'), '');`);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    writeFileSync(join(dir, 'kept.txt'), 'edited by hand\n');
    mkdirSync(join(dir, 'reports', 'latest'), { recursive: true });
    writeFileSync(join(dir, 'reports', 'latest', 'report.json'), '{}');
    expect(guard.teardown()).toBe(true);
    expect(process.exitCode).toBe(savedExitCode);
    expect(said).toContain('not by the tests\' own processes (not judged)');
    expect(said).toContain('now   ?? notes.txt');
    expect(said).toContain('now    M kept.txt');
    expect(said).not.toContain('FAIL');
  });

  it('has nothing to compare outside a git checkout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'work-tree-guard-'));
    dirs.push(dir);
    expect(guardWorkTree(dir, () => {})).toBeNull();
  });
});
