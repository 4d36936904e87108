/**
 * The few file-system steps durability rests on: write a whole buffer, sync a
 * directory (so a created, renamed or removed name survives a power loss),
 * and replace a small file atomically.
 */
import { chmodSync, closeSync, existsSync, fchmodSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * mkdir -p, one level at a time from the nearest existing ancestor. Node's
 * own `recursive: true` never returns on some pseudo file systems (/proc/x
 * spins forever), where a plain mkdir fails at once with the cause.
 */
export function makeDirectory(path: string, mode = 0o700): void {
  // The names of the missing levels, each made below the one before, from the nearest existing ancestor `p` down.
  const missing: string[] = [];
  let p = resolve(path);
  for (; !existsSync(p); p = dirname(p)) {
    missing.unshift(basename(p));
    // Stryker disable next-line all: only a root that does not exist stops here (a missing drive on Windows); a POSIX root always exists
    if (dirname(p) === p) break;
  }
  for (const name of missing) {
    p = join(p, name);
    try {
      mkdirSync(p, { mode });
    } catch (e) {
      // A level another process made meanwhile is made; any other failure is the cause.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  // An existing name that is not a directory is refused as mkdir would refuse it (a directory, just made or not, is left as it is).
  mkdirSync(path, { recursive: true, mode });
}

/** One mode changed by {@link tightenModes}: `name` is `.` for the directory itself. */
export interface ModeChange {
  name: string;
  from: number;
  to: number;
}

/**
 * Takes from `dir` and every regular file directly in it whatever anyone but
 * the owner may do (a 0755 directory becomes 0700, a 0644 file 0600; files
 * lose execute bits too), and returns what it changed: nothing when all was
 * already so. Issue 29 item 4: files an older version wrote 0644
 * (`vault.key` unseals the webhook secrets, `demo-credentials.json` holds
 * credentials, the journals guest details) and a directory the user made
 * 0755 beforehand stayed readable by anyone. It only takes away: a directory
 * the owner made read-only (0500) stays so, and the start is refused as
 * before. Symbolic links are left alone: chmod would follow them out of `dir`.
 */
export function tightenModes(dir: string): ModeChange[] {
  const changes: ModeChange[] = [];
  const tighten = (path: string, name: string, keep: number) => {
    const from = lstatSync(path).mode & 0o7777;
    const to = from & keep;
    if (from === to) return;
    chmodSync(path, to);
    changes.push({ name, from, to });
  };
  tighten(dir, '.', 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) tighten(join(dir, entry.name), entry.name, 0o600);
  }
  return changes;
}

/** `write` may stop short of the whole buffer; loop until it is all written. */
export async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  for (let off = 0; off < buf.length;) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    off += bytesWritten;
  }
}

/** fsync of a directory: makes the names created, renamed or removed in it durable. */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (e) {
    // Windows cannot open a directory for syncing; its renames are as durable as they get.
    // Stryker disable next-line ConditionalExpression,StringLiteral: Windows only: on POSIX, where the store runs its tests, every failure is thrown either way
    if (process.platform !== 'win32') throw e;
  } finally {
    await fh?.close();
  }
}

export function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (e) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: Windows only: on POSIX, where the store runs its tests, every failure is thrown either way
    if (process.platform !== 'win32') throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Replaces `path` with `text` so that a kill or a power loss leaves either the
 * old or the new content, never a torn one: temp file, fsync, rename, fsync dir.
 */
export function writeFileDurablySync(path: string, text: string, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    fchmodSync(fd, mode); // exactly `mode`, whatever the umask
    writeFileSync(fd, text); // the whole text, however short each write stops
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDirSync(dirname(path));
}
