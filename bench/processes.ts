/**
 * Servers under test run as child processes, each in its own process group
 * so that everything it starts (npm, tsx's relaunch, esbuild) is stopped
 * with it. Where `taskset` exists and there are two or more cores, a server
 * is pinned to core 0 and the load generator (this process) to core 1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

/** True when `taskset` runs here and there are at least two cores to separate. */
export const canPin: boolean = cpus().length >= 2 && spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' }).status === 0;

/** One sentence for the report on how processes were placed. */
export function pinningText(): string {
  return canPin
    ? `servers under load on core ${SERVER_CORE} (taskset -c ${SERVER_CORE}), the load generator and the benchmark process on core ${LOAD_CORE}; in-process comparisons and cold starts unpinned`
    : `not pinned (${cpus().length < 2 ? 'fewer than two cores' : 'taskset not found'}): server and load generator share the cores, so ratios carry more noise`;
}

function affinityMask(): string | null {
  const out = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' });
  return out.status === 0 ? (/:\s*([0-9a-f,]+)\s*$/i.exec(out.stdout)?.[1] ?? null) : null;
}

function setAffinity(args: string[]): void {
  spawnSync('taskset', ['-a', '-p', ...args, String(process.pid)], { stdio: 'ignore' });
}

/** Runs `fn` with every thread of this process on `core`, then restores the previous affinity. */
export async function onCore<T>(core: number, fn: () => Promise<T>): Promise<T> {
  const previous = canPin ? affinityMask() : null;
  if (!previous) return fn();
  setAffinity(['-c', String(core)]);
  try {
    return await fn();
  } finally {
    setAffinity([previous]);
  }
}

export interface Child {
  process: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects when the process exits first or after `ms`. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

const running = new Set<Child>();

/**
 * Stops every child still running. SIGKILL when the benchmark is done with
 * them; SIGTERM when this process is itself being stopped, so that a child
 * that is a comparison (`run.ts --child`) stops the servers it started.
 */
export function stopAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const child of running) killGroup(child.process, signal);
}

function killGroup(p: ChildProcess, signal: NodeJS.Signals, evenAfterExit = false): void {
  if (p.pid === undefined || (!evenAfterExit && (p.exitCode !== null || p.signalCode !== null))) return;
  try {
    process.kill(-p.pid, signal);
  } catch {
    // Already gone.
  }
}

export interface StartOptions {
  /** Pins the process (and what it starts) to this core when pinning is possible. */
  core?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Starts `command args` in its own process group, capturing its output. */
export function start(command: string, args: string[], options: StartOptions = {}): Child {
  const pinned = options.core !== undefined && canPin;
  const p = spawn(pinned ? 'taskset' : command, pinned ? ['-c', String(options.core), command, ...args] : args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    if (text.length > 1_000_000) text = text.slice(-500_000);
    for (const l of listeners) l();
  };
  p.stdout!.on('data', onData);
  p.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
  const child: Child = {
    process: p,
    output: () => text,
    waitFor(pattern, ms) {
      return new Promise((resolve, reject) => {
        const done = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          p.off('exit', onExit);
          f();
        };
        const check = () => {
          const m = pattern.exec(text);
          if (m) done(() => resolve(m));
        };
        const onExit = (code: number | null) => done(() => reject(new Error(`${command} exited (${code}) before printing ${pattern}: ${text.slice(-600).trim()}`)));
        const timer = setTimeout(() => done(() => reject(new Error(`${command} printed no ${pattern} within ${ms} ms: ${text.slice(-600).trim()}`))), ms);
        listeners.add(check);
        p.once('exit', onExit);
        check();
      });
    },
    async stop() {
      killGroup(p, 'SIGTERM');
      const t = setTimeout(() => killGroup(p, 'SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
      running.delete(child);
    },
  };
  running.add(child);
  p.once('exit', () => {
    // The group may still hold grandchildren (tsx's esbuild service): end them too.
    killGroup(p, 'SIGKILL', true);
  });
  return child;
}

/** A port that was free a moment ago (for servers that cannot listen on port 0 and report it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers `status` (every 50 ms, at most `ms`). */
export async function waitForStatus(url: string, headers: Record<string, string>, status: number, ms: number, alive?: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < until) {
    if (alive && !alive()) throw new Error(`the server exited while waiting for ${url}`);
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === status) return;
      last = `answered ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer ${status} within ${ms} ms (${last})`);
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** CPU seconds (user + system, all threads) a process has used so far; null where /proc is not readable. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

const scratch = new Set<string>();

/** A new temporary directory, removed by removeScratch() even when the run is interrupted. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.add(dir);
  return dir;
}

/** Removes one scratch directory, or all of them. */
export function removeScratch(dir?: string): void {
  for (const d of dir ? [dir] : [...scratch]) {
    rmSync(d, { recursive: true, force: true });
    scratch.delete(d);
  }
}
