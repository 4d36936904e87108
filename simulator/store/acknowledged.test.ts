/**
 * Issue 29, item 1: crash recovery tells a torn tail from lost acknowledged
 * records. After a kill only what no flush acknowledged may be missing (the
 * acknowledgement mark, ack-mark.ts, names the last acknowledged
 * transaction); a newest journal cut shorter refuses to start, naming the
 * file and how many acknowledged records are missing. `recover` starts with
 * what is intact, moves the damaged journal aside, and never reuses an id,
 * a sequence or a transaction number.
 */
import fs, { cpSync, existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ACK_FILE, AckMarkWriter, encodeAckMark, readAckMark } from './ack-mark.ts';
import { StoreDamagedError } from './errors.ts';
import { FileStore } from './file-store.ts';
import { JOURNAL_NAME, journalFileName } from './journal.ts';
import { MANIFEST_FILE } from './manifest.ts';
import { PART_NAME } from './snapshot.ts';
import { LOCK_FILE } from './lock.ts';
import { sampleBooking } from './store.contract.ts';
import { openedFileStores, openFilesUnder, tempDirs } from './test-support.ts';
import { issuedHighWater, raiseIssued } from '../domain/issued.ts';
import supertest from 'supertest';
import { addDays } from '../../protocol/calendar.ts';
import { API_ROOT } from '../http/app.ts';
import { createSimulator } from '../simulator.ts';
import { makeHarness, newKey } from '../testing.ts';

const tempDir = tempDirs('acknowledged-test-');
const { open: openStore, opened: stores } = openedFileStores();

/** The directory as a SIGKILL now would leave it. */
function killCopy(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith(LOCK_FILE) });
  return copy;
}
const newestJournal = (dir: string) => join(dir, readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)).sort().at(-1)!);
const ISSUED = { issued: issuedHighWater, raiseIssued };

/** 30 bookings, each its own acknowledged transaction (a create answered 201), then a kill. */
async function thirtyAcknowledged(): Promise<{ dir: string; store: FileStore }> {
  const store = await openStore(tempDir(), ISSUED);
  for (let i = 5001; i <= 5030; i++) {
    store.transaction((tx) => {
      tx.put('bookings', String(i), sampleBooking(i));
      tx.put('counters', 'booking', { value: i });
    });
    await store.flush();
  }
  return { dir: killCopy(store.dir), store };
}

