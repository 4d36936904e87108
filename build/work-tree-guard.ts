/**
 * vitest globalSetup: a test run leaves the work tree as it found it. The
 * `git status` of the checkout (untracked and ignored files listed one by
 * one, outside node_modules/ and the build's dist/) is taken before the
 * first test and compared after the last. A difference fails the run (exit
 * 1), naming the paths, when the run's own processes wrote it: every Node
 * process of the run is traced (build/write-trace.ts), and only the paths
 * they created, wrote, renamed, removed or changed the mode of, or anything
 * below a directory they made, are judged. What changed otherwise (a person
 * editing or adding a file in the clone while `npm test` runs) is listed as
 * a note and does not fail the run. Tests write under os.tmpdir(). Without
 * git (an unpacked tarball), there is nothing to compare.
 *
 * Not traced: writes by programs other than Node (a shell's redirection).
 * The tests run such commands (the docs examples, the CI recipes) in
 * temporary directories.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startWriteTrace, tracedBy, type WriteTrace } from './write-trace.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `XY path` per entry (git status --porcelain=v1 -z: no quoting), sorted; null without git. */
function status(root: string): string[] | null {
  const res = spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=traditional', '--', '.', ':(exclude)node_modules', ':(exclude)dist'], { cwd: root, encoding: 'utf8' });
  return res.status === 0 ? res.stdout.split('\0').filter(Boolean).sort() : null;
}

export interface WorkTreeGuard {
  /** What the run's processes need in their environment to be traced. */
  env: Record<string, string>;
  /** Compares, reports, and sets the exit code when a test changed the tree; true when none did. */
  teardown(): boolean;
}

/** Takes the snapshot and starts the trace. Null without git. */
export function guardWorkTree(root: string, report: (text: string) => void = (t) => process.stderr.write(t), trace: WriteTrace = startWriteTrace(root)): WorkTreeGuard | null {
  const before = status(root);
  if (before === null) {
    trace.close();
    return null;
  }
  return {
    env: trace.env,
    teardown: () => {
      const after = status(root);
      const written = tracedBy(trace.written());
      trace.close();
      if (after === null) return true;
      const was = new Set(before);
      const now = new Set(after);
      const changed = [...after.filter((line) => !was.has(line)).map((l) => ({ line: `now   ${l}`, path: l.slice(3) })), ...before.filter((line) => !now.has(line)).map((l) => ({ line: `was   ${l}`, path: l.slice(3) }))];
      const byTests = changed.filter((c) => written(c.path));
      const byOthers = changed.filter((c) => !written(c.path));
      if (byOthers.length > 0) {
        report(`\nnote: the work tree changed during the run, not by the tests' own processes (not judged):\n${byOthers.map((c) => c.line).join('\n')}\n`);
      }
      if (byTests.length === 0) return true;
      report(`\nFAIL  the test run changed the work tree (git status --porcelain --ignored; tests must write under os.tmpdir()):\n${byTests.map((c) => c.line).join('\n')}\n`);
      // vitest prints an error thrown here but keeps its exit code: set it.
      process.exitCode = 1;
      return false;
    },
  };
}

export default function setup(): (() => void) | undefined {
  const guard = guardWorkTree(ROOT);
  if (!guard) return undefined;
  // The test workers vitest starts next, and every process they start, inherit these.
  Object.assign(process.env, guard.env);
  return () => void guard.teardown();
}
