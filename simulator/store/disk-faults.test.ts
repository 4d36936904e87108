/**
 * Issue 17, defect 4: a disk that refuses writes (ENOSPC, EIO, a file system
 * gone read-only). The request whose write failed answers 503 in the error
 * envelope, told at that moment; reads keep answering; writes resume by
 * themselves once the disk accepts them; nothing acknowledged is lost. The
 * faults come from the store's `writeFault` knob (a failing disk on demand,
 * also mid-write: part of a line on disk, then the error).
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fsPromises, { type FileHandle } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACK_FILE } from './ack-mark.ts';
import { FileStore } from './file-store.ts';
import { JournalFailedError } from './errors.ts';
import { MANIFEST_FILE } from './manifest.ts';
import { encodeHeader, encodeTransaction, JOURNAL_NAME, journalFileName, JournalWriter } from './journal.ts';
import type { Overlay } from './memory-store.ts';
import { sampleBooking } from './store.contract.ts';
import { makeHarness, newKey } from '../testing.ts';
import { STAFF_ROOT } from '../staff/routes.ts';

/**
 * A file handle's close, chmod or truncate that fails on demand, for the files `of` names: a close releases the
 * descriptor, then throws (counted in `refused`); a chmod or a truncate throws before changing anything. The faulty `open` is put in place through
 * node's own builtin exports (syncBuiltinESMExports updates every module's `import { open }` binding), not vi.mock:
 * a test worker keeps the modules it loaded from earlier files (vitest.config.ts, isolate: false), so a mock of a
 * module the store already imported would never reach it.
 */
interface HandleFault { of: (path: string) => boolean; thrown: Error }
const closeFault = { error: null as HandleFault | null, chmod: null as HandleFault | null, truncate: null as HandleFault | null, refused: 0, truncatesRefused: 0 };
const realOpen = fsPromises.open;
async function faultyOpen(...args: Parameters<typeof realOpen>): Promise<FileHandle> {
  const handle = await realOpen(...args);
  const path = String(args[0]);
  const close = handle.close.bind(handle);
  handle.close = async () => {
    await close();
    if (closeFault.error?.of(path)) {
      closeFault.refused += 1;
      throw closeFault.error.thrown;
    }
  };
  const chmod = handle.chmod.bind(handle);
  handle.chmod = async (mode) => {
    if (closeFault.chmod?.of(path)) throw closeFault.chmod.thrown;
    return chmod(mode);
  };
  const truncate = handle.truncate.bind(handle);
  handle.truncate = async (length) => {
    if (closeFault.truncate?.of(path)) {
      closeFault.truncatesRefused += 1;
      throw closeFault.truncate.thrown;
    }
    return truncate(length);
  };
  return handle;
}
beforeAll(() => {
  fsPromises.open = faultyOpen;
  syncBuiltinESMExports();
});
afterAll(() => {
  fsPromises.open = realOpen;
  syncBuiltinESMExports();
});

