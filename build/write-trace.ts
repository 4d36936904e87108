/**
 * The record of what a test run's own processes wrote into the work tree
 * (build/write-trace.mjs, preloaded into each of them). The work-tree guard
 * starts one before the first test and reads it after the last.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';

const PRELOAD = new URL('./write-trace.mjs', import.meta.url).href;
const TRACE = 'WORK_TREE_WRITE_TRACE';
const ROOT = 'WORK_TREE_WRITE_TRACE_ROOT';

export interface WriteTrace {
  /** What a process needs in its environment to be traced: the preload and where it records. */
  env: Record<string, string>;
  /** The paths recorded so far, relative to the work tree ('.' for the tree itself). */
  written(): string[];
  /** Removes the trace file; processes still running record nothing more. */
  close(): void;
}

/** NODE_OPTIONS with the preload added once to what it held. */
function withPreload(nodeOptions: string | undefined): string {
  const flag = `--import=${PRELOAD}`;
  const current = (nodeOptions ?? '').trim();
  return current.split(/\s+/).includes(flag) ? current : `${current} ${flag}`.trim();
}

/** A fresh trace of the writes into `root` by every Node process started with `env`. */
export function startWriteTrace(root: string, nodeOptions = process.env.NODE_OPTIONS): WriteTrace {
  const dir = mkdtempSync(join(tmpdir(), 'work-tree-write-trace-'));
  const file = join(dir, 'written');
  writeFileSync(file, '');
  const env = { [TRACE]: file, [ROOT]: realpathSync.native(root).replace(new RegExp(`\\${sep}$`), ''), NODE_OPTIONS: withPreload(nodeOptions) };
  return {
    env,
    written: () => {
      try {
        return [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
      } catch {
        return [];
      }
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * For a test that builds a child's environment from scratch (the docs
 * examples, the CI emulator): the trace's variables of this process, and a
 * NODE_OPTIONS that keeps the preload beside `nodeOptions`, so what the child
 * writes into the work tree is still judged.
 */
export function keepWriteTrace(nodeOptions?: string): Record<string, string> {
  const file = process.env[TRACE];
  const root = process.env[ROOT];
  if (!file || !root) return nodeOptions ? { NODE_OPTIONS: nodeOptions } : {};
  return { [TRACE]: file, [ROOT]: root, NODE_OPTIONS: withPreload(nodeOptions) };
}

/** Whether `path` (relative to the work tree) is one the trace recorded, or below a directory it recorded. */
export function tracedBy(written: readonly string[]): (path: string) => boolean {
  const exact = new Set(written);
  return (path) => {
    const clean = path.replace(/\/$/, '');
    if (exact.has('.')) return true;
    for (let p = clean; p; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (exact.has(p)) return true;
    return false;
  };
}