describe('after a kill, only the unacknowledged tail may be missing', () => {
  it('the mark names the last acknowledged transaction and the ids issued, after every flush', async () => {
    const { dir } = await thirtyAcknowledged();
    expect(readAckMark(dir)).toEqual({ n: 30, issued: { 'counter:booking': 5030 } });
    expect((statSync(join(dir, ACK_FILE)).mode & 0o777).toString(8)).toBe('600');
  });

  it('the mark keeps, per name, the higher of the ids issued before this open and those issued since: an id issued once is never named lower', async () => {
    let now: Record<string, number> = { 'counter:booking': 10, 'sequence:1': 5 };
    const first = await openStore(tempDir(), { issued: () => now });
    first.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)));
    await first.flush();
    await first.close();
    // A state that names less than was issued (a restore from an older copy): the mark still names the higher.
    now = { 'counter:booking': 7, 'sequence:2': 3 };
    const again = await openStore(first.dir, { issued: () => now });
    again.transaction((tx) => tx.put('bookings', '2', sampleBooking(2)));
    await again.flush();
    expect(readAckMark(again.dir)).toEqual({ n: 2, issued: { 'counter:booking': 10, 'sequence:1': 5, 'sequence:2': 3 } });
    now = { 'counter:booking': 12, 'sequence:2': 3 };
    again.transaction((tx) => tx.put('bookings', '3', sampleBooking(3)));
    await again.flush();
    expect(readAckMark(again.dir)).toEqual({ n: 3, issued: { 'counter:booking': 12, 'sequence:1': 5, 'sequence:2': 3 } });
  });

  it('SIGKILL, then the newest journal cut to 75%: refuses to start, naming the file and how many acknowledged records are missing; files left as found', async () => {
    const { dir } = await thirtyAcknowledged();
    const journal = newestJournal(dir);
    truncateSync(journal, Math.floor(statSync(journal).size * 0.75));
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
    const open = FileStore.open(dir, ISSUED);
    await expect(open).rejects.toBeInstanceOf(StoreDamagedError);
    const message = await FileStore.open(dir, ISSUED).then(() => 'opened', (e: Error) => e.message);
    expect(message).toContain(journal);
    const [, lastN] = /ends at transaction (\d+), but transactions up to 30 were acknowledged/.exec(message)!;
    expect(Number(lastN)).toBeLessThan(30);
    expect(message).toContain(`${30 - Number(lastN)} acknowledged records are missing`);
    expect(message).toMatch(/--recover/);
    expect(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]), 'the files are left as found').toEqual(before);
  });

  it('SIGKILL, then exactly one whole acknowledged record cut at a line boundary: refused too (1 acknowledged record is missing)', async () => {
    const { dir } = await thirtyAcknowledged();
    const journal = newestJournal(dir);
    const text = readFileSync(journal);
    const cut = text.lastIndexOf(10, text.length - 2) + 1;
    truncateSync(journal, cut);
    await expect(FileStore.open(dir, ISSUED)).rejects.toThrow(/ends at transaction 29, but transactions up to 30 were acknowledged .*1 acknowledged record is missing/);
    // The refusal says what to do, every way out named.
    await expect(FileStore.open(dir, ISSUED)).rejects.toThrow(/restore the data directory from a backup, start with --recover to keep what is intact \(the damaged journal is moved aside\), or move the directory away to start afresh\.$/);
  });

  it('a torn last record that no flush acknowledged: starts with every acknowledged record and drops only the torn bytes', async () => {
    const { store } = await thirtyAcknowledged();
    // A 31st transaction whose round was cut short by the kill: half its line on disk, the mark still at 30.
    const mark = readFileSync(join(store.dir, ACK_FILE));
    store.transaction((tx) => tx.put('bookings', '5031', sampleBooking(5031)));
    await store.flush();
    const dir = killCopy(store.dir);
    truncateSync(newestJournal(dir), statSync(newestJournal(dir)).size - 40);
    writeFileSync(join(dir, ACK_FILE), mark);
    const opened = await openStore(dir, ISSUED);
    expect(opened.size('bookings')).toBe(30);
    expect(opened.report.tornBytes).toBeGreaterThan(0);
    expect(opened.report.recovery).toBeNull();
    opened.transaction((tx) => tx.put('bookings', '5031', sampleBooking(5031)));
    await opened.close();
    expect((await openStore(dir, ISSUED)).size('bookings')).toBe(31);
  });
});

