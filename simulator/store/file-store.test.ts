/**
 * The file store: the Store contract with its durability cases, then what
 * only a file store has: the journal line format, group commit, compaction
 * (and a kill at each of its steps), damaged files, the lock.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, StoreDamagedError } from './errors.ts';
import { FileStore, readDataDir, type CompactionStep, type FileStoreOptions } from './file-store.ts';
import { decodeHeader, decodeLine, encodeHeader, encodeTransaction, JOURNAL_NAME, journalFileName, scanJournal } from './journal.ts';
import { DELETED, type Overlay } from './memory-store.ts';
import { ACK_FILE, encodeAckMark, readAckMark } from './ack-mark.ts';
import { LOCK_FILE } from './lock.ts';
import { runStoreContract, sampleBooking } from './store.contract.ts';
import type { Store, TableName } from './store.ts';
import { openFilesUnder, tempDirs } from './test-support.ts';

const tempDir = tempDirs('file-store-test-');

/** The directory as a SIGKILL now would leave it: every byte written so far, the lock of a process that is gone. */
function killCopy(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith(LOCK_FILE) });
  return copy;
}

function journals(dir: string): string[] {
  return readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)).sort();
}

function lastJournal(dir: string): string {
  return join(dir, journals(dir).at(-1)!);
}

/** The transaction lines of the newest journal (its header line left out). */
function journalLines(dir: string): Buffer[] {
  const buf = readFileSync(lastJournal(dir));
  const lines: Buffer[] = [];
  for (let start = 0, nl = buf.indexOf(10); nl !== -1; start = nl + 1, nl = buf.indexOf(10, start)) lines.push(buf.subarray(start, nl));
  return lines[0] && decodeHeader(lines[0]) ? lines.slice(1) : lines;
}

/** The header line of the newest journal, newline included. */
function journalHeader(dir: string): Buffer {
  const buf = readFileSync(lastJournal(dir));
  return buf.subarray(0, buf.indexOf(10) + 1);
}

/**
 * The directory as a kill during the write of the last round leaves it: that
 * round's flush never resolved, so the acknowledgement mark still names the
 * round before (issue 29: a torn line is an unacknowledged one). `commit`
 * makes the round; the mark is put back as it was before it.
 */
async function killDuringLastRound(store: FileStore, commit: () => void): Promise<string> {
  const markBefore = readFileSync(join(store.dir, ACK_FILE));
  commit();
  await store.flush();
  const dir = killCopy(store.dir);
  writeFileSync(join(dir, ACK_FILE), markBefore);
  return dir;
}

runStoreContract('FileStore', async () => FileStore.open(tempDir()), {
  place: tempDir,
  open: (dir) => FileStore.open(dir),
  killCopy,
  tearLastWrite: (dir, bytes) => {
    const path = lastJournal(dir);
    truncateSync(path, statSync(path).size - bytes);
    // A write cut short was never acknowledged: the mark names the last transaction still whole, as it did before that write.
    const { lastN } = scanJournal(path, null, () => undefined);
    const mark = readAckMark(dir);
    writeFileSync(join(dir, ACK_FILE), encodeAckMark({ n: lastN ?? 0, issued: mark === null || mark === 'damaged' ? {} : mark.issued }));
  },
  written: (dir) => readdirSync(dir).reduce((bytes, name) => bytes + statSync(join(dir, name)).size, 0),
  lockedError: DataDirLockedError,
});

const stores: Store[] = [];
async function openStore(dir: string, options?: FileStoreOptions): Promise<FileStore> {
  const store = await FileStore.open(dir, options);
  stores.push(store);
  return store;
}
afterEach(async () => {
  for (const s of stores.splice(0).reverse()) await s.close().catch(() => undefined);
});

