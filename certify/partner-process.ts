/**
 * The partner's system started by certify itself (`--partner-command`):
 * one shell command in its own process group, so that stopping it stops
 * everything it started (a `npx` wrapper, the node process under it, a
 * worker). Stopping sends SIGTERM to the group, waits for the group to be
 * gone, then SIGKILL; and if certify itself ends first (an error, Ctrl-C),
 * an exit hook kills the group, so no process certify started outlives it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** How long a stopped partner gets to shut down on SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 5_000;

export interface PartnerProcess {
  pid: number;
  command: string;
  /** Resolves with the exit code (or the signal's name) once the shell has exited. */
  exited: Promise<number | string>;
  /** Stops the whole process group; resolves once no process of it is left. */
  stop(): Promise<void>;
  /**
   * A crash, as the crash-and-restart drill makes one: SIGKILL to the whole
   * process group at once (nothing gets to run a handler or flush a buffer);
   * resolves once no process of it is left.
   */
  kill(): Promise<void>;
}

const live = new Set<number>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const pid of live) signalGroup(pid, 'SIGKILL');
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing of the group is left.
  }
}

/**
 * Whether any process of the group is still running. Where /proc exists a
 * zombie does not count (killed, waiting for a parent that may never reap
 * it, as in a container whose first process does not); elsewhere signal 0.
 */
export function groupRunning(pgid: number): boolean {
  if (!existsSync('/proc/self/stat')) return signalGroup(pgid, 0);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

export function startPartnerProcess(command: string, env: Record<string, string>, log: (line: string) => void): PartnerProcess {
  const child: ChildProcess = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`--partner-command could not be started: ${command}`);
  live.add(pid);
  hookExit();
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) log(`  partner | ${line}`);
    });
  }
  const exited = new Promise<number | string>((ok) => child.once('exit', (code, signal) => ok(code ?? signal ?? -1)));
  let stopping: Promise<void> | null = null;
  const killGroup = async () => {
    signalGroup(pid, 'SIGKILL');
    // SIGKILL is delivered asynchronously: wait until the kernel has taken them down.
    for (const killEnd = Date.now() + 2_000; groupRunning(pid) && Date.now() < killEnd;) await new Promise((ok) => setTimeout(ok, 20));
  };
  return {
    pid,
    command,
    exited,
    kill() {
      stopping ??= (async () => {
        await killGroup();
        await exited;
        live.delete(pid);
      })();
      return stopping;
    },
    stop() {
      stopping ??= (async () => {
        signalGroup(pid, 'SIGTERM');
        const end = Date.now() + STOP_GRACE_MS;
        while (groupRunning(pid) && Date.now() < end) await new Promise((ok) => setTimeout(ok, 50));
        if (groupRunning(pid)) {
          log(`  partner did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM: SIGKILL`);
          await killGroup();
        }
        await exited;
        live.delete(pid);
      })();
      return stopping;
    },
  };
}