// A test that fails midway must not leave the fault on for the next.
afterEach(() => {
  closeFault.error = null;
  closeFault.chmod = null;
  closeFault.truncate = null;
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** The descriptors of this process open on `path` (Linux's /proc; elsewhere none are seen, and nothing is judged). */
function descriptorsOn(path: string): string[] {
  if (!existsSync('/proc/self/fd')) return [];
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

/** Until `ok()` holds (the journal retries every second; the test's time-out bounds the wait). */
async function until(ok: () => Promise<boolean>): Promise<void> {
  while (!(await ok())) await sleep(100);
}

describe('disk faults: 503 for the failed write, reads go on, writes resume by themselves, nothing acknowledged lost', () => {
  it('a create on a full disk answers 503 in the envelope; reads answer; once space is back the same key replays its 201', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'disk-faults-'));
    dirs.push(dir);
    let fault: (() => Error | null) | null = null;
    const told: string[] = [];
    const store = await FileStore.open(dir, {
      writeFault: () => fault?.() ?? null,
      onWriteFailure: (e) => told.push(`failure: ${e.message}`),
      onWriteRecovery: ({ transactions }) => told.push(`recovered: ${transactions}`),
    });
    const h = makeHarness({ store });
    await store.flush();
    const acknowledged: number[] = [];
    const before = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-10-01', check_out: '2026-10-02' }));
    expect(before.status, before.text).toBe(201);
    acknowledged.push(before.body.data.id);

    // The disk fills up in the middle of a write: part of a line lands, then ENOSPC.
    const journal = join(dir, readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)).sort().at(-1)!);
    fault = () => {
      appendFileSync(journal, '0badc0de {"n":');
      fault = enospc;
      return enospc();
    };
    const key = newKey();
    const body = h.bookingBody({ check_in: '2026-10-05', check_out: '2026-10-06' });
    const failed = await h.api('post', '/bookings').set('Idempotency-Key', key).send(body);
    expect(failed.status, failed.text).toBe(503);
    expect(failed.body).toEqual({ success: false, code: 'STORAGE_UNAVAILABLE', message: expect.stringMatching(/nothing of this request is acknowledged/), errors: {} });
    expect(failed.headers['retry-after']).toBe('1');
    expect(told, 'told at the moment it failed, once').toEqual([expect.stringMatching(/^failure: the journal .* could not be written or synced \(ENOSPC.*Writes are refused until the disk accepts them again/)]);

    // Reads keep answering; another write is refused before it is applied; staff writes too.
    expect((await h.api('get', '/me')).status).toBe(200);
    expect((await h.api('get', '/bookings')).status).toBe(200);
    expect((await h.http.get(`${STAFF_ROOT}/world`).set('Authorization', `Bearer ${h.fixtures.staffToken}`)).status).toBe(200);
    const bookings = store.size('bookings');
    const refused = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-10-08', check_out: '2026-10-09' }));
    expect(refused.status).toBe(503);
    expect(store.size('bookings'), 'a write refused during the outage is not applied').toBe(bookings);
    const staffWrite = await h.http.post(`${STAFF_ROOT}/brands`).set('Authorization', `Bearer ${h.fixtures.staffToken}`).send({ name: 'During the outage' });
    expect(staffWrite.status).toBe(503);

    // Space comes back: the journal retries by itself, and writes are accepted again.
    fault = null;
    await until(async () => store.stats().syncRounds > 0 && told.length === 2);
    expect(told[1]).toMatch(/^recovered: \d+/);
    const retried = await h.api('post', '/bookings').set('Idempotency-Key', key).send(body);
    expect(retried.status, 'the 503 told the client to retry; the key replays what the store kept').toBe(201);
    acknowledged.push(retried.body.data.id);
    const after = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-10-11', check_out: '2026-10-12' }));
    expect(after.status, after.text).toBe(201);
    acknowledged.push(after.body.data.id);
    await store.close();

    // Nothing acknowledged is lost, and the half line the full disk left is gone.
    const again = await FileStore.open(dir);
    expect(again.report.tornBytes).toBe(0);
    for (const id of acknowledged) expect(again.get('bookings', String(id)), `booking ${id}`).toBeDefined();
    await again.close();
  });
});