/** Every record of every table, for comparing two stores. */
function dump(store: FileStore): Record<string, [string, unknown][]> {
  const out: Record<string, [string, unknown][]> = {};
  for (const t of store.tableNames().sort()) {
    out[t] = Array.from(store.values(t as TableName), (v) => [JSON.stringify(v), v] as [string, unknown]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }
  return out;
}

function fill(store: Store, from: number, to: number): void {
  store.transaction((tx) => {
    for (let i = from; i <= to; i++) {
      tx.put('bookings', String(i), sampleBooking(i));
      tx.put('bookingKeys', `1:EXT-${i}`, { booking_id: i });
    }
    tx.put('counters', 'booking', { value: to });
  });
}

describe('FileStore journal', () => {
  it('writes one line per transaction: exactly its puts (with their values) and deletes, numbered without a gap', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    store.transaction((tx) => tx.put('holds', '1001:2026-10-01', { booking_id: 1 }));
    store.transaction((tx) => {
      tx.put('bookings', '1', sampleBooking(1));
      tx.delete('holds', '1001:2026-10-01');
      tx.put('counters', 'booking', { value: 1 });
    });
    store.transaction((tx) => tx.get('bookings', '1')); // read-only: no line
    await store.flush();
    const lines = journalLines(dir).map((l) => decodeLine(l));
    expect(lines).toEqual([
      { n: 1, ops: [['put', 'holds', '1001:2026-10-01', '{"booking_id":1}']] },
      { n: 2, ops: [['put', 'bookings', '1', JSON.stringify(sampleBooking(1))], ['del', 'holds', '1001:2026-10-01'], ['put', 'counters', 'booking', '{"value":1}']] },
    ]);
  });

  it('group commit: flushes of a burst of transactions share one synced write, and each resolves with its line on disk', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const before = store.stats().syncRounds;
    const flushes: Promise<void>[] = [];
    for (let i = 1; i <= 100; i++) {
      store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
      flushes.push(store.flush());
    }
    await Promise.all(flushes);
    expect(store.stats().syncRounds - before).toBe(1);
    expect(journalLines(dir)).toHaveLength(100);
    // A transaction committed while a round is in flight waits for the next round.
    store.transaction((tx) => tx.put('bookings', '101', sampleBooking(101)));
    const first = store.flush();
    store.transaction((tx) => tx.put('bookings', '102', sampleBooking(102)));
    await first;
    await store.flush();
    expect(journalLines(dir)).toHaveLength(102);
  });

  it('refuses a value JSON cannot hold: the transaction throws whole, nothing applied, nothing journaled', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    let committed = false;
    expect(() => store.transaction((tx) => {
      tx.put('bookings', '1', sampleBooking(1));
      tx.put('counters', 'booking', undefined as never);
      tx.onCommit(() => (committed = true));
    })).toThrow(/counters\/booking/);
    await store.flush();
    expect(committed).toBe(false);
    expect(store.get('bookings', '1')).toBeUndefined();
    expect(journalLines(dir)).toHaveLength(0);
  });

  it.each([
    ['a last line cut short (a kill mid-write)', (path: string) => truncateSync(path, statSync(path).size - 20)],
    ['a last line whose bytes changed (fails its checksum)', (path: string) => {
      const buf = readFileSync(path);
      buf[buf.length - 10] = buf[buf.length - 10] === 0x41 ? 0x42 : 0x41;
      writeFileSync(path, buf);
    }],
    ['the end of the last line zeroed (a power loss after the size grew, before the data landed)', (path: string) => {
      const buf = readFileSync(path);
      buf.fill(0, buf.length - 300);
      writeFileSync(path, buf);
    }],
    ['a last line with no newline but complete otherwise', (path: string) => truncateSync(path, statSync(path).size - 1)],
  ])('recovers from %s to the last complete transaction, and reports what it dropped', async (_name, tear) => {
    const store = await openStore(tempDir());
    fill(store, 1, 3);
    await store.flush();
    // As a kill during the write of the second round leaves it (a torn acknowledged line is damage: see the acknowledgement tests).
    const dir = await killDuringLastRound(store, () => fill(store, 4, 6));
    tear(lastJournal(dir));
    const recovered = await openStore(dir);
    expect(recovered.size('bookings')).toBe(3);
    expect(recovered.get('counters', 'booking')).toEqual({ value: 3 });
    expect(recovered.report.tornBytes).toBeGreaterThan(0);
    expect(recovered.report.tornReason).toMatch(/last line/);
    fill(recovered, 7, 7);
    await recovered.close();
    const again = await openStore(dir);
    expect(again.report.tornBytes).toBe(0);
    expect(again.size('bookings')).toBe(4);
  });

  it('writes a backlog larger than one write (16 MiB) in several writes of whole lines, a larger single line in one, and replays a journal larger than one read (16 MiB) whole', async () => {
    const dir = tempDir();
    let writes = 0;
    const store = await openStore(dir, { writeFault: () => (writes++, null) });
    const mib = 'x'.repeat(1024 * 1024);
    for (let i = 1; i <= 20; i++) store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i, { notes: mib })));
    await store.flush();
    expect(writes, '20 lines of just over 1 MiB: 15 in the first write, 5 in the second').toBe(2);
    const huge = 'y'.repeat(17 * 1024 * 1024);
    store.transaction((tx) => tx.put('bookings', '21', sampleBooking(21, { notes: huge })));
    await store.flush();
    expect(writes, 'a line larger than a write goes out whole, in one').toBe(3);
    await store.close();
    const path = lastJournal(dir);
    const seen: number[] = [];
    const scan = scanJournal(path, 1, (t) => seen.push(t.n));
    expect(seen).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(scan).toMatchObject({ transactions: 21, lastN: 21, validBytes: statSync(path).size, torn: null });
    const again = await openStore(dir);
    expect(again.size('bookings')).toBe(21);
    expect(again.get('bookings', '20')).toEqual(sampleBooking(20, { notes: mib }));
    expect(again.get('bookings', '21')!.notes).toBe(huge);
  });

  it('replays only the files named journal.<generation>.log: a copy under another name is no journal', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 3);
    await store.close();
    const journal = lastJournal(dir);
    cpSync(journal, join(dir, `copy-of-${journals(dir)[0]}`));
    cpSync(journal, join(dir, `${journals(dir)[0]}.orig`));
    const again = await openStore(dir);
    expect(again.report.journals.map((j) => j.path)).toEqual([journal]);
    expect(again.size('bookings')).toBe(3);
  });

  it('refuses a journal damaged before its end: the transactions after it would be lost', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    for (let i = 1; i <= 3; i++) fill(store, i, i);
    await store.close();
    const path = lastJournal(dir);
    const buf = readFileSync(path);
    buf[20] = buf[20] === 0x41 ? 0x42 : 0x41; // inside the first line
    writeFileSync(path, buf);
    const open = FileStore.open(dir);
    await expect(open).rejects.toBeInstanceOf(StoreDamagedError);
    await expect(FileStore.open(dir)).rejects.toThrow(/journal\.000000\.log is damaged at byte 0 \(checksum mismatch\) and complete transactions follow/);
    expect(readFileSync(path)).toEqual(buf); // left as found
  });
});

/** A journal line with its checksum (newline not included): `body` as the store would check it. */
function checked(body: string, crc = crc32(Buffer.from(body, 'utf8')).toString(16).padStart(8, '0')): Buffer {
  return Buffer.from(`${crc} ${body}`, 'utf8');
}