describe('a mark torn by a power loss proves nothing, and is never taken for a proof', () => {
  /** A mark line whose checksum is right for whatever body it carries. */
  const signed = (body: string) => `${crc32(body).toString(16).padStart(8, '0')} ${body}\n`;
  const FORMAT = 'partner-api-simulator/acknowledged';
  /** A right checksum written in capitals, over a body that holds eight lower-case hex digits and a space. */
  function capitalChecksum(): string {
    for (let n = 0; ; n++) {
      const line = signed(JSON.stringify({ format: FORMAT, n, issued: { 'abcdef01 x': 1 } }));
      if (/[a-f]/.test(line.slice(0, 8))) return line.slice(0, 8).toUpperCase() + line.slice(8);
    }
  }
  it.each([
    ['a byte of its body changed', encodeAckMark({ n: 30, issued: { 'counter:booking': 5030 } }).replace('5030', '5031')],
    ['its checksum changed', encodeAckMark({ n: 30, issued: {} }).replace(/^./, (c) => (c === '0' ? '1' : '0'))],
    ['no checksum', `${JSON.stringify({ format: FORMAT, n: 30, issued: {} })}\n`],
    // Right but in capitals, with eight hex digits and a space further on: the checksum is the line's first eight characters, lower case.
    ['its checksum in capitals', capitalChecksum()],
    ['no space after its checksum', signed(JSON.stringify({ format: FORMAT, n: 30, issued: {} })).replace(' ', '\t')],
    ['cut inside its checksum', encodeAckMark({ n: 30, issued: {} }).slice(0, 5)],
    // A checksum right for the rest of the line, one byte in: the checksum is the line's first eight characters, nowhere else.
    ['a byte before its checksum', `Z${signed(` ${JSON.stringify({ format: FORMAT, n: 30, issued: {} })}`).slice(0, 9)}${JSON.stringify({ format: FORMAT, n: 30, issued: {} })}\n`],
    ['empty', ''],
    ['a checked body that is not JSON', signed('{"format":')],
    ['another format', signed(JSON.stringify({ format: 'partner-api-simulator/manifest', n: 30, issued: {} }))],
    ['no transaction number', signed(JSON.stringify({ format: FORMAT, issued: {} }))],
    ['a fractional transaction number', signed(JSON.stringify({ format: FORMAT, n: 29.5, issued: {} }))],
    ['the transaction number as text', signed(JSON.stringify({ format: FORMAT, n: '30', issued: {} }))],
    ['no ids issued', signed(JSON.stringify({ format: FORMAT, n: 30 }))],
    ['ids issued as null', signed(JSON.stringify({ format: FORMAT, n: 30, issued: null }))],
    ['ids issued as a number', signed(JSON.stringify({ format: FORMAT, n: 30, issued: 5030 }))],
  ])('a mark with %s reads as damaged', (_name, text) => {
    const dir = tempDir();
    writeFileSync(join(dir, ACK_FILE), text);
    expect(readAckMark(dir)).toBe('damaged');
  });

  it('no mark (a directory from before marks) reads as none; a whole one reads back, its newline optional', () => {
    const dir = tempDir();
    expect(readAckMark(dir)).toBeNull();
    writeFileSync(join(dir, ACK_FILE), signed(JSON.stringify({ format: FORMAT, n: 0, issued: { 'sequence:1': 61 } })).trimEnd());
    expect(readAckMark(dir)).toEqual({ n: 0, issued: { 'sequence:1': 61 } });
  });

  it('a checksum that begins with 0 is written with all eight digits and reads back', () => {
    let n = 0;
    while (crc32(JSON.stringify({ format: FORMAT, n, issued: {} })) >= 0x10000000) n++;
    const dir = tempDir();
    writeFileSync(join(dir, ACK_FILE), encodeAckMark({ n, issued: {} }));
    expect(readFileSync(join(dir, ACK_FILE), 'latin1')).toMatch(/^0[0-9a-f]{7} \{/);
    expect(readAckMark(dir)).toEqual({ n, issued: {} });
  });

  it('the mark is rewritten in place: a shorter mark over a longer one reads as the shorter, names in any script', () => {
    const dir = tempDir();
    const writer = AckMarkWriter.open(dir);
    writer.write({ n: 123456, issued: { 'counter:booking': 5030, 'sequence:1': 61, 'sequence:2': 7 } });
    writer.write({ n: 7, issued: { 'counter:बुकिंग': 1 } });
    writer.close();
    expect(readFileSync(join(dir, ACK_FILE), 'utf8').startsWith(encodeAckMark({ n: 7, issued: { 'counter:बुकिंग': 1 } }))).toBe(true);
    expect(readAckMark(dir)).toEqual({ n: 7, issued: { 'counter:बुकिंग': 1 } });
    // Opened again, it keeps the file and writes over it.
    const again = AckMarkWriter.open(dir);
    again.write({ n: 8, issued: {} });
    again.close();
    expect(readAckMark(dir)).toEqual({ n: 8, issued: {} });
  });

  it.runIf(process.platform === 'linux')('a closed mark holds its file open no more (the store lets go of its directory at close)', () => {
    const dir = tempDir();
    const writer = AckMarkWriter.open(dir);
    writer.write({ n: 1, issued: {} });
    expect(openFilesUnder(dir)).toEqual([join(realpathSync(dir), ACK_FILE)]);
    writer.close();
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('after a kill with the mark torn, the store opens on the journal\'s own checks with every record, and says the mark proved nothing', async () => {
    const { dir } = await thirtyAcknowledged();
    writeFileSync(join(dir, ACK_FILE), readFileSync(join(dir, ACK_FILE), 'latin1').replace('5030', '5031'), 'latin1');
    const opened = await openStore(dir, ISSUED);
    expect(opened.report.ackMarkDamaged).toBe(true);
    expect(opened.size('bookings')).toBe(30);
    // The next flush writes a whole mark again.
    opened.transaction((tx) => tx.put('bookings', '5031', sampleBooking(5031)));
    await opened.flush();
    expect(readAckMark(dir)).toMatchObject({ n: 31 });
  });
});

describe('recover: start with what is intact, the damaged journal moved aside, nothing reused', () => {
  it('keeps the intact records, moves the short journal aside, raises the counters past what was issued, and numbers transactions after the acknowledged ones', async () => {
    const { dir } = await thirtyAcknowledged();
    const journal = newestJournal(dir);
    truncateSync(journal, Math.floor(statSync(journal).size * 0.75));
    const recovered = await openStore(dir, { ...ISSUED, recover: true });
    const r = recovered.report.recovery!;
    expect(r).toMatchObject({ acknowledgedN: 30, missing: 30 - r.lastN });
    expect(r.lastN).toBeLessThan(30);
    expect(recovered.size('bookings')).toBe(r.lastN);
    expect(r.movedAside).toMatch(/journal\.000000\.log\.damaged-[0-9TZ]+$/);
    expect(existsSync(r.movedAside)).toBe(true);
    expect(existsSync(journal), 'the short journal is no longer in place').toBe(false);
    // The next id is past every one ever issued, not past the intact ones.
    expect(recovered.get('counters', 'booking')).toEqual({ value: 5030 });
    recovered.transaction((tx) => tx.put('bookings', '5031', sampleBooking(5031)));
    await recovered.close();
    expect(readAckMark(dir)).toMatchObject({ n: 31 });
    // Opens normally afterwards, with the records intact and the one written after the recovery.
    const again = await openStore(dir, ISSUED);
    expect(again.size('bookings')).toBe(r.lastN + 1);
    expect(again.report.recovery).toBeNull();
    expect(again.get('counters', 'booking')).toEqual({ value: 5030 });
  });

  it('over HTTP: after a kill and a cut journal, --recover never hands out an acknowledged booking id or event sequence again', async () => {
    const h = makeHarness({ store: await openStore(tempDir(), ISSUED) });
    const acknowledged: number[] = [];
    for (let i = 0; i < 12; i++) {
      // Nights of their own, past the demo world's blocked nights (days +60, +61).
      const check_in = addDays('2026-12-01', 2 * i);
      const check_out = addDays(check_in, 1);
      const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in, check_out }));
      expect(res.status, res.text).toBe(201);
      acknowledged.push(res.body.data.id);
    }
    const lastSequence = (await h.api('get', '/me')).body.data.webhook.last_sequence as number;
    const dir = killCopy(stores.at(-1)!.dir);
    const journal = newestJournal(dir);
    truncateSync(journal, Math.floor(statSync(journal).size * 0.75));
    await expect(FileStore.open(dir, ISSUED)).rejects.toThrow(/acknowledged records? (is|are) missing/);

    // The same world restarted on the recovered directory (its clock restored from the store).
    const sim = createSimulator({ store: await openStore(dir, { ...ISSUED, recover: true }) });
    const http = supertest(sim.app.callback());
    const key = `Bearer ${h.fixtures.integrations[0]!.apiKey}`;
    const res = await http.post(`${API_ROOT}/bookings`).set('Authorization', key).set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-12-28', check_out: '2026-12-29' }));
    expect(res.status, res.text).toBe(201);
    expect(acknowledged).not.toContain(res.body.data.id);
    expect(res.body.data.id).toBeGreaterThan(Math.max(...acknowledged));
    const me = (await http.get(`${API_ROOT}/me`).set('Authorization', key)).body.data.webhook.last_sequence as number;
    const events = (await http.get(`${API_ROOT}/events?after_sequence=${lastSequence}`).set('Authorization', key)).body.data as { sequence: number }[];
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.sequence).toBeGreaterThan(lastSequence);
    expect(me).toBeGreaterThan(lastSequence);
  });

  it('after a clean close, the mark lost and the journal cut at a line boundary: the close counts as acknowledged, so --recover recovers (no raiser of ids needed)', async () => {
    const store = await openStore(tempDir());
    for (let i = 1; i <= 5; i++) {
      store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
      await store.flush();
    }
    await store.close();
    const dir = killCopy(store.dir);
    rmSync(join(dir, ACK_FILE));
    // The header line and the first three transactions stay; transactions 4 and 5 are cut at a line boundary.
    const journal = newestJournal(dir);
    const text = readFileSync(journal, 'utf8');
    truncateSync(journal, Buffer.byteLength(text.split('\n').slice(0, 4).join('\n')) + 1);
    await expect(openStore(dir)).rejects.toThrow(/end at transaction 3, but the simulator closed cleanly after transaction 5/);
    const recovered = await openStore(dir, { recover: true });
    expect(recovered.report.recovery).toMatchObject({ lastN: 3, acknowledgedN: 5, missing: 2 });
    expect(recovered.size('bookings')).toBe(3);
    recovered.transaction((tx) => tx.put('bookings', '6', sampleBooking(6)));
    await recovered.flush();
    expect(readAckMark(dir)).toMatchObject({ n: 6 });
  });

  it('a snapshot whose own journal is missing (a recovery killed before it created that journal): refused without --recover; --recover starts on the snapshot and creates the journal', async () => {
    const store = await openStore(tempDir(), ISSUED);
    for (let i = 1; i <= 5; i++) store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
    // Flushed first, so journal 0 holds transactions 1 to 5 and the snapshot's journal 1 begins at 6, nothing in it yet.
    await store.flush();
    await store.compact();
    await store.close();
    const dir = killCopy(store.dir);
    rmSync(join(dir, journalFileName(1)));
    await expect(openStore(dir, ISSUED)).rejects.toThrow(/journal\.000001\.log is missing \(manifest\.json names it the newest journal\)/);
    const resumed = await openStore(dir, { ...ISSUED, recover: true });
    expect(resumed.size('bookings')).toBe(5);
    expect(resumed.report.recovery).toBeNull();
    expect(existsSync(join(dir, journalFileName(1)))).toBe(true);
    resumed.transaction((tx) => tx.put('bookings', '6', sampleBooking(6)));
    await resumed.close();
    expect((await openStore(dir, ISSUED)).size('bookings')).toBe(6);
  });

  it('--recover still refuses a missing journal newer than the snapshot: what it held after the snapshot is lost with it', async () => {
    let rotated: string | null = null;
    const store = await openStore(tempDir(), { ...ISSUED, onCompactionStep: (step) => void (step === 'rotated' && rotated === null && store.stats().compactions === 1 && (rotated = killCopy(store.dir))) });
    for (let i = 1; i <= 5; i++) store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
    await store.compact();
    store.transaction((tx) => tx.put('bookings', '6', sampleBooking(6)));
    await store.flush();
    // Killed as the second compaction rotated: snapshot 1, journals 1 and 2, the manifest naming journal 2.
    await store.compact();
    const dir = rotated!;
    rmSync(join(dir, journalFileName(2)));
    await expect(openStore(dir, { ...ISSUED, recover: true })).rejects.toThrow(/journal\.000002\.log is missing \(manifest\.json names it the newest journal\)/);
  });
  it('--recover refuses the snapshot\'s own journal deleted once it held an acknowledged transaction: that is a deleted newest journal, not a recovery killed midway', async () => {
    const store = await openStore(tempDir(), ISSUED);
    for (let i = 1; i <= 5; i++) store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
    await store.flush();
    await store.compact();
    // One acknowledged transaction (6) in the snapshot's journal 1, the snapshot's journal beginning at 6: exactly one would be lost.
    store.transaction((tx) => tx.put('bookings', '6', sampleBooking(6)));
    await store.flush();
    const dir = killCopy(store.dir);
    rmSync(join(dir, journalFileName(1)));
    const before = readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]);
    await expect(openStore(dir, { ...ISSUED, recover: true })).rejects.toThrow(/journal\.000001\.log is missing \(manifest\.json names it the newest journal\)/);
    expect(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]), 'the files are left as found').toEqual(before);
  });

  it.each([
    ['journals 1 and 2 deleted (the manifest names 2)', [journalFileName(1), journalFileName(2)], /journal\.000002\.log is missing \(manifest\.json names it the newest journal\)/],
    ['journal 1 deleted with the manifest (journal 2 follows it)', [journalFileName(1), MANIFEST_FILE], /journal\.000001\.log is missing \(state\.json of generation 1 continues in it\)/],
  ])('--recover refuses %s though they held nothing acknowledged: only a snapshot that no journal follows is a recovery killed midway', async (_name, deleted, message) => {
    let rotated: string | null = null;
    const store = await openStore(tempDir(), { ...ISSUED, onCompactionStep: (step) => void (step === 'rotated' && rotated === null && store.stats().compactions === 1 && (rotated = killCopy(store.dir))) });
    for (let i = 1; i <= 5; i++) store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
    // Flushed first, so journal 0 holds transactions 1 to 5 and the snapshot's journal 1 begins at 6.
    await store.flush();
    await store.compact();
    // Killed as the second compaction rotated, nothing written since the first: snapshot 1, journals 1 and 2 (headers only), the manifest naming 2.
    await store.compact();
    const dir = rotated!;
    for (const name of deleted) rmSync(join(dir, name));
    await expect(openStore(dir, { ...ISSUED, recover: true })).rejects.toThrow(message);
  });

  it('--recover after a compaction that failed past its rotation: the recovery\'s snapshot comes after the newest journal, which goes aside', async () => {
    let thrown = false;
    const store = await openStore(tempDir(), {
      ...ISSUED,
      onCompactionStep: (step) => {
        if (step === 'rotated' && !thrown) {
          thrown = true;
          throw new Error('fault at rotated');
        }
      },
    });
    const book = async (i: number) => {
      store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
      await store.flush();
    };
    for (let i = 1; i <= 3; i++) await book(i);
    // No snapshot, journals 0 and 1: transactions 4 to 6 go to journal 1.
    await expect(store.compact()).rejects.toThrow('fault at rotated');
    for (let i = 4; i <= 6; i++) await book(i);
    const dir = killCopy(store.dir);
    const journal = join(dir, journalFileName(1));
    const text = readFileSync(journal);
    truncateSync(journal, text.lastIndexOf(10, text.length - 2) + 1);
    const recovered = await openStore(dir, { ...ISSUED, recover: true });
    expect(recovered.report.recovery).toMatchObject({ lastN: 5, acknowledgedN: 6, missing: 1 });
    expect(readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)), 'only the recovery\'s own journal').toEqual([journalFileName(2)]);
    recovered.transaction((tx) => tx.put('bookings', '7', sampleBooking(7)));
    await recovered.close();
    const again = await openStore(dir, ISSUED);
    expect(again.size('bookings')).toBe(6);
    expect(again.get('bookings', '6'), 'the lost one').toBeUndefined();
    expect(again.get('bookings', '7')).toEqual(sampleBooking(7));
  });

  it('--recover refuses a directory whose every journal is gone with its manifest: there is nothing intact to keep of what was acknowledged', async () => {
    const store = await openStore(tempDir(), ISSUED);
    for (let i = 1; i <= 3; i++) {
      store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
      await store.flush();
    }
    const dir = killCopy(store.dir);
    rmSync(join(dir, journalFileName(0)));
    rmSync(join(dir, MANIFEST_FILE));
    for (const recover of [false, true]) {
      await expect(openStore(dir, { ...ISSUED, recover })).rejects.toThrow(`${dir} holds no journal, but transactions up to 3 were acknowledged (${ACK_FILE})`);
      await expect(openStore(dir, { ...ISSUED, recover })).rejects.toThrow(/will not start from a shorter history, even with --recover: restore the data directory from a backup/);
    }
    expect(readdirSync(dir).sort()).toEqual([ACK_FILE]);
  });

  it('the recovery\'s snapshot is written as a compaction\'s is: cut into part files at partBytes, in slices that run to the end', async () => {
    const store = await openStore(tempDir(), ISSUED);
    // 100 bookings in one transaction (past the 64 records after which the writer looks at its part size and its slice), then one more.
    store.transaction((tx) => {
      for (let i = 1; i <= 100; i++) tx.put('bookings', String(i), sampleBooking(i));
    });
    await store.flush();
    store.transaction((tx) => tx.put('bookings', '101', sampleBooking(101)));
    await store.flush();
    const dir = killCopy(store.dir);
    const journal = newestJournal(dir);
    truncateSync(journal, statSync(journal).size - 10);
    const recovered = await openStore(dir, { ...ISSUED, recover: true, partBytes: 2 * 1024, sliceMs: 0 });
    expect(recovered.report.recovery).toMatchObject({ lastN: 1, acknowledgedN: 2, missing: 1 });
    expect(readdirSync(dir).filter((n) => PART_NAME.test(n)).length, 'part files of the recovery\'s snapshot').toBeGreaterThan(0);
    await recovered.close();
    expect((await openStore(dir, ISSUED)).size('bookings')).toBe(100);
  });

  it('the copy moved aside is synced before the short journal goes, and recovery lets go of every file it opened', async () => {
    const { dir } = await thirtyAcknowledged();
    const journal = newestJournal(dir);
    truncateSync(journal, Math.floor(statSync(journal).size * 0.75));
    // fsyncSync seen through node's own builtin exports (as disk-faults.test.ts replaces open): which files were synced.
    const realFsync = fs.fsyncSync;
    const synced: string[] = [];
    fs.fsyncSync = (fd: number) => {
      synced.push(readlinkSync(`/proc/self/fd/${fd}`));
      realFsync(fd);
    };
    syncBuiltinESMExports();
    let recovered: FileStore;
    try {
      recovered = await openStore(dir, { ...ISSUED, recover: true });
    } finally {
      fs.fsyncSync = realFsync;
      syncBuiltinESMExports();
    }
    expect(synced).toContain(realpathSync(recovered.report.recovery!.movedAside));
    await recovered.close();
    expect(openFilesUnder(dir)).toEqual([]);
  });
});
