/**
 * What the file store promises, case by case (mutation testing of
 * file-store.ts, issue 43): a closed store refuses work; a compaction that
 * fails leaves the journals whole and cleans up only what nothing points at;
 * the snapshot lists tables in rank order without volatile or empty ones;
 * open and stats count every journal; compaction starts at its limit.
 * Waits are on events (promises, compaction steps), never on the clock.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { CompactionStep, FileStore, FileStoreOptions } from './file-store.ts';
import { JOURNAL_NAME } from './journal.ts';
import { ACK_FILE, readAckMark } from './ack-mark.ts';
import { PART_NAME, SNAPSHOT_TEMP } from './snapshot.ts';
import { sampleBooking } from './store.contract.ts';
import type { TableName } from './store.ts';
import { openedFileStores, tempDirs } from './test-support.ts';

const tempDir = tempDirs('file-store-promises-');

const { open: openStore } = openedFileStores();

function journals(dir: string): string[] {
  return readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)).sort();
}

function parts(dir: string): string[] {
  return readdirSync(dir).filter((n) => PART_NAME.test(n)).sort();
}

function fill(store: FileStore, from: number, to: number): void {
  store.transaction((tx) => {
    for (let i = from; i <= to; i++) tx.put('bookings', String(i), sampleBooking(i));
  });
}

function bookingIds(store: FileStore): string[] {
  return Array.from(store.values('bookings'), (b) => String((b as { id: unknown }).id)).sort((a, b) => Number(a) - Number(b));
}

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}

describe('FileStore: a closed store', () => {
  it('refuses a write after close with an error naming the directory, and a second close does nothing', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 1);
    await store.close();
    expect(() => fill(store, 2, 2)).toThrow(`the store in ${store.dir} is closed`);
    const mark = readFileSync(join(dir, ACK_FILE));
    await expect(store.close()).resolves.toBeUndefined();
    expect(readFileSync(join(dir, ACK_FILE))).toEqual(mark);
  });

  it('refuses a compaction once close has begun, and after it', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 3);
    const closing = store.close();
    await expect(store.compact()).rejects.toThrow(`the store in ${store.dir} is closing`);
    await closing;
    await expect(store.compact()).rejects.toThrow(`the store in ${store.dir} is closing`);
    const again = await openStore(dir);
    expect(bookingIds(again)).toEqual(range(1, 3));
    expect(again.stats().generation).toBe(0);
  });
});

describe('FileStore: the acknowledgement mark at open', () => {
  it('names the last transaction on open, and reports a sound mark as undamaged', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 1);
    fill(store, 2, 2);
    fill(store, 3, 3);
    await store.close();
    const again = await openStore(dir);
    expect(again.report.ackMarkDamaged).toBe(false);
    expect(readAckMark(dir)).toEqual({ n: 3, issued: {} });
  });

  it('reports a damaged mark as damaged and loads by the journals', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 2);
    await store.close();
    writeFileSync(join(dir, ACK_FILE), 'not a mark\n');
    const again = await openStore(dir);
    expect(again.report.ackMarkDamaged).toBe(true);
    expect(bookingIds(again)).toEqual(range(1, 2));
    expect(readAckMark(dir)).toEqual({ n: 1, issued: {} });
  });
});

describe('FileStore: a compaction that fails', () => {
  /** A store whose compaction throws at `at`, once. */
  async function failingAt(dir: string, at: CompactionStep, options: FileStoreOptions = {}): Promise<FileStore> {
    let thrown = false;
    return openStore(dir, {
      ...options,
      onCompactionStep: (step) => {
        if (step === at && !thrown) {
          thrown = true;
          throw new Error(`fault at ${step}`);
        }
      },
    });
  }

  it('after rotating: both journals stay, stats and the reopened report count both, and every transaction loads', async () => {
    const dir = tempDir();
    const store = await failingAt(dir, 'rotated');
    fill(store, 1, 5);
    await expect(store.compact()).rejects.toThrow('fault at rotated');
    fill(store, 6, 8);
    fill(store, 9, 9);
    await store.flush();
    expect(journals(dir)).toEqual(['journal.000000.log', 'journal.000001.log']);
    const onDisk = journals(dir).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    expect(store.stats().journalBytes).toBe(onDisk);
    expect(store.stats().compactions).toBe(0);
    await store.close();
    const again = await openStore(dir);
    expect(bookingIds(again)).toEqual(range(1, 9));
    expect(again.report.transactionsReplayed).toBe(3);
    expect(again.stats().journalBytes).toBe(onDisk);
    expect(again.stats().generation).toBe(1);
    // A compaction now covers both journals and drops them.
    await again.compact();
    expect(journals(dir)).toEqual(['journal.000002.log']);
    expect(again.stats().journalBytes).toBe(statSync(join(dir, 'journal.000002.log')).size);
  });

  it('before the rename: no temp or part file of that generation stays; the older snapshot\'s parts do', async () => {
    const dir = tempDir();
    const store = await failingAt(dir, 'journal-synced', { partBytes: 2 * 1024 });
    fill(store, 1, 200);
    // The first step 'journal-synced' throws: compact once to fail, then succeed, then fail again is not needed:
    await expect(store.compact()).rejects.toThrow('fault at journal-synced');
    expect(readdirSync(dir).filter((n) => n === SNAPSHOT_TEMP || PART_NAME.test(n))).toEqual([]);
    await store.compact();
    const live = parts(dir);
    expect(live.length).toBeGreaterThan(0);
    await store.close();
    const again = await openStore(dir);
    expect(bookingIds(again)).toEqual(range(1, 200));
  });

  it('after the rename: the new snapshot is live, its parts stay, and every transaction loads', async () => {
    const dir = tempDir();
    const store = await failingAt(dir, 'renamed', { partBytes: 2 * 1024 });
    fill(store, 1, 200);
    await expect(store.compact()).rejects.toThrow('fault at renamed');
    const live = parts(dir);
    expect(live.length).toBeGreaterThan(0);
    fill(store, 201, 201);
    await store.close();
    expect(parts(dir)).toEqual(live);
    const again = await openStore(dir);
    expect(bookingIds(again)).toEqual(range(1, 201));
  });

  it('in the background: told to onError once, and retried only after as much journal again', async () => {
    const dir = tempDir();
    const errors: Error[] = [];
    const store = await failingAt(dir, 'rotated', {
      compactAfterBytes: 4 * 1024,
      onError: (e) => errors.push(e),
    });
    fill(store, 1, 20); // well past 4 KiB: starts a compaction, which fails
    expect(store.stats().compacting).toBe(true);
    // Joins the compaction in progress; its rejection reaches onError first (that handler was attached first).
    await store.compact().catch(() => undefined);
    expect(errors.map((e) => e.message)).toEqual(['fault at rotated']);
    expect(store.stats().compacting).toBe(false);
    fill(store, 21, 21); // far less than 4 KiB more: no new compaction yet
    expect(store.stats().compacting).toBe(false);
    await store.close();
    const again = await openStore(dir);
    expect(bookingIds(again)).toEqual(range(1, 21));
  });

  it('in the background with no onError: the failure is kept quiet (no rejection left unhandled) and writes go on', async () => {
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      const store = await failingAt(tempDir(), 'rotated', { compactAfterBytes: 4 * 1024 });
      fill(store, 1, 20); // well past 4 KiB: starts a compaction, which fails
      await store.compact().catch(() => undefined);
      // An unhandled rejection is told after the microtasks: a turn of the event loop later.
      await nextTurn();
      expect(unhandled).toEqual([]);
      fill(store, 21, 21);
      await store.flush();
      expect(store.size('bookings')).toBe(21);
    } finally {
      process.off('unhandledRejection', note);
    }
  });
});

