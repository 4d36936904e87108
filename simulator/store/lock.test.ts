/**
 * One simulator per data directory (lock.ts): the lock names its holder; a
 * holder that lives keeps it, whatever asks; one that is gone (a kill, a
 * reboot, its pid now another process's) loses it to the next opener; a
 * release removes only the releaser's own lock.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DataDirLockedError } from './errors.ts';
import { LOCK_FILE, lockDataDir, ownerAlive, type DataDirLock, type LockOwner } from './lock.ts';
import { openFilesUnder, tempDirs } from './test-support.ts';

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

  // The probe's answer for another user's process (kill(2) refuses this process the signal); as root it never comes, so it is told here.
  it('a holder the probe may not signal (EPERM: another user\'s process) lives, even where /proc hides its start time', () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    try {
      expect(ownerAlive(me())).toBe(true);
      // /proc mounted hidepid=2 shows no /proc/<pid> of another user: its start time cannot be read, so it cannot be disproved.
      expect(ownerAlive(me({ pid: deadPid() }))).toBe(true);
    } finally {
      kill.mockRestore();
    }
  });
});

describe('lockDataDir', () => {
  it('records the holder, owner-only, and a release removes it (once)', () => {
    const dir = tempDir();
    const before = Date.now();
    const lock = lockDataDir(dir);
    const after = Date.now();
    const text = readFileSync(join(dir, LOCK_FILE), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(lock.owner);
    expect(lock.owner).toMatchObject({ pid: process.pid, hostname: hostname(), start_ticks: ourTicks, boot_id: bootId });
    // Taken while lockDataDir ran (its clock read between the two readings here), however long that took.
    expect(Date.parse(lock.owner.locked_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(lock.owner.locked_at)).toBeLessThanOrEqual(after);
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

  it('refuses a lock that names this pid without a start time as another simulator\'s: it may be a process before this one', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(me({ start_ticks: null })));
    expect(() => lockDataDir(dir)).toThrow(`in use by another simulator (pid ${process.pid} on ${hostname()}, since 2026-09-15T06:30:00.000Z); stop it first`);
  });

  it('refuses a lock whose machine is recorded empty, saying it does not say which machine holds it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(me({ hostname: '', locked_at: '', pid: deadPid() })));
    expect(() => lockDataDir(dir)).toThrow(`(pid ${JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid}; the lock file records no hostname and no locked_at); stop it first or use another --data DIR; it does not say which machine holds it: if no simulator serves this directory, delete ${join(dir, LOCK_FILE)}`);
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

  it('fails with the cause where it cannot create the lock file for another reason than one being there (no directory)', () => {
    expect(() => lockDataDir(join(tempDir(), 'gone'))).toThrow(/ENOENT/);
  });

  it('fails with the cause where it cannot read the lock file for another reason than its absence (a directory)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, LOCK_FILE));
    expect(() => lockDataDir(dir)).toThrow(/EISDIR/);
  });

  it('never takes a lock file it can neither create nor read (a link to nowhere): it refuses, and leaves it', () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'nowhere'), join(dir, LOCK_FILE));
    expect(() => lockDataDir(dir)).toThrow(`the data directory ${dir} could not be locked: its lock file ${join(dir, LOCK_FILE)} keeps changing`);
    expect(readlinkSync(join(dir, LOCK_FILE))).toBe(join(dir, 'nowhere'));
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });

  it.runIf(linux)('holds no file open: the lock is a name on disk, not a descriptor', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    expect(openFilesUnder(dir)).toEqual([]);
    lock.release();
  });

  it('fails with the cause where a stale lock cannot be moved aside, never trying again as if it had gone', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), '');
    // Where this process moves its first stale lock (lock.ts: `<LOCK>.stale-<pid>-<attempt>`), a directory: rename(2) refuses.
    mkdirSync(join(dir, `${LOCK_FILE}.stale-${process.pid}-0`, 'full'), { recursive: true });
    expect(() => lockDataDir(dir)).toThrow(/EISDIR/);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('');
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

  /**
   * Another starter acting while this one reads LOCK: LOCK is a FIFO whose one writer, a child process, runs `then`
   * (JavaScript: `fs`, `lock` the LOCK path) once this process has opened LOCK to read and before that read ends, then
   * closes it: the read returns "" (a torn lock, nobody's), and what `then` did is done. No timer: each step waits on the
   * one before (the child's open returns once this process opens LOCK; this process's read ends once the child closes).
   * The child lives on (a holder that lives) until its stdin ends.
   */
  async function whileReading(dir: string, then: string): Promise<{ child: ChildProcess; outcome: DataDirLock | Error }> {
    const lock = join(dir, LOCK_FILE);
    expect(spawnSync('mkfifo', [lock]).status).toBe(0);
    const child = spawn(process.execPath, ['-e', `
      const fs = require('node:fs');
      const lock = process.argv[1];
      process.stdout.write('ready\\n');
      const fd = fs.openSync(lock, 'w');
      ${then}
      fs.closeSync(fd);
      process.stdin.resume();
    `, lock], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`the other starter exited with ${code} before opening ${lock}`)));
    });
    try {
      return { child, outcome: lockDataDir(dir) };
    } catch (e) {
      return { child, outcome: e as Error };
    }
  }
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill();
  });

  it.runIf(linux)('two starters racing for a torn lock: when the other moves it aside first, this one tries again and takes the free name', async () => {
    const dir = tempDir();
    const { outcome } = await whileReading(dir, 'fs.unlinkSync(lock);');
    expect(outcome).not.toBeInstanceOf(Error);
    const lock = outcome as DataDirLock;
    expect(lock.tookOver).toBeNull();
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toEqual(lock.owner);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    lock.release();
  });

  it.runIf(linux)('two starters racing for a torn lock: when the other has taken it meanwhile, this one gives its lock back and refuses, naming it', async () => {
    const dir = tempDir();
    const { child, outcome } = await whileReading(dir, `
      fs.unlinkSync(lock);
      fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, hostname: require('node:os').hostname(), locked_at: '2026-09-15T06:31:00.000Z' }), { flag: 'wx' });
    `);
    expect(outcome).toBeInstanceOf(DataDirLockedError);
    expect((outcome as Error).message).toBe(`the data directory ${dir} is in use by another simulator (pid ${child.pid} on ${hostname()}, since 2026-09-15T06:31:00.000Z); stop it first or use another --data DIR (lock file: ${join(dir, LOCK_FILE)})`);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: child.pid });
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });
});
