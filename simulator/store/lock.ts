/**
 * One simulator per data directory: an exclusive `LOCK` file naming the
 * process that holds it. A second opener refuses while that process lives;
 * a lock left by a dead process (a kill, a crash, a reboot) is taken over.
 *
 * "Lives" is checked by pid and, where Linux tells us, by the process start
 * time and the boot id, so a pid reused by an unrelated process (common in
 * containers, where the simulator is often pid 1) does not hold the lock.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError } from './errors.ts';

export const LOCK_FILE = 'LOCK';

/** What the lock file records about its holder. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** Process start time in clock ticks since boot (Linux /proc), when known. */
  start_ticks: string | null;
  boot_id: string | null;
  locked_at: string;
}

export interface DataDirLock {
  readonly path: string;
  readonly owner: LockOwner;
  /** True when the lock was taken over from a process that is gone. */
  readonly tookOver: LockOwner | null;
  release(): void;
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  }
  // Stryker disable next-line BlockStatement: undefined reads as null wherever it goes: startTicks tests !stat; bootId's (off Linux only) leaves boot_id out of LOCK, read back as none
  // (Stryker reads only a node's leading comments: here, between the try block and its catch, this one leads the catch clause.)
  catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (starttime), read after the command name, which may hold spaces. */
function startTicks(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

function bootId(): string | null {
  return readProc('/proc/sys/kernel/random/boot_id');
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded holder is still running (on this machine). */
export function ownerAlive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true; // a shared directory: we cannot tell, so we do not steal
  const boot = bootId();
  if (owner.boot_id && boot && owner.boot_id !== boot) return false; // held before a reboot
  if (!pidAlive(owner.pid)) return false;
  const ticks = startTicks(owner.pid);
  return !(owner.start_ticks && ticks && owner.start_ticks !== ticks); // the pid now names another process
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as LockOwner;
    return Number.isInteger(o.pid) && o.pid > 0 ? o : null;
  } catch {
    return null;
  }
}

/** A text field the lock file records, or null when it lacks it (a hand-written or older LOCK). */
function recorded(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The holder as the message names it; fields the lock file lacks are named as missing, never printed "undefined" (issue 29 item 7). */
function describe(owner: LockOwner): string {
  const host = recorded(owner.hostname);
  const since = recorded(owner.locked_at);
  const missing = [host ? null : 'hostname', since ? null : 'locked_at'].filter((m) => m !== null);
  return `pid ${owner.pid}${host ? ` on ${host}` : ''}${since ? `, since ${since}` : ''}${missing.length > 0 ? `; the lock file records no ${missing.join(' and no ')}` : ''}`;
}

function tryCreate(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Takes the lock of `dir` or throws DataDirLockedError naming the holder.
 * A stale lock is moved aside under a unique name before it is removed, so
 * two starters racing for the same stale lock cannot both win: the loser
 * finds it moved a live lock, puts it back and refuses.
 */
export function lockDataDir(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid, hostname: hostname(), start_ticks: startTicks(process.pid), boot_id: bootId(), locked_at: new Date().toISOString(),
  };
  const text = JSON.stringify(owner) + '\n';
  let tookOver: LockOwner | null = null;
  // Stryker disable next-line EqualityOperator: the count of tries bounds a livelock, no rule: five or six tries at a lock that keeps changing refuse alike
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, text)) {
      let released = false;
      return {
        path, owner, tookOver,
        release() {
          if (released) return;
          released = true;
          // Only our own lock: never remove one another process took over meanwhile.
          if (readText(path) === text) unlinkSync(path);
        },
      };
    }
    const current = readText(path);
    if (current === null) continue; // released meanwhile
    const holder = parseOwner(current);
    // An unreadable lock is one torn by a kill between create and write: nobody holds it.
    if (holder && ownerAlive(holder)) {
      const who = holder.pid === process.pid && holder.start_ticks === owner.start_ticks ? 'this process' : `another simulator (${describe(holder)})`;
      // A lock that names no machine is never taken over (ownerAlive cannot tell): say so, and what to do.
      const hint = recorded(holder.hostname) === null
        ? `; it does not say which machine holds it: if no simulator serves this directory, delete ${path}`
        : holder.hostname !== owner.hostname ? `; this machine cannot check a process on ${holder.hostname}: if no simulator runs there, delete ${path}` : ` (lock file: ${path})`;
      throw new DataDirLockedError(`the data directory ${dir} is in use by ${who}; stop it first or use another --data DIR${hint}`);
    }
    const aside = `${path}.stale-${process.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    if (readText(aside) === current) {
      unlinkSync(aside);
      tookOver = holder;
      continue;
    }
    // We moved a fresh lock someone took meanwhile: give it back.
    try {
      linkSync(aside, path);
    } catch {
      // Someone else holds the name by now; theirs stands.
    }
    unlinkSync(aside);
  }
  throw new DataDirLockedError(`the data directory ${dir} could not be locked: its lock file ${path} keeps changing (another simulator starting?)`);
}
