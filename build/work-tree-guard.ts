/**
 * vitest globalSetup: a test run leaves the work tree as it found it. The
 * `git status` of the checkout (untracked and ignored files listed one by
 * one, outside node_modules/ and the build's dist/) is taken before the
 * first test and compared after the last; a difference fails the run
 * (exit 1), naming the paths. Tests write under os.tmpdir(). Without git
 * (an unpacked tarball), there is nothing to compare.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function status(root: string): string[] | null {
  const res = spawnSync('git', ['status', '--porcelain=v1', '--untracked-files=all', '--ignored=traditional', '--', '.', ':(exclude)node_modules', ':(exclude)dist'], { cwd: root, encoding: 'utf8' });
  return res.status === 0 ? res.stdout.split('\n').filter(Boolean).sort() : null;
}

/** Takes the snapshot; the returned teardown compares, reports and sets the exit code. Null without git. */
export function guardWorkTree(root: string, report: (text: string) => void = (t) => process.stderr.write(t)): (() => boolean) | null {
  const before = status(root);
  if (before === null) return null;
  return () => {
    const after = status(root);
    if (after === null) return true;
    const was = new Set(before);
    const now = new Set(after);
    const changed = [...after.filter((line) => !was.has(line)).map((l) => `now   ${l}`), ...before.filter((line) => !now.has(line)).map((l) => `was   ${l}`)];
    if (changed.length === 0) return true;
    report(`\nFAIL  the test run changed the work tree (git status --porcelain --ignored; tests must write under os.tmpdir()):\n${changed.join('\n')}\n`);
    // vitest prints an error thrown here but keeps its exit code: set it.
    process.exitCode = 1;
    return false;
  };
}

export default function setup(): (() => void) | undefined {
  const teardown = guardWorkTree(ROOT);
  return teardown ? () => void teardown() : undefined;
}