describe('FileStore journal lines: replay takes a whole, well-formed transaction and nothing else', () => {
  it('reads back what the store wrote: puts with their values (any script), deletes, and a transaction of deletes only', () => {
    const overlay = new Map([
      ['bookings', new Map<string, unknown>([['1', sampleBooking(1)], ['2', DELETED]])],
      ['holds', new Map<string, unknown>([['1001:2026-10-01', DELETED]])],
    ]) as Overlay;
    const line = encodeTransaction(7, overlay);
    expect(line.endsWith('\n')).toBe(true);
    expect(decodeLine(Buffer.from(line.slice(0, -1), 'utf8'))).toEqual({
      n: 7, ops: [['put', 'bookings', '1', JSON.stringify(sampleBooking(1))], ['del', 'bookings', '2'], ['del', 'holds', '1001:2026-10-01']],
    });
    const deletesOnly = encodeTransaction(8, new Map([['holds', new Map<string, unknown>([['a', DELETED]])]]) as Overlay);
    expect(decodeLine(Buffer.from(deletesOnly.slice(0, -1)))).toEqual({ n: 8, ops: [['del', 'holds', 'a']] });
    expect(decodeLine(checked('{"n":9,"ops":[]}'))).toEqual({ n: 9, ops: [] });
    // A checksum that begins with 0 is written with all eight digits.
    const zeros = Array.from({ length: 400 }, (_, i) => encodeTransaction(i, new Map([['counters', new Map<string, unknown>([['booking', { value: i }]])]]) as Overlay));
    const zero = zeros.find((l) => l.startsWith('0'))!;
    expect(zero).toMatch(/^[0-9a-f]{8} /);
    expect(decodeLine(Buffer.from(zero.slice(0, -1)))).toMatchObject({ ops: [['put', 'counters', 'booking', expect.any(String)]] });
  });

  it.each([
    ['shorter than a checksum, a space and a body', Buffer.from('0000000 1'), 'no checksum prefix'],
    ['a checksum and a space with no body (the checksum of nothing is 00000000)', Buffer.from('00000000 '), 'no checksum prefix'],
    ['no space after the checksum', Buffer.from(checked('{"n":1,"ops":[]}').toString().replace(' ', '_')), 'no checksum prefix'],
    ['a checksum in capitals (the store writes lower case)', checked('{"n":1,"ops":[]}', crc32('{"n":1,"ops":[]}').toString(16).padStart(8, '0').toUpperCase()), 'checksum mismatch'],
    ['a checksum with a sign', checked('{"n":1,"ops":[]}', '+' + crc32('{"n":1,"ops":[]}').toString(16).padStart(7, '0').slice(-7)), 'checksum mismatch'],
    ['a checksum that does not match', checked('{"n":1,"ops":[]}', '00000000'), 'checksum mismatch'],
    ['a ten-byte line: a one-character body', checked('1'), 'not a transaction'],
    ['a body that is not JSON', checked('{"n":1,'), /^not JSON \(.+\)$/],
    ['JSON null', checked('null'), 'not a transaction'],
    ['no transaction number', checked('{"ops":[]}'), 'not a transaction'],
    ['a fractional transaction number', checked('{"n":1.5,"ops":[]}'), 'not a transaction'],
    ['no ops', checked('{"n":1}'), 'not a transaction'],
    ['ops that are no list', checked('{"n":1,"ops":{}}'), 'not a transaction'],
    ['an op that is no list', checked('{"n":1,"ops":["del"]}'), 'not a put or a delete: "del"'],
    ['an op of another kind', checked('{"n":1,"ops":[["get","holds","a"]]}'), 'not a put or a delete: ["get","holds","a"]'],
    ['an op whose table is no string', checked('{"n":1,"ops":[["del",7,"a"]]}'), 'not a put or a delete: ["del",7,"a"]'],
    ['an op whose key is no string', checked('{"n":1,"ops":[["del","holds",7]]}'), 'not a put or a delete: ["del","holds",7]'],
    ['a delete with a fourth member', checked('{"n":1,"ops":[["del","holds","a","x"]]}'), 'not a put or a delete: ["del","holds","a","x"]'],
    ['a put with its value inline', checked('{"n":1,"ops":[["put","holds","a","{}"]]}'), 'not a put or a delete: ["put","holds","a","{}"]'],
    ['a put without its value', checked('{"n":1,"ops":[["put","holds","a"]]}'), 'a put without its value'],
    ['the second put without its value', checked('{"n":1,"ops":[["put","holds","a"],["put","holds","b"]]}\t{}'), 'a put without its value'],
    ['a value no put claims', checked('{"n":1,"ops":[]}\t{}'), 'more values than puts'],
    ['a value more than the puts', checked('{"n":1,"ops":[["put","holds","a"]]}\t{}\t{}'), 'more values than puts'],
  ])('refuses %s, saying why', (_name, line, reason) => {
    const decoded = decodeLine(line);
    expect(typeof decoded).toBe('string');
    if (typeof reason === 'string') expect(decoded).toBe(reason);
    else expect(decoded).toMatch(reason);
  });

  it('a long op is named by its first 80 characters', () => {
    const op = ['get', 'holds', 'k'.repeat(200)];
    expect(decodeLine(checked(`{"n":1,"ops":[${JSON.stringify(op)}]}`))).toBe(`not a put or a delete: ${JSON.stringify(op).slice(0, 80)}`);
  });

  it('a put\'s value is its text up to the next tab: an empty value stays empty, and the last one runs to the end of the line', () => {
    expect(decodeLine(checked('{"n":3,"ops":[["put","holds","a"],["del","holds","b"],["put","holds","c"]]}\t\t{"x":"\u00e9"}'))).toEqual({
      n: 3, ops: [['put', 'holds', 'a', ''], ['del', 'holds', 'b'], ['put', 'holds', 'c', '{"x":"\u00e9"}']],
    });
  });
});