describe('the journal in an outage: refused at once, told once, retried by itself, nothing acknowledged lost', () => {
  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'disk-faults-'));
    dirs.push(dir);
    return dir;
  }
  const journalsOf = (dir: string) => readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)).sort();
  /** The journal line of a transaction that puts `{ booking_id: i }` as hold `i` (ASCII: its length is its bytes). */
  const holdLine = (n: number, i: number) => encodeTransaction(n, new Map([['holds', new Map<string, unknown>([[String(i), { booking_id: i }]])]]) as Overlay);
  const putHold = (store: FileStore, i: number) => store.transaction((tx) => tx.put('holds', String(i), { booking_id: i }));

  it('counts what waits to be written as journal bytes; an outage is told once however many retries fail, refuses flushes and compactions, and its recovery counts the transactions written late', async () => {
    const dir = dataDir();
    let fault: Error | null = null;
    let attempts = 0;
    const failures: Error[] = [];
    const recoveries: { ms: number; transactions: number }[] = [];
    const store = await FileStore.open(dir, {
      writeFault: () => (attempts++, fault),
      onWriteFailure: (e) => failures.push(e),
      onWriteRecovery: (outage) => recoveries.push(outage),
    });
    const journal = join(dir, journalsOf(dir).at(-1)!);
    putHold(store, 1);
    expect(store.stats().journalBytes, 'the header on disk and the line waiting').toBe(statSync(journal).size + holdLine(1, 1).length);
    await store.flush();
    expect(store.stats().journalBytes).toBe(statSync(journal).size);

    const watched = Date.now();
    fault = enospc();
    for (let i = 2; i <= 4; i++) putHold(store, i);
    const failed = await store.flush().then(() => null, (e: unknown) => e);
    expect(failed).toBeInstanceOf(JournalFailedError);
    expect((failed as JournalFailedError).durableN).toBe(1);
    expect((failed as Error).message).toBe(`the journal ${journal} could not be written or synced (ENOSPC: no space left on device, write); `
      + 'nothing after transaction 1 is acknowledged. Writes are refused until the disk accepts them again (retried every 1 s); reads go on.');
    expect(store.stats().journalBytes, 'the lines that failed still wait').toBe(statSync(journal).size + [2, 3, 4].reduce((n, i) => n + holdLine(i, i).length, 0));
    await until(async () => attempts >= 3); // two retries failed too
    expect(failures, 'told once for the outage, not once per retry').toHaveLength(1);
    await expect(store.compact()).rejects.toBeInstanceOf(JournalFailedError);
    expect(journalsOf(dir), 'a compaction refused in the outage starts no journal').toEqual([basename(journal)]);

    // The disk takes writes again: only the journal's own retry writes; a flush asked before it is still refused.
    fault = null;
    await expect(store.flush()).rejects.toBeInstanceOf(JournalFailedError);
    await until(async () => recoveries.length === 1);
    const ended = Date.now();
    expect(recoveries[0]!.transactions, 'transactions 2 to 4 were written late').toBe(3);
    expect(recoveries[0]!.ms).toBeGreaterThanOrEqual(0);
    expect(recoveries[0]!.ms).toBeLessThanOrEqual(ended - watched);
    expect(failures).toHaveLength(1);
    await store.flush();
    expect(store.stats().journalBytes).toBe(statSync(journal).size);
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.report.tornBytes).toBe(0);
    expect(Array.from(again.values('holds'))).toEqual([1, 2, 3, 4].map((i) => ({ booking_id: i })));
    await again.close();
  });

  it('close in an outage makes one last try: a disk that takes the writes again by then loses nothing', async () => {
    const dir = dataDir();
    let fault: Error | null = null;
    const store = await FileStore.open(dir, { writeFault: () => fault });
    putHold(store, 1);
    await store.flush();
    fault = enospc();
    putHold(store, 2);
    await expect(store.flush()).rejects.toBeInstanceOf(JournalFailedError);
    fault = null;
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.report.tornBytes).toBe(0);
    expect(Array.from(again.values('holds'))).toEqual([{ booking_id: 1 }, { booking_id: 2 }]);
    await again.close();
  });

  it('a close the disk still refuses is refused, leaves no descriptor open on the journal and no retry behind: nothing writes the journal after the lock is released', async () => {
    const dir = dataDir();
    // Only the journal's retry uses setTimeout here: a retry left after the close is a timer still pending.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const writer = await JournalWriter.open(dir, 0, 1);
      writer.writeFault = () => enospc();
      writer.append(1, holdLine(1, 1));
      await expect(writer.flush()).rejects.toBeInstanceOf(JournalFailedError);
      expect(vi.getTimerCount(), 'the outage\'s retry').toBe(1);
      await expect(writer.close()).rejects.toBeInstanceOf(JournalFailedError);
      expect(vi.getTimerCount(), 'no retry after the close').toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(readFileSync(join(dir, journalFileName(0)), 'utf8')).toBe(encodeHeader({ generation: 0, firstN: 1 }));
    // The file is closed too: no descriptor of this process still names it.
    expect(descriptorsOn(join(dir, journalFileName(0))), 'descriptors still open on the journal').toEqual([]);
  });

  it('a store whose close the disk refuses closes its acknowledgement mark too and releases its lock: the next open finds what was acknowledged', async () => {
    const dir = dataDir();
    let fault: Error | null = null;
    const store = await FileStore.open(dir, { writeFault: () => fault });
    const journal = join(dir, journalsOf(dir).at(-1)!);
    putHold(store, 1);
    await store.flush();
    fault = enospc();
    putHold(store, 2);
    await expect(store.close()).rejects.toBeInstanceOf(JournalFailedError);
    expect(descriptorsOn(journal), 'descriptors still open on the journal').toEqual([]);
    expect(descriptorsOn(join(dir, ACK_FILE)), 'descriptors still open on the acknowledgement mark').toEqual([]);
    const again = await FileStore.open(dir);
    expect(Array.from(again.values('holds'))).toEqual([{ booking_id: 1 }]);
    await again.close();
  });

  it('a transaction committed while a round is being written waits for the next round: its flush resolves with its line on disk', async () => {
    const dir = dataDir();
    let during: Promise<void> | null = null;
    let store: FileStore | null = null;
    const lines = () => readFileSync(join(dir, journalsOf(dir).at(-1)!), 'utf8').split('\n').filter((l) => l !== '').length;
    store = await FileStore.open(dir, {
      writeFault: () => {
        if (!during) {
          putHold(store!, 2);
          during = store!.flush();
        }
        return null;
      },
    });
    putHold(store, 1);
    await store.flush();
    await during;
    expect(lines(), 'the header and both transactions').toBe(3);
    await store.close();
  });

  it('the journal writer: a flush of a transaction appended while a round is written resolves only once the next round synced it, after the mark names it', async () => {
    const dir = dataDir();
    const writer = await JournalWriter.open(dir, 0, 1);
    const marked: number[] = [];
    writer.onDurable = (n) => void marked.push(n);
    let later: Promise<{ marked: number[]; lines: number }> | null = null;
    const lines = () => readFileSync(join(dir, journalFileName(0)), 'utf8').split('\n').filter((l) => l !== '').length;
    writer.writeFault = () => {
      if (!later) {
        writer.append(2, holdLine(2, 2));
        later = writer.flush().then(() => ({ marked: [...marked], lines: lines() }));
      }
      return null;
    };
    writer.append(1, holdLine(1, 1));
    await writer.flush();
    expect(await later).toEqual({ marked: [1, 2], lines: 3 });
    expect(writer.rounds).toBe(2);
    await writer.close();
  });

  it('a round that fails after part of it was written is cut back to its start and written again whole: each line once', async () => {
    const dir = dataDir();
    let writes = 0;
    // Just over 16 MiB of lines: two writes; the second fails.
    const store = await FileStore.open(dir, { writeFault: () => (++writes === 2 ? enospc() : null) });
    const mib = 'x'.repeat(1024 * 1024);
    for (let i = 1; i <= 20; i++) store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i, { notes: mib })));
    await expect(store.flush()).rejects.toBeInstanceOf(JournalFailedError);
    await until(async () => store.stats().syncRounds === 1);
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.report.tornBytes).toBe(0);
    expect(again.size('bookings')).toBe(20);
    await again.close();
  });

  it('the journal writer alone (no hook set) fails, retries and recovers by itself, rotates, and refuses a transaction out of order', async () => {
    const dir = dataDir();
    const writer = await JournalWriter.open(dir, 0, 1);
    let fault: Error | null = enospc();
    writer.writeFault = () => fault;
    writer.append(1, holdLine(1, 1));
    expect(() => writer.append(3, holdLine(3, 3))).toThrow('journal: transaction 3 appended after 1');
    await expect(writer.flush()).rejects.toBeInstanceOf(JournalFailedError);
    fault = null;
    await until(async () => writer.rounds === 1);
    writer.append(2, holdLine(2, 2));
    await writer.flush();
    const size = statSync(join(dir, journalFileName(0))).size;
    await expect(writer.rotate(1)).resolves.toEqual({ firstN: 3, previousBytes: size });
    writer.append(3, holdLine(3, 3));
    await writer.close();
    expect(journalsOf(dir)).toEqual([journalFileName(0), journalFileName(1)]);
    expect(readFileSync(join(dir, journalFileName(1)), 'utf8').endsWith(holdLine(3, 3))).toBe(true);
  });

  it('a retry whose cut-back the disk refuses fails again and keeps every line for the next: the journal holds each transaction once, and nothing else', async () => {
    const dir = dataDir();
    const writer = await JournalWriter.open(dir, 0, 1);
    let fault: Error | null = enospc();
    writer.writeFault = () => fault;
    writer.append(1, holdLine(1, 1));
    await expect(writer.flush()).rejects.toBeInstanceOf(JournalFailedError);
    // The retry's first step, cutting the file back to its synced size, is refused too: the retry fails before any round.
    closeFault.truncatesRefused = 0;
    closeFault.truncate = { of: (path) => path.endsWith(journalFileName(0)), thrown: Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' }) };
    fault = null;
    await until(async () => closeFault.truncatesRefused > 0);
    closeFault.truncate = null;
    await until(async () => writer.rounds === 1);
    writer.append(2, holdLine(2, 2));
    await writer.flush();
    await writer.close();
    expect(readFileSync(join(dir, journalFileName(0)), 'utf8')).toBe(encodeHeader({ generation: 0, firstN: 1 }) + holdLine(1, 1) + holdLine(2, 2));
  });

  it('a rotation whose manifest cannot be written is refused (it settles), its new file dropped; the journal in use takes the appends, and a later rotation to that generation starts afresh', async () => {
    const dir = dataDir();
    const writer = await JournalWriter.open(dir, 0, 1);
    writer.append(1, holdLine(1, 1));
    await writer.flush();
    writer.onRotate = () => {
      throw enospc();
    };
    const refused = writer.rotate(1).then(() => 'rotated', (e: Error) => e.message);
    writer.append(2, holdLine(2, 2));
    await writer.flush();
    expect(await refused).toMatch(/ENOSPC/);
    expect(writer.failed).toBeNull();
    expect(journalsOf(dir)).toEqual([journalFileName(0)]);
    expect(readFileSync(join(dir, journalFileName(0)), 'utf8').endsWith(holdLine(1, 1) + holdLine(2, 2))).toBe(true);
    let named: number | null = null;
    writer.onRotate = (g) => void (named = g);
    await expect(writer.rotate(1)).resolves.toEqual({ firstN: 3, previousBytes: statSync(join(dir, journalFileName(0))).size });
    writer.append(3, holdLine(3, 3));
    await writer.close();
    expect(named).toBe(1);
    expect(readFileSync(join(dir, journalFileName(1)), 'utf8')).toBe(encodeHeader({ generation: 1, firstN: 3 }) + holdLine(3, 3));
  });

  it('a rotation settles when a file refuses to close: refused with its new file dropped if the manifest failed, done if the manifest names the new file', async () => {
    const dir = dataDir();
    const writer = await JournalWriter.open(dir, 0, 1);
    writer.append(1, holdLine(1, 1));
    await writer.flush();
    // From here a journal file's close reports an error (as a write-back error does on a network file system), after
    // releasing its descriptor.
    closeFault.error = { of: (path) => JOURNAL_NAME.test(basename(path)), thrown: Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' }) };
    try {
      writer.onRotate = () => {
        throw enospc();
      };
      await expect(writer.rotate(1)).rejects.toThrow(/ENOSPC/);
      expect(journalsOf(dir)).toEqual([journalFileName(0)]);
      writer.onRotate = null;
      await expect(writer.rotate(1)).resolves.toEqual({ firstN: 2, previousBytes: statSync(join(dir, journalFileName(0))).size });
      expect(closeFault.refused, 'the new file\'s close, then the old file\'s').toBe(2);
      writer.append(2, holdLine(2, 2));
      await writer.flush();
      expect(writer.failed).toBeNull();
    } finally {
      closeFault.error = null;
    }
    await writer.close();
    expect(readFileSync(join(dir, journalFileName(1)), 'utf8')).toBe(encodeHeader({ generation: 1, firstN: 2 }) + holdLine(2, 2));
    expect(descriptorsOn(join(dir, journalFileName(0)))).toEqual([]);
  });

  it('a new journal whose header cannot be set up is closed and refused with its cause: the rotation fails, the journal in use goes on', async () => {
    const dir = dataDir();
    const writer = await JournalWriter.open(dir, 0, 1);
    writer.append(1, holdLine(1, 1));
    await writer.flush();
    closeFault.chmod = { of: (path) => path.endsWith(journalFileName(1)), thrown: Object.assign(new Error('EPERM: operation not permitted, fchmod'), { code: 'EPERM' }) };
    await expect(writer.rotate(1)).rejects.toThrow(/^EPERM: operation not permitted, fchmod$/);
    expect(descriptorsOn(join(dir, journalFileName(1))), 'the new file is closed').toEqual([]);
    writer.append(2, holdLine(2, 2));
    await writer.flush();
    expect(writer.failed).toBeNull();
    await writer.close();
    expect(readFileSync(join(dir, journalFileName(0)), 'utf8').endsWith(holdLine(1, 1) + holdLine(2, 2))).toBe(true);
  });

  it('a rotation whose new journal cannot be created is refused, and compaction and close still end', async () => {
    const dir = dataDir();
    const store = await FileStore.open(dir);
    store.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)));
    await store.flush();
    // The next journal's name is taken by a directory: opening it for appending fails.
    mkdirSync(join(dir, journalFileName(1)));
    await expect(store.compact()).rejects.toThrow(/EISDIR|EEXIST|directory/);
    // Only the compaction fails: the journal in use still takes and syncs the writes.
    store.transaction((tx) => tx.put('bookings', '2', sampleBooking(2)));
    await store.flush();
    await store.close();
    rmSync(join(dir, journalFileName(1)), { recursive: true });
    const again = await FileStore.open(dir);
    expect(again.size('bookings')).toBe(2);
    await again.close();
  });

  it('a compaction whose manifest cannot be written is refused; the store keeps writing, and the next compaction rotates to that generation', async () => {
    const dir = dataDir();
    const store = await FileStore.open(dir);
    store.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)));
    await store.flush();
    // The manifest's temporary name is taken by a directory: writing the manifest fails, after the new journal was created.
    const tmp = join(dir, `.${MANIFEST_FILE}.tmp`);
    mkdirSync(tmp);
    await expect(store.compact()).rejects.toThrow(/EISDIR|directory/);
    expect(journalsOf(dir)).toEqual([journalFileName(0)]);
    store.transaction((tx) => tx.put('bookings', '2', sampleBooking(2)));
    await store.flush();
    rmSync(tmp, { recursive: true });
    await store.compact();
    store.transaction((tx) => tx.put('bookings', '3', sampleBooking(3)));
    await store.flush();
    await store.close();
    expect(JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')).generation).toBe(1);
    const again = await FileStore.open(dir);
    expect(again.size('bookings')).toBe(3);
    await again.close();
  });
});
