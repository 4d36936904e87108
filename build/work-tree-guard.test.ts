/** The work-tree guard (vitest globalSetup) on a scratch git repository: it notices what a run leaves behind. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardWorkTree } from './work-tree-guard.ts';

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

describe('guardWorkTree', () => {
  it('passes when the run left the tree as it was (node_modules/ and dist/ aside)', () => {
    const dir = repository();
    const teardown = guardWorkTree(dir, () => {})!;
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'built.js'), '');
    expect(teardown()).toBe(true);
    expect(process.exitCode).toBe(savedExitCode);
  });

  it.each([
    ['an ignored report file', 'reports/scenarios/x--live.md', '!! reports/scenarios/x--live.md'],
    ['an untracked file', 'fixtures.json', '?? fixtures.json'],
    ['a changed tracked file', 'kept.txt', ' M kept.txt'],
  ])('fails the run naming %s', (_what, path, line) => {
    const dir = repository();
    let said = '';
    const teardown = guardWorkTree(dir, (t) => (said += t))!;
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), 'changed\n');
    expect(teardown()).toBe(false);
    expect(said).toContain(`now   ${line}`);
    expect(process.exitCode).toBe(1);
  });

  it('has nothing to compare outside a git checkout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'work-tree-guard-'));
    dirs.push(dir);
    expect(guardWorkTree(dir, () => {})).toBeNull();
  });
});