describe('FileStore journal header: the first line says which journal it is and where its numbering starts', () => {
  const body = '{"journal":3,"first_n":1201}';

  it('reads back the header the store writes, and a header of the largest numbers it takes', () => {
    expect(encodeHeader({ generation: 3, firstN: 1201 })).toBe(`${checked(body).toString()}\n`);
    expect(decodeHeader(checked(body))).toEqual({ generation: 3, firstN: 1201 });
    expect(decodeHeader(checked('{"journal":123456789012345,"first_n":999999999999999}'))).toEqual({ generation: 123456789012345, firstN: 999999999999999 });
    // A checksum that begins with 0 is written with all eight digits.
    const firstN = Array.from({ length: 400 }, (_, i) => i + 1).find((n) => encodeHeader({ generation: 3, firstN: n }).startsWith('0'))!;
    const zero = encodeHeader({ generation: 3, firstN });
    expect(zero).toMatch(/^0[0-9a-f]{7} \{/);
    expect(decodeHeader(Buffer.from(zero.slice(0, -1)))).toEqual({ generation: 3, firstN });
  });

  it.each([
    ['a transaction line', checked('{"n":1,"ops":[]}')],
    ['a header whose checksum does not match', checked(body, '00000000')],
    ['a header without the space after its checksum', Buffer.from(checked(body).toString().replace(' ', '_'))],
    ['a header with text before it', checked(`x${body}`)],
    ['a header with text after it', checked(`${body}x`)],
    ['a header with a number of 16 digits', checked('{"journal":1234567890123456,"first_n":1}')],
    ['a header with a negative number', checked('{"journal":-1,"first_n":1}')],
    ['a header without its first number', checked('{"journal":3}')],
    ['a line too short for a header', Buffer.from('00000000 ')],
  ])('takes %s for no header', (_name, line) => {
    expect(decodeHeader(line)).toBeNull();
  });
});

describe('FileStore journal replay: every complete transaction in order, a torn tail reported, damage before the end refused', () => {
  /** A journal file of these lines, each followed by a newline, plus `tail` (a last write cut short). */
  function journalOf(lines: Buffer[], tail = ''): string {
    const path = join(tempDir(), 'journal.000003.log');
    writeFileSync(path, Buffer.concat([...lines.flatMap((l) => [l, Buffer.from('\n')]), Buffer.from(tail)]));
    return path;
  }
  const header = checked('{"journal":3,"first_n":1201}');
  const tx = (n: number) => checked(`{"n":${n},"ops":[["put","holds","${n}"]]}\t{"n":${n}}`);
  const scan = (path: string, expected: number | null) => {
    const seen: number[] = [];
    const result = scanJournal(path, expected, (t) => seen.push(t.n));
    return { seen, result };
  };

  it('hands every transaction to replay in order and says where the file ends and what it began with', () => {
    const path = journalOf([header, tx(1201), tx(1202), tx(1203)]);
    const { seen, result } = scan(path, 1201);
    expect(seen).toEqual([1201, 1202, 1203]);
    const bytes = statSync(path).size;
    expect(result).toEqual({ path, transactions: 3, firstN: 1201, lastN: 1203, validBytes: bytes, fileBytes: bytes, torn: null, header: { generation: 3, firstN: 1201 } });
  });

  it('an empty file and a header alone hold no transaction; a journal without a header takes its numbering as it comes', () => {
    const empty = journalOf([]);
    expect(scan(empty, 5).result).toEqual({ path: empty, transactions: 0, firstN: null, lastN: null, validBytes: 0, fileBytes: 0, torn: null, header: null });
    const alone = journalOf([header]);
    expect(scan(alone, null).result).toMatchObject({ transactions: 0, firstN: null, lastN: null, validBytes: header.length + 1, torn: null, header: { generation: 3, firstN: 1201 } });
    const headerless = journalOf([tx(7), tx(8)]);
    expect(scan(headerless, null)).toMatchObject({ seen: [7, 8], result: { transactions: 2, firstN: 7, lastN: 8, header: null, torn: null } });
  });

  it('reports a last line cut short or damaged as torn, with exactly its bytes; the transactions before it are replayed', () => {
    const cut = tx(1203).subarray(0, 30).toString();
    const incomplete = journalOf([header, tx(1201), tx(1202)], cut);
    const upTo = statSync(incomplete).size - cut.length;
    expect(scan(incomplete, 1201)).toEqual({
      seen: [1201, 1202],
      result: expect.objectContaining({ transactions: 2, lastN: 1202, validBytes: upTo, torn: { bytes: cut.length, reason: 'its last line is incomplete' } }),
    });
    const damaged = journalOf([header, tx(1201), checked('{"n":1202,"ops":[]}', '00000000')]);
    const whole = header.length + 1 + tx(1201).length + 1;
    expect(scan(damaged, 1201)).toEqual({
      seen: [1201],
      result: expect.objectContaining({ transactions: 1, validBytes: whole, torn: { bytes: statSync(damaged).size - whole, reason: 'its last line is damaged (checksum mismatch)' } }),
    });
    // Right after the header: the header's bytes are kept.
    const afterHeader = journalOf([header, checked('{"n":1201,"ops":[]}', '00000000')]);
    expect(scan(afterHeader, 1201).result).toMatchObject({ transactions: 0, validBytes: header.length + 1, torn: { bytes: statSync(afterHeader).size - header.length - 1 } });
  });

  it('a header line anywhere but at the start is no header: as the last line it is a damaged one', () => {
    const path = journalOf([header, tx(1201), header]);
    expect(scan(path, 1201).result).toMatchObject({
      transactions: 1, lastN: 1201, header: { generation: 3, firstN: 1201 }, torn: { bytes: header.length + 1, reason: 'its last line is damaged (not a transaction)' },
    });
  });

  it('refuses a damaged line that complete transactions follow, naming both places', () => {
    const damaged = checked('{"n":1202,"ops":[]}', '00000000');
    const path = journalOf([header, tx(1201), damaged, tx(1203)]);
    const damagedAt = header.length + 1 + tx(1201).length + 1;
    const followsAt = damagedAt + damaged.length + 1;
    expect(() => scan(path, 1201)).toThrow(StoreDamagedError);
    expect(() => scan(path, 1201)).toThrow(`${path} is damaged at byte ${damagedAt} (checksum mismatch) and complete transactions follow it at byte ${followsAt}; `
      + 'the store will not skip it and lose them. Restore the data directory from a backup, or move it away to start afresh.');
  });

  it('lets go of the file whether it replays it whole or refuses it', () => {
    const whole = journalOf([header, tx(1201)]);
    scan(whole, 1201);
    expect(openFilesUnder(join(whole, '..'))).toEqual([]);
    const refused = journalOf([header, tx(1202)]);
    expect(() => scan(refused, 1201)).toThrow(StoreDamagedError);
    expect(openFilesUnder(join(refused, '..'))).toEqual([]);
  });

  it('refuses a journal that begins after, or before, the transaction expected next, and a gap in its numbering', () => {
    const path = journalOf([header, tx(1201), tx(1203)]);
    expect(() => scan(path, 1200)).toThrow(StoreDamagedError);
    expect(() => scan(path, 1200)).toThrow(`${path} begins at transaction 1201 where 1200 was expected: `
      + 'transactions in between are missing (a journal was cut short or removed), or files from another data directory were mixed in. '
      + 'Restore the data directory from a backup, or move it away to start afresh.');
    expect(() => scan(path, 1202)).toThrow(/begins at transaction 1201 where 1202 was expected/);
    const gapAt = header.length + 1 + tx(1201).length + 1;
    expect(() => scan(path, 1201)).toThrow(StoreDamagedError);
    expect(() => scan(path, 1201)).toThrow(`${path} holds transaction 1203 at byte ${gapAt} where 1202 was expected: `
      + 'a journal file or the snapshot is missing, or files from another data directory were mixed in.');
    // Without a header the first transaction must be the one expected too.
    expect(() => scan(journalOf([tx(7)]), 6)).toThrow(/holds transaction 7 at byte 0 where 6 was expected/);
  });
});

describe('FileStore compaction', () => {
  it('writes a lowdb snapshot users can open, drops the journals it covers, and reopens to the same state', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 20);
    store.transaction((tx) => tx.delete('bookings', '5'));
    const report = await store.compact();
    expect(report.generation).toBe(1);
    expect(journals(dir)).toEqual(['journal.000001.log']);
    const db = new Low<{ version: number; generation: number; tables: Record<string, Record<string, unknown>> }>(new JSONFile(join(dir, 'state.json')), { version: 0, generation: 0, tables: {} });
    await db.read();
    expect(db.data.version).toBe(2);
    expect(db.data.tables.bookings!['7']).toEqual(sampleBooking(7));
    expect(db.data.tables.bookings!['5']).toBeUndefined();
    expect(Object.keys(db.data.tables.bookings!)).toHaveLength(19);
    fill(store, 21, 21); // after the snapshot: in the new journal
    const expected = dump(store);
    await store.close();
    const again = await openStore(dir);
    expect(dump(again)).toEqual(expected);
    expect(again.report.snapshot!.parsedWhole).toEqual([]);
  });

  it('state.json opens on the small world and ends on the big logs: its tables in a fixed order, empty and volatile ones left out', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    // The order a person reads (file-store.ts): settings and the world first, the logs last; rateWindows is volatile.
    const order = ['settings', 'counters', 'brands', 'integrations', 'apiKeys', 'retiredKeys', 'properties', 'units', 'propertyUnits',
      'nights', 'rates', 'restrictions', 'syncWindows', 'syncJobs', 'eventStreams', 'supersedable',
      'bookings', 'bookingKeys', 'holds', 'idempotency', 'events'] as TableName[];
    // Written in another order (the reverse), one record each, plus the volatile table: the snapshot's order is its own.
    store.transaction((tx) => {
      for (const name of [...order].reverse()) tx.put(name, '1', { id: 1 } as never);
      tx.put('rateWindows', '1', { started_at: 1, count: 1 });
      // 64 records in one table: where the writer asks whether to start a part file (every 64 records of a table).
      for (let i = 2; i <= 64; i++) tx.put('events', String(i), { id: i } as never);
    });
    await store.compact();
    const snapshot = () => JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { tables: Record<string, unknown>; parts: unknown[] };
    expect(Object.keys(snapshot().tables)).toEqual(order);
    // A table emptied since is left out.
    store.transaction((tx) => tx.delete('holds', '1'));
    await store.compact();
    const doc = snapshot();
    expect(Object.keys(doc.tables)).toEqual(order.filter((name) => name !== 'holds'));
    // By default a snapshot continues in a part file only past 64 MiB: this one is whole.
    expect(doc.parts).toEqual([]);
  });

  it('continues a large state in part files, each its own lowdb document, and loads them all', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { partBytes: 8 * 1024 });
    fill(store, 1, 200);
    const report = await store.compact();
    expect(report.files.length).toBeGreaterThan(3);
    for (const file of report.files.slice(1)) {
      const part = new Low<{ generation: number; part: number; tables: Record<string, unknown> }>(new JSONFile(join(dir, file)), { generation: 0, part: 0, tables: {} });
      await part.read();
      expect(part.data.generation).toBe(1);
      expect(Object.keys(part.data.tables).length).toBeGreaterThan(0);
    }
    const expected = dump(store);
    await store.close();
    const again = await openStore(dir);
    expect(dump(again)).toEqual(expected);
    expect(again.report.snapshot!.files).toEqual(report.files);
    // Opening keeps the parts the snapshot names (it removes only those of no snapshot): a third open loads them all again.
    await again.close();
    expect(dump(await openStore(dir))).toEqual(expected);
  });

  it('records changed while the snapshot is being written end at their final value (the journal replays over it)', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { sliceMs: 0, partBytes: 16 * 1024 });
    fill(store, 1, 600);
    await store.flush();
    const compaction = store.compact();
    let done = false;
    void compaction.then(() => (done = true));
    let round = 0;
    while (!done) {
      round += 1;
      store.transaction((tx) => {
        const id = 1 + ((round * 37) % 600);
        tx.put('bookings', String(id), sampleBooking(id, { revision: round }));
        tx.delete('bookings', String(1 + ((round * 53) % 600)));
        tx.put('bookings', String(1000 + round), sampleBooking(1000 + round));
      });
      await nextTurn();
    }
    await compaction;
    expect(round).toBeGreaterThan(3); // the writes did interleave with the snapshot
    await store.flush();
    const expected = dump(store);
    const killed = await openStore(killCopy(dir));
    expect(dump(killed)).toEqual(expected);
  });

  it('a kill at any step of a compaction loses no acknowledged transaction, and leaves every transaction whole or absent', async () => {
    const dir = tempDir();
    const copies: [CompactionStep, string][] = [];
    let store: FileStore | null = null;
    const onCompactionStep = (step: CompactionStep) => {
      copies.push([step, killCopy(dir)]);
      // A transaction committed mid-compaction; acknowledged only once the compaction syncs the journal.
      if (step === 'writing') fill(store!, 900, 902);
    };
    store = await openStore(dir, { partBytes: 4 * 1024, sliceMs: 0, onCompactionStep });
    fill(store, 1, 100);
    store.transaction((tx) => tx.delete('bookings', '50'));
    await store.flush();
    await store.compact();
    expect(copies.map(([s]) => s).filter((s, i, all) => all.indexOf(s) === i))
      .toEqual(['rotated', 'writing', 'part-written', 'files-synced', 'journal-synced', 'renamed', 'dir-synced', 'cleaned']);
    for (const [step, copy] of copies) {
      const after = await openStore(copy);
      expect(after.size('bookings'), step).toBeGreaterThanOrEqual(99);
      expect(after.get('bookings', '50'), step).toBeUndefined();
      expect(after.get('bookings', '100'), step).toEqual(sampleBooking(100));
      const mid = [900, 901, 902].map((i) => after.get('bookings', String(i)) !== undefined);
      expect(new Set(mid).size, `${step}: the mid-compaction transaction is whole or absent`).toBe(1);
      if (['journal-synced', 'renamed', 'dir-synced', 'cleaned'].includes(step)) expect(mid[0], step).toBe(true);
      await after.close();
    }
  });

  it('a history damaged before its newest journal is refused, each damage named: an older journal torn, a header naming another journal, a header lost', async () => {
    const dir = tempDir();
    let rotated: string | null = null;
    // Killed right after the rotation: journal 0 holds transactions 1 and 2, journal 1 only its header.
    const store = await openStore(dir, { onCompactionStep: (step) => void (step === 'rotated' && (rotated ??= killCopy(dir))) });
    fill(store, 1, 5);
    fill(store, 6, 10);
    await store.flush();
    await store.compact();
    const [older, newer] = [journalFileName(0), journalFileName(1)];
    expect(readdirSync(rotated!).filter((n) => JOURNAL_NAME.test(n)).sort()).toEqual([older, newer]);
    const damaged = (change: (dir: string) => void) => {
      const copy = killCopy(rotated!);
      change(copy);
      return openStore(copy);
    };
    const third = encodeTransaction(3, new Map([['bookings', new Map<string, unknown>([['11', sampleBooking(11)]])]]) as Overlay);
    await expect(damaged((d) => appendFileSync(join(d, older), third.slice(0, 20))))
      .rejects.toThrow(new RegExp(`${older} is damaged \\(.+\\), yet the newer journal ${newer} follows it: a transaction in the middle of the history is lost\\. Restore`));
    await expect(damaged((d) => writeFileSync(join(d, newer), encodeHeader({ generation: 5, firstN: 3 }))))
      .rejects.toThrow(new RegExp(`${newer} says it is journal 5: acknowledged transactions may be lost with it`));
    await expect(damaged((d) => writeFileSync(join(d, newer), '')))
      .rejects.toThrow(new RegExp(`${newer} has lost its header line \\(it is empty\\), so what it held is gone`));
    await expect(damaged((d) => writeFileSync(join(d, newer), third)))
      .rejects.toThrow(new RegExp(`${newer} has lost its header line \\(it does not begin with one\\), so what it held is gone`));
    // Untouched, the same copy opens whole.
    expect((await damaged(() => undefined)).size('bookings')).toBe(10);
  });

  it('journals load in the order of their generations, whatever order the directory lists them in, past the six digits of their names', async () => {
    const dir = tempDir();
    // Five journals, one transaction each, created out of order (a listing in creation order, or its reverse, is not
    // sorted), and across a million: by name, journal.1000000.log comes before journal.999998.log (a sorted listing too).
    const generations = [999_998, 999_999, 1_000_000, 1_000_001, 1_000_002];
    for (const i of [2, 4, 0, 3, 1]) {
      const booking = new Map([['bookings', new Map<string, unknown>([[String(i + 1), sampleBooking(i + 1)]])]]) as Overlay;
      writeFileSync(join(dir, journalFileName(generations[i]!)), encodeHeader({ generation: generations[i]!, firstN: i + 1 }) + encodeTransaction(i + 1, booking));
    }
    const store = await openStore(dir);
    expect(store.report.journals.map((j) => j.path)).toEqual(generations.map((g) => join(dir, journalFileName(g))));
    expect(store.report.transactionsReplayed).toBe(5);
    expect([1, 2, 3, 4, 5].map((id) => store.get('bookings', String(id)))).toEqual([1, 2, 3, 4, 5].map((id) => sampleBooking(id)));
    store.transaction((tx) => tx.put('bookings', '6', sampleBooking(6)));
    await store.flush();
    // The next transaction follows the newest journal's last: appended to journal 1000002, numbered 6.
    const newest = readFileSync(join(dir, journalFileName(1_000_002)), 'utf8').split('\n').slice(1, -1);
    expect(newest.map((l) => decodeLine(Buffer.from(l)))).toMatchObject([{ n: 5 }, { n: 6 }]);
  });

  it('the first journal of all (generation 0) is as required as any: deleted while the manifest names it, the store refuses to start', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 3);
    await store.flush();
    const copy = killCopy(dir);
    rmSync(join(copy, journalFileName(0)));
    await expect(openStore(copy)).rejects.toThrow(new RegExp(`${journalFileName(0)} is missing \\(manifest\\.json names it the newest journal\\)`));
  });

  it('a compaction that fails before its snapshot is in place removes its own part files only: the snapshot in force keeps all of its own', async () => {
    const dir = tempDir();
    let failAt: CompactionStep | null = null;
    const store = await openStore(dir, {
      partBytes: 4 * 1024,
      sliceMs: 0,
      onCompactionStep: (step) => {
        if (step === failAt) throw new Error(`refused at ${step}`);
      },
    });
    fill(store, 1, 100);
    await store.flush();
    const inForce = (await store.compact()).files;
    expect(inForce.length).toBeGreaterThan(2);
    fill(store, 101, 200);
    failAt = 'journal-synced';
    await expect(store.compact()).rejects.toThrow('refused at journal-synced');
    // The failed generation's parts are gone; every file of the snapshot in force is still there.
    expect(readdirSync(dir).filter((n) => /^state\.000002\./.test(n))).toEqual([]);
    for (const file of inForce) expect(existsSync(join(dir, file)), file).toBe(true);
    failAt = null;
    await store.flush();
    const expected = dump(store);
    await store.close();
    expect(dump(await openStore(dir))).toEqual(expected);
  });

  it('a journal from the manifest\'s first with a header on that lost it is refused; one newer than the manifest without a header (a kill as it was created) opens', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 3);
    await store.flush();
    // Journal 0 is the first the manifest says has a header (headersFrom 0): emptied, what it held is gone.
    const emptied = killCopy(dir);
    writeFileSync(join(emptied, journalFileName(0)), '');
    await expect(openStore(emptied)).rejects.toThrow(new RegExp(`${journalFileName(0)} has lost its header line \\(it is empty\\)`));
    // Journal 1 is newer than the manifest (it names journal 0): a kill between creating it and writing its header.
    const created = killCopy(dir);
    writeFileSync(join(created, journalFileName(1)), '');
    const opened = await openStore(created);
    expect(opened.size('bookings')).toBe(3);
    fill(opened, 4, 4);
    await opened.close();
    expect((await openStore(created)).size('bookings')).toBe(4);
  });

  it('starts on its own once the journal outgrows compactAfterBytes, off the request path', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { compactAfterBytes: 16 * 1024 });
    for (let i = 1; i <= 40; i++) {
      fill(store, i, i);
      await store.flush();
    }
    // Waits for the compaction itself, however slow the machine (the test's cap bounds it, never a budget of time).
    while (store.stats().compactions === 0 || store.stats().compacting) await new Promise((r) => setTimeout(r, 10));
    expect(journals(dir), 'the journals the snapshot covers are gone').toEqual([`journal.${String(store.stats().generation).padStart(6, '0')}.log`]);
    const expected = dump(store);
    await store.close();
    expect(dump(await openStore(dir))).toEqual(expected);
  });

  it('close during a compaction abandons it: no temp or part file stays, and the store reopens whole', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { sliceMs: 0, partBytes: 4 * 1024 });
    fill(store, 1, 300);
    const expected = dump(store);
    const compaction = store.compact();
    await nextTurn();
    await store.close();
    await expect(compaction).rejects.toThrow(/abandoned|closing/);
    expect(readdirSync(dir).filter((n) => n.startsWith('state'))).toEqual([]);
    expect(dump(await openStore(dir))).toEqual(expected);
  });

  it('keeps records loaded from disk as text until read; reads, iteration and later snapshots see the same records', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 50);
    await store.compact();
    fill(store, 51, 60);
    const expected = dump(store);
    await store.close();
    const again = await openStore(dir);
    again.transaction((tx) => {
      tx.put('bookings', '61', sampleBooking(61));
      // values() over a table with pending writes merges the stored records, parsed.
      expect(Array.from(tx.values('bookings')).every((b) => typeof b === 'object' && b.id > 0)).toBe(true);
      tx.delete('bookings', '61');
    });
    expect(dump(again)).toEqual(expected);
    await again.compact();
    await again.close();
    expect(dump(await openStore(dir))).toEqual(expected);
  });
});

