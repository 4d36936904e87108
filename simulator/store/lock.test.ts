/**
 * One simulator per data directory (lock.ts): the lock names its holder; a
 * holder that lives keeps it, whatever asks; one that is gone (a kill, a
 * reboot, its pid now another process's) loses it to the next opener; a
 * release removes only the releaser's own lock.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DataDirLockedError } from './errors.ts';
import { LOCK_FILE, lockDataDir, ownerAlive, type LockOwner } from './lock.ts';
import { tempDirs } from './test-support.ts';

const tempDir = tempDirs('lock-test-');
const linux = process.platform === 'linux';
const bootId = linux ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : null;
/** Field 22 of /proc/self/stat: this process's start time in ticks since boot. */
const ourTicks = linux ? readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]! : null;
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}
const me = (more: Partial<LockOwner> = {}): LockOwner => ({ pid: process.pid, hostname: hostname(), start_ticks: ourTicks, boot_id: bootId, locked_at: '2026-09-15T06:30:00.000Z', ...more });

describe.runIf(linux)('ownerAlive: the holder still runs, as this machine can tell', () => {
  it('this process, as it recorded itself, lives', () => {
    expect(ownerAlive(me())).toBe(true);
    expect(ownerAlive(me({ start_ticks: null, boot_id: null }))).toBe(true);
  });

  it('a holder recorded before a reboot, or whose pid now names another process, or that has exited, is gone', () => {
    expect(ownerAlive(me({ boot_id: '00000000-0000-0000-0000-000000000000' }))).toBe(false);
    expect(ownerAlive(me({ start_ticks: '1' }))).toBe(false);
    expect(ownerAlive(me({ pid: deadPid() }))).toBe(false);
    expect(ownerAlive(me({ pid: deadPid(), start_ticks: null, boot_id: null }))).toBe(false);
  });

  it('a holder on another machine is never taken for gone: this machine cannot tell', () => {
    expect(ownerAlive(me({ hostname: `not-${hostname()}`, pid: deadPid(), boot_id: 'another boot' }))).toBe(true);
  });
});

describe('lockDataDir', () => {
  it('records the holder, owner-only, and a release removes it (once)', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    const text = readFileSync(join(dir, LOCK_FILE), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(lock.owner);
    expect(lock.owner).toMatchObject({ pid: process.pid, hostname: hostname(), start_ticks: ourTicks, boot_id: bootId });
    expect(Date.now() - Date.parse(lock.owner.locked_at)).toBeLessThan(60_000);
    expect(lock.path).toBe(join(dir, LOCK_FILE));
    expect(lock.tookOver).toBeNull();
    expect((statSync(lock.path).mode & 0o777).toString(8)).toBe('600');
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    next(dir, lock);
  });

  /** The next lock, taken in the same millisecond (its file the same text): a second release of the old one leaves it. */
  function next(dir: string, old: ReturnType<typeof lockDataDir>): void {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(old.owner.locked_at) });
    try {
      const again = lockDataDir(dir);
      expect(readFileSync(again.path, 'utf8')).toBe(`${JSON.stringify(old.owner)}\n`);
      old.release();
      expect(existsSync(again.path), 'a second release leaves the next holder\'s lock').toBe(true);
      again.release();
    } finally {
      vi.useRealTimers();
    }
  }

  it('a release never removes a lock another process took over meanwhile', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    const theirs = JSON.stringify(me({ pid: 1 }));
    writeFileSync(lock.path, theirs);
    lock.release();
    expect(readFileSync(lock.path, 'utf8')).toBe(theirs);
  });

  it('refuses a second lock of this process, saying so and naming the lock file', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    try {
      expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
      expect(() => lockDataDir(dir)).toThrow(`the data directory ${dir} is in use by this process; stop it first or use another --data DIR (lock file: ${lock.path})`);
    } finally {
      lock.release();
    }
  });

  it('refuses a lock held on another machine, and says what this machine cannot check', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(me({ hostname: 'build-7', pid: deadPid() })));
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another simulator \\(pid \\d+ on build-7, since 2026-09-15T06:30:00.000Z\\); stop it first or use another --data DIR; this machine cannot check a process on build-7: if no simulator runs there, delete ${join(dir, LOCK_FILE).replace(/[.]/g, '\\.')}$`));
  });

  it.runIf(linux)('takes over the lock of a holder that is gone, says from whom, and leaves nothing aside', () => {
    for (const gone of [me({ pid: deadPid() }), me({ boot_id: '00000000-0000-0000-0000-000000000000' }), me({ start_ticks: '1' })]) {
      const dir = tempDir();
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(gone));
      const lock = lockDataDir(dir);
      expect(lock.tookOver).toEqual(gone);
      expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toEqual(lock.owner);
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
      lock.release();
    }
  });

  it('takes over a lock that names no process it could be (torn, not JSON, no pid, pid 0 or fractional): from nobody', () => {
    for (const text of ['', '{"pid":', '{}', '{"pid":0}', '{"pid":-4}', '{"pid":1.5}', 'null']) {
      const dir = tempDir();
      writeFileSync(join(dir, LOCK_FILE), text);
      const lock = lockDataDir(dir);
      expect(lock.tookOver, text).toBeNull();
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
      lock.release();
    }
  });
});