describe('FileStore: the snapshot a compaction writes', () => {
  it('yields to requests after 2 ms of writing by default, and after sliceMs when given', async () => {
    // A clock that moves 1 ms at each reading: the writer looks at it every 64 records, so 640 records take several 2 ms slices.
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => ++now);
    try {
      const byDefault = await openStore(tempDir());
      fill(byDefault, 1, 640);
      expect((await byDefault.compact()).slices).toBeGreaterThan(1);
      const long = await openStore(tempDir(), { sliceMs: 1_000_000 });
      fill(long, 1, 640);
      expect((await long.compact()).slices).toBe(1);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('lists tables in rank order (unknown ones after, by name), without volatile or emptied tables', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    store.transaction((tx) => {
      tx.put('zeta' as TableName, 'z', { v: 1 } as never);
      tx.put('events', '1', { v: 2 } as never);
      tx.put('alpha' as TableName, 'a', { v: 3 } as never);
      tx.put('bookings', '1', sampleBooking(1));
      tx.put('settings', 's', { v: 4 } as never);
      tx.put('properties', 'p', { v: 5 } as never);
      tx.put('holds', 'h', { v: 6 } as never);
      tx.put('rateWindows', 'w', { v: 7 } as never);
    });
    store.transaction((tx) => tx.delete('holds', 'h'));
    await store.compact();
    const doc = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { tables: Record<string, unknown> };
    expect(Object.keys(doc.tables)).toEqual(['settings', 'properties', 'bookings', 'events', 'alpha', 'zeta']);
  });

  it('drops the part files of the snapshot it replaces', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { partBytes: 2 * 1024 });
    fill(store, 1, 200);
    await store.compact();
    const first = parts(dir);
    expect(first.length).toBeGreaterThan(0);
    fill(store, 201, 202);
    await store.compact();
    const second = parts(dir);
    expect(second.some((n) => first.includes(n))).toBe(false);
    await store.close();
    const again = await openStore(dir);
    expect(bookingIds(again)).toEqual(range(1, 202));
  });
});