describe('FileStore damaged files', () => {
  async function compacted(options?: FileStoreOptions): Promise<string> {
    const dir = tempDir();
    const store = await FileStore.open(dir, options);
    fill(store, 1, 200);
    await store.flush();
    await store.compact();
    fill(store, 201, 201);
    fill(store, 202, 202);
    await store.close();
    return dir;
  }

  it.each([
    ['state.json that is not JSON', (dir: string) => writeFileSync(join(dir, 'state.json'), '{"version":2,"tables":{"book'), /state\.json is damaged and cannot be loaded/],
    ['state.json that holds null', (dir: string) => writeFileSync(join(dir, 'state.json'), 'null'), /state\.json is damaged .*no JSON object/],
    ['state.json that is empty', (dir: string) => writeFileSync(join(dir, 'state.json'), ''), /state\.json is damaged/],
    ['a JSON document that is no snapshot', (dir: string) => writeFileSync(join(dir, 'state.json'), '{"hello":"world"}'), /not a simulator snapshot/],
    ['a missing part file', (dir: string) => rmSync(join(dir, 'state.000001.1.json')), /its part state\.000001\.1\.json is missing/],
    ['a part file cut short', (dir: string) => truncateSync(join(dir, 'state.000001.1.json'), 100), /state\.000001\.1\.json is damaged/],
    ['a missing journal (the snapshot expects transactions the journal does not start with)', (dir: string) => {
      const header = journalHeader(dir);
      writeFileSync(lastJournal(dir), Buffer.concat([header, readFileSync(lastJournal(dir)).subarray(header.length + journalLines(dir)[0]!.length + 1)]));
    }, /holds transaction \d+ at byte \d+ where \d+ was expected/],
  ])('refuses %s with a clear message and never starts empty over it', async (_name, damage, message) => {
    const dir = await compacted({ partBytes: 4 * 1024 });
    damage(dir);
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
    await expect(FileStore.open(dir)).rejects.toBeInstanceOf(StoreDamagedError);
    await expect(FileStore.open(dir)).rejects.toThrow(message);
    await expect(FileStore.open(dir)).rejects.toThrow(/will not start empty|will not skip|missing/);
    expect(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]), 'the files are left as found, and the lock released').toEqual(before);
  });

  it('refuses a journal without its snapshot (state.json deleted) rather than starting from half a history', async () => {
    const dir = await compacted();
    rmSync(join(dir, 'state.json'));
    await expect(FileStore.open(dir)).rejects.toThrow(/where 1 was expected/);
  });

  it('refuses a state.json with a flipped byte that is still valid JSON (its checksum names the damage)', async () => {
    const dir = await compacted();
    const path = join(dir, 'state.json');
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf('"revision":1');
    expect(at).toBeGreaterThan(0);
    writeFileSync(path, text.slice(0, at) + '"revision":7' + text.slice(at + '"revision":1'.length));
    JSON.parse(readFileSync(path, 'utf8'));
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
    await expect(FileStore.open(dir)).rejects.toBeInstanceOf(StoreDamagedError);
    await expect(FileStore.open(dir)).rejects.toThrow(/state\.json is damaged .*checksum does not match.*delete its "tables_crc32" member/);
    expect(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))])).toEqual(before);
    // Whoever changed it on purpose says so by deleting the checksum: then it loads, as edited.
    writeFileSync(path, readFileSync(path, 'utf8').replace(/"tables_crc32":"[0-9a-f]{8}",/, ''));
    const store = await openStore(dir);
    expect(store.size('bookings')).toBe(202);
  });

  it('refuses a part edited behind its checksum; loads it through lowdb, as edited, once its crc32 is set to null', async () => {
    const dir = await compacted({ partBytes: 4 * 1024 });
    const path = join(dir, 'state.000001.1.json');
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { tables: Record<string, Record<string, { notes: string | null }>> };
    const [table, rows] = Object.entries(doc.tables)[0]!;
    const key = Object.keys(rows)[0]!;
    rows[key] = { ...rows[key]!, notes: 'edited by hand' };
    writeFileSync(path, JSON.stringify(doc, null, 2));
    await expect(FileStore.open(dir)).rejects.toThrow(/state\.000001\.1\.json is damaged .*checksum does not match.*set its "crc32"/);
    const root = join(dir, 'state.json');
    writeFileSync(root, readFileSync(root, 'utf8').replace(/("file":"state\.000001\.1\.json","bytes":\d+,"crc32":)"[0-9a-f]{8}"/, '$1null'));
    const store = await openStore(dir);
    expect(store.report.snapshot!.parsedWhole).toEqual(['state.000001.1.json']);
    expect((store.get(table as TableName, key) as { notes: string }).notes).toBe('edited by hand');
    expect(store.size('bookings')).toBe(202);
  });

  it('loads the single document of the first file store (version 1) and moves on to journal and snapshots', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ version: 1, tables: { bookings: { '1': sampleBooking(1) }, counters: { booking: { value: 1 } } } }, null, 2));
    const store = await openStore(dir);
    expect(store.get('bookings', '1')).toEqual(sampleBooking(1));
    fill(store, 2, 2);
    await store.close();
    const again = await openStore(dir);
    expect(again.size('bookings')).toBe(2);
    await again.compact();
    await again.close();
    const doc = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { version: number };
    expect(doc.version).toBe(2);
    expect((await openStore(dir)).size('bookings')).toBe(2);
  });

  it('readDataDir reads a directory without locking or repairing it', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    fill(store, 1, 3);
    await store.flush();
    const read = await readDataDir(dir);
    expect(read.tables.get('bookings')!.get('2')).toEqual(sampleBooking(2));
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
  });

  it('readDataDir refuses a directory short of its acknowledged transactions, as open does: it never reads a shorter history as the state', async () => {
    const store = await openStore(tempDir());
    for (let i = 1; i <= 3; i++) {
      fill(store, i, i);
      await store.flush();
    }
    // A kill, then the last acknowledged transaction cut off at a line boundary: only the mark knows it was acknowledged.
    const dir = killCopy(store.dir);
    const text = readFileSync(lastJournal(dir));
    truncateSync(lastJournal(dir), text.lastIndexOf(10, text.length - 2) + 1);
    await expect(readDataDir(dir)).rejects.toThrow(/ends at transaction 2, but transactions up to 3 were acknowledged/);
  });
});

describe('FileStore manifest: a missing, emptied or shortened journal is a named error (issue 17)', () => {
  /** 40 bookings in the snapshot, 18 more in the newest journal, closed cleanly. */
  async function snapshotAndJournal(): Promise<string> {
    const dir = tempDir();
    const store = await FileStore.open(dir);
    for (let i = 1; i <= 40; i++) fill(store, i, i);
    await store.flush();
    await store.compact();
    for (let i = 41; i <= 58; i++) fill(store, i, i);
    await store.close();
    return dir;
  }

  it.each([
    ['the newest journal deleted', (dir: string) => rmSync(lastJournal(dir)), /journal\.000001\.log is missing \(manifest\.json names it the newest journal\)/],
    ['the newest journal emptied', (dir: string) => writeFileSync(lastJournal(dir), ''), /journal\.000001\.log has lost its header line \(it is empty\)/],
    ['the newest journal cut at a line boundary after a clean close', (dir: string) => {
      const keep = journalHeader(dir).length + journalLines(dir).slice(0, 5).reduce((n, l) => n + l.length + 1, 0);
      truncateSync(lastJournal(dir), keep);
    }, /end at transaction 45, but the simulator closed cleanly after transaction 58/],
  ])('refuses %s instead of starting with 40 of 58 bookings', async (_name, damage, message) => {
    const dir = await snapshotAndJournal();
    expect((await readDataDir(dir)).tables.get('bookings')!.size).toBe(58);
    damage(dir);
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
    await expect(FileStore.open(dir)).rejects.toBeInstanceOf(StoreDamagedError);
    await expect(FileStore.open(dir)).rejects.toThrow(message);
    await expect(FileStore.open(dir)).rejects.toThrow(/will not start from a shorter history/);
    expect(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]), 'the files are left as found').toEqual(before);
  });

  it('writes the manifest as one JSON line of its format: the newest generation, headers from the first (0), and the last transaction of a clean close', async () => {
    const dir = await snapshotAndJournal();
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe('{"format":"partner-api-simulator/manifest","generation":1,"headers_from":0,"closed_at":58}\n');
  });

  it('opens again a store closed before its first transaction (the manifest\'s counts begin at 0)', async () => {
    const dir = tempDir();
    await (await FileStore.open(dir)).close();
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).closed_at).toBe(0);
    const store = await openStore(dir);
    expect(store.size('bookings')).toBe(0);
  });

  const manifest = { format: 'partner-api-simulator/manifest', generation: 1, headers_from: 1, closed_at: 58 };
  it.each([
    ['not JSON', '{"format":"partner-api-simulator/manifest",', /manifest\.json is damaged and cannot be loaded \(not JSON: /],
    ['JSON null', 'null', /not a manifest/],
    ['of another format', JSON.stringify({ ...manifest, format: 'partner-api-simulator/state' }), /not a manifest/],
    ['without a generation', JSON.stringify({ ...manifest, generation: undefined }), /not a manifest/],
    ['with a negative generation', JSON.stringify({ ...manifest, generation: -1 }), /not a manifest/],
    ['with a fractional headers_from', JSON.stringify({ ...manifest, headers_from: 1.5 }), /not a manifest/],
    ['with closed_at as text', JSON.stringify({ ...manifest, closed_at: '58' }), /not a manifest/],
    ['without closed_at', JSON.stringify({ ...manifest, closed_at: undefined }), /not a manifest/],
  ])('refuses a manifest %s: it names the file and never guesses which journal is the newest', async (_name, text, message) => {
    const dir = await snapshotAndJournal();
    writeFileSync(join(dir, 'manifest.json'), text);
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
    await expect(FileStore.open(dir)).rejects.toBeInstanceOf(StoreDamagedError);
    await expect(FileStore.open(dir)).rejects.toThrow(message);
    await expect(FileStore.open(dir)).rejects.toThrow(`${join(dir, 'manifest.json')} is damaged and cannot be loaded`);
    await expect(FileStore.open(dir)).rejects.toThrow(/restore the file from a backup, or move the data directory away to start afresh/);
    expect(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]), 'the files are left as found').toEqual(before);
  });

  it('refuses the journal of the snapshot deleted even without a manifest', async () => {
    const dir = await snapshotAndJournal();
    rmSync(join(dir, 'manifest.json'));
    rmSync(lastJournal(dir));
    await expect(FileStore.open(dir)).rejects.toThrow(/journal\.000001\.log is missing \(state\.json of generation 1 continues in it\)/);
  });

  it('opens a directory written before the manifest (journals without headers) and moves on to a journal with one', async () => {
    const dir = await snapshotAndJournal();
    // As an older version left it: no manifest, no header line.
    rmSync(join(dir, 'manifest.json'));
    writeFileSync(lastJournal(dir), Buffer.concat(journalLines(dir).map((l) => Buffer.concat([l, Buffer.from('\n')]))));
    const store = await openStore(dir);
    expect(store.size('bookings')).toBe(58);
    fill(store, 59, 59);
    await store.close();
    expect(journals(dir)).toEqual(['journal.000001.log', 'journal.000002.log']);
    expect(decodeHeader(journalHeader(dir).subarray(0, -1))).toEqual({ generation: 2, firstN: 59 });
    expect((await openStore(dir)).size('bookings')).toBe(59);
  });

  it('a kill leaves no clean-close mark: a torn unacknowledged tail is still recovered', async () => {
    const store = await openStore(tempDir());
    fill(store, 1, 3);
    await store.flush();
    const dir = await killDuringLastRound(store, () => fill(store, 4, 4));
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).closed_at).toBeNull();
    truncateSync(lastJournal(dir), statSync(lastJournal(dir)).size - 5);
    const opened = await openStore(dir);
    expect(opened.report.tornBytes).toBeGreaterThan(0);
    expect(opened.size('bookings')).toBe(3);
  });

  it('cutting a torn tail off lets go of the journal: once closed, the store holds no file of the directory open', async () => {
    const store = await openStore(tempDir());
    fill(store, 1, 3);
    await store.flush();
    const dir = await killDuringLastRound(store, () => fill(store, 4, 4));
    truncateSync(lastJournal(dir), statSync(lastJournal(dir)).size - 5);
    const opened = await openStore(dir);
    expect(opened.report.tornBytes).toBeGreaterThan(0);
    await opened.close();
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('writes every data file owner-only (0600), and makes older 0644 files so at open', async () => {
    const dir = await snapshotAndJournal();
    chmodSync(join(dir, 'state.json'), 0o644);
    const store = await openStore(dir);
    fill(store, 59, 59);
    await store.flush();
    for (const name of readdirSync(dir)) {
      expect((statSync(join(dir, name)).mode & 0o777).toString(8), name).toBe('600');
    }
  });
});