describe('FileStore: open', () => {
  it('counts each journal byte since the snapshot once: a reopened store\'s journalBytes is its journal\'s size', async () => {
    const dir = tempDir();
    const first = await openStore(dir);
    fill(first, 1, 5);
    await first.close();
    const again = await openStore(dir);
    expect(journals(dir)).toEqual(['journal.000000.log']);
    expect(again.stats().journalBytes).toBe(statSync(join(dir, 'journal.000000.log')).size);
  });

  it('reports how long open and a compaction took: never more than the time around the call', async () => {
    const dir = tempDir();
    let before = performance.now();
    const store = await openStore(dir);
    let around = performance.now() - before;
    expect(store.report.ms).toBeGreaterThanOrEqual(0);
    expect(store.report.ms).toBeLessThanOrEqual(around);
    fill(store, 1, 5);
    before = performance.now();
    const report = await store.compact();
    around = performance.now() - before;
    expect(report.ms).toBeGreaterThanOrEqual(0);
    expect(report.ms).toBeLessThanOrEqual(around);
  });

  it('removes what no snapshot points at (an older journal, another generation\'s part, the temp file) and keeps the live parts', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { partBytes: 2 * 1024 });
    fill(store, 1, 200);
    await store.flush();
    await store.compact();
    await store.close();
    const live = parts(dir);
    expect(live.length).toBeGreaterThan(0);
    writeFileSync(join(dir, 'journal.000000.log'), 'left over\n');
    writeFileSync(join(dir, 'state.000000.1.json'), '{}');
    writeFileSync(join(dir, SNAPSHOT_TEMP), '{}');
    const again = await openStore(dir);
    expect(journals(dir)).toEqual(['journal.000001.log']);
    expect(parts(dir)).toEqual(live);
    expect(readdirSync(dir)).not.toContain(SNAPSHOT_TEMP);
    expect(bookingIds(again)).toEqual(range(1, 200));
    await again.close();
    expect(bookingIds(await openStore(dir))).toEqual(range(1, 200));
  });
});

describe('FileStore: when compaction starts', () => {
  it('at exactly compactAfterBytes of journal', async () => {
    const probe = await openStore(tempDir(), { compactAfterBytes: 1024 * 1024 });
    fill(probe, 1, 3);
    const bytes = probe.stats().journalBytes;
    expect(probe.stats().compacting).toBe(false);
    const store = await openStore(tempDir(), { compactAfterBytes: bytes });
    fill(store, 1, 3);
    expect(store.stats().journalBytes).toBe(bytes);
    expect(store.stats().compacting).toBe(true);
  });

  it('at an eighth of the snapshot when that is more than compactAfterBytes', async () => {
    const dir = tempDir();
    const first = await openStore(dir);
    fill(first, 1, 80);
    await first.flush();
    await first.compact();
    await first.close();
    const store = await openStore(dir, { compactAfterBytes: 1024 });
    const snapshotBytes = store.stats().snapshotBytes;
    expect(snapshotBytes).toBeGreaterThan(8 * 1024);
    // Past 1 KiB and below an eighth of the snapshot: no compaction yet.
    let i = 81;
    fill(store, i, i++);
    fill(store, i, i++);
    expect(store.stats().journalBytes).toBeGreaterThan(1024);
    expect(store.stats().journalBytes).toBeLessThan(snapshotBytes / 8);
    expect(store.stats().compacting).toBe(false);
    // Past an eighth of the snapshot, yet far below 8 times it.
    while (store.stats().journalBytes < snapshotBytes / 8 && i < 200) fill(store, i, i++);
    expect(store.stats().journalBytes).toBeLessThan(snapshotBytes);
    expect(store.stats().compacting).toBe(true);
  });
});