describe('FileStore lock', () => {
  /** A pid that belonged to a process that has exited. */
  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    return Number(child.stdout);
  }

  it('takes over a lock left by a process that is gone (a kill) and says from whom', async () => {
    const dir = tempDir();
    const pid = deadPid();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, hostname: (await import('node:os')).hostname(), start_ticks: null, boot_id: null, locked_at: 'then' }));
    const store = await openStore(dir);
    expect(store.report.tookOverLockFrom?.pid).toBe(pid);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    await store.close();
    expect(existsSync(join(dir, LOCK_FILE)), 'close releases the lock').toBe(false);
  });

  it('takes over an unreadable lock (a kill between creating and writing it)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), '');
    const store = await openStore(dir);
    expect(store.report.tookOverLockFrom).toBeNull();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
  });

  it('refuses while the process named in the lock lives, naming it', async () => {
    const dir = tempDir();
    // The parent of this test process: alive for as long as the test runs.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.ppid, hostname: (await import('node:os')).hostname(), start_ticks: null, boot_id: null, locked_at: '2026-09-15T06:30:00Z' }));
    await expect(FileStore.open(dir)).rejects.toThrow(new RegExp(`in use by another simulator \\(pid ${process.ppid} on .*since 2026-09-15T06:30:00Z\\); stop it first or use another --data DIR`));
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });

  it('a lock that records only a pid: the refusal names the fields it lacks, never "undefined" (issue 29 item 7)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), '{"pid": 1}\n');
    const refusal = FileStore.open(dir);
    await expect(refusal).rejects.toThrow(/in use by another simulator \(pid 1; the lock file records no hostname and no locked_at\)/);
    await expect(refusal).rejects.toThrow(new RegExp(`it does not say which machine holds it: if no simulator serves this directory, delete ${join(dir, LOCK_FILE).replace(/[.]/g, '\\.')}`));
    await expect(refusal).rejects.not.toThrow(/undefined/);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });
});
