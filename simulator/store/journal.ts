/**
 * The append-only journal of committed transactions: one line per
 * transaction, exactly the puts and deletes of its overlay, in order:
 *
 *   <crc32, 8 hex> {"n":42,"ops":[["put","bookings","5001"],["del","holds","1001:2026-10-01"]]}<TAB>{"id":5001,…}\n
 *
 * The ops come first without their values; each put's value follows, in
 * order, as its JSON text after a tab (JSON text never holds a raw tab or
 * newline). Replay thus splits a line and keeps each value as text until it
 * is read (LazyTable), instead of parsing every record. The CRC-32 covers
 * everything after it; `n` numbers transactions across journal files
 * without a gap, so a missing or reordered file is noticed.
 *
 * Each file begins with a header line, written and synced when the file is
 * created (journals written before the manifest have none):
 *
 *   <crc32, 8 hex> {"journal":3,"first_n":1201}\n
 *
 * so an emptied journal is told from a new one (issue 17, see manifest.ts).
 *
 * Writes are group-committed: commits append to a buffer; one synced write
 * round makes everything buffered so far durable, and every flush waiting
 * for any of it resolves together.
 *
 * A round that fails (ENOSPC, EIO, a file system gone read-only) rejects the
 * flushes waiting for it and refuses new appends (the store answers 503),
 * keeps its lines, and retries by itself every RETRY_MS: it cuts the file
 * back to its last synced size (a write cut short leaves no half line) and
 * writes them again. Once the disk takes them, appends are accepted again.
 * Issue 17: one failed write used to poison the journal until a restart.
 */
import { isAscii } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { syncDir, writeAll } from './durable-fs.ts';
import { JournalFailedError, StoreDamagedError } from './errors.ts';
import { DELETED, type Overlay } from './memory-store.ts';

export const JOURNAL_NAME = /^journal\.(\d{6,})\.log$/;

export function journalFileName(generation: number): string {
  return `journal.${String(generation).padStart(6, '0')}.log`;
}

/** A put carries its value as JSON text. */
export type JournalOp = ['put', string, string, string] | ['del', string, string];

export interface JournalTransaction {
  n: number;
  ops: JournalOp[];
}

/** One transaction as its journal line (newline included). Throws on a value JSON cannot hold. */
export function encodeTransaction(n: number, overlay: Overlay): string {
  const ops: string[] = [];
  let values = '';
  for (const [table, rows] of overlay) {
    const t = JSON.stringify(table);
    for (const [key, value] of rows) {
      if (value === DELETED) {
        ops.push(`["del",${t},${JSON.stringify(key)}]`);
        continue;
      }
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError(`cannot store ${table}/${key}: the value has no JSON form`);
      ops.push(`["put",${t},${JSON.stringify(key)}]`);
      values += '\t' + json;
    }
  }
  const body = `{"n":${n},"ops":[${ops.join(',')}]}${values}`;
  return `${crc32(body).toString(16).padStart(8, '0')} ${body}\n`;
}

/** The first line of a journal file: its generation and the number its first transaction gets. */
export interface JournalHeader {
  generation: number;
  firstN: number;
}

export function encodeHeader(header: JournalHeader): string {
  const body = `{"journal":${header.generation},"first_n":${header.firstN}}`;
  return `${crc32(body).toString(16).padStart(8, '0')} ${body}\n`;
}

/** The header a line holds, or null when it is no header (a transaction, or damage). */
export function decodeHeader(line: Buffer): JournalHeader | null {
  if (line.length < 10 || line.length > 200 || line[8] !== 0x20) return null;
  const body = line.subarray(9);
  if (crc32(body) !== Number.parseInt(line.toString('latin1', 0, 8), 16)) return null;
  const m = /^\{"journal":(\d{1,15}),"first_n":(\d{1,15})\}$/.exec(body.toString('latin1'));
  return m ? { generation: Number(m[1]), firstN: Number(m[2]) } : null;
}

/** Decodes one line (without its newline); a string says why it is not a transaction. */
export function decodeLine(line: Buffer): JournalTransaction | string {
  if (line.length < 10 || line[8] !== 0x20) return 'no checksum prefix';
  const prefix = line.subarray(0, 8).toString('latin1');
  const body = line.subarray(9);
  if (!/^[0-9a-f]{8}$/.test(prefix) || crc32(body) !== Number.parseInt(prefix, 16)) return 'checksum mismatch';
  const text = isAscii(body) ? body.toString('latin1') : body.toString('utf8');
  let tab = text.indexOf('\t');
  if (tab === -1) tab = text.length;
  let head: { n: number; ops: unknown[] };
  try {
    head = JSON.parse(text.slice(0, tab)) as typeof head;
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (!Number.isInteger(head?.n) || !Array.isArray(head.ops)) return 'not a transaction';
  const ops: JournalOp[] = [];
  for (const op of head.ops) {
    const ok = Array.isArray(op) && typeof op[1] === 'string' && typeof op[2] === 'string' && op.length === 3 && (op[0] === 'put' || op[0] === 'del');
    if (!ok) return `not a put or a delete: ${JSON.stringify(op).slice(0, 80)}`;
    if (op[0] === 'del') {
      ops.push(op as JournalOp);
      continue;
    }
    if (tab >= text.length) return 'a put without its value';
    let end = text.indexOf('\t', tab + 1);
    if (end === -1) end = text.length;
    ops.push(['put', op[1], op[2], text.slice(tab + 1, end)]);
    tab = end;
  }
  if (tab < text.length) return 'more values than puts';
  return { n: head.n, ops };
}

export interface JournalScan {
  path: string;
  transactions: number;
  firstN: number | null;
  lastN: number | null;
  /** Bytes up to the end of the last complete transaction. */
  validBytes: number;
  fileBytes: number;
  /** What follows the last complete transaction, if anything: a write cut short. */
  torn: { bytes: number; reason: string } | null;
  /** The header line, when the file begins with one. */
  header: JournalHeader | null;
}

const READ_CHUNK = 16 * 1024 * 1024;

/**
 * Reads a journal file and hands every complete transaction to `apply`, in
 * order. What follows the last complete transaction (a partial line, or a
 * last line that fails its checksum) is reported as torn; a damaged line
 * with complete transactions after it, or a numbering gap, is an error: the
 * store cannot skip it without losing what comes later.
 */
export function scanJournal(path: string, expectedFirstN: number | null, apply: (tx: JournalTransaction) => void): JournalScan {
  const fd = openSync(path, 'r');
  try {
    const fileBytes = fstatSync(fd).size;
    const scan: JournalScan = { path, transactions: 0, firstN: null, lastN: null, validBytes: 0, fileBytes, torn: null, header: null };
    let expected = expectedFirstN;
    let bad: { offset: number; reason: string } | null = null;
    const line = (bytes: Buffer, offset: number) => {
      if (bad) {
        throw new StoreDamagedError(`${path} is damaged at byte ${bad.offset} (${bad.reason}) and complete transactions follow it at byte ${offset}; `
          + 'the store will not skip it and lose them. Restore the data directory from a backup, or move it away to start afresh.');
      }
      const header = offset === 0 ? decodeHeader(bytes) : null;
      if (header) {
        if (expected !== null && header.firstN !== expected) {
          throw new StoreDamagedError(`${path} begins at transaction ${header.firstN} where ${expected} was expected: `
            + 'transactions in between are missing (a journal was cut short or removed), or files from another data directory were mixed in. '
            + 'Restore the data directory from a backup, or move it away to start afresh.');
        }
        scan.header = header;
        scan.validBytes = bytes.length + 1;
        expected = header.firstN;
        return;
      }
      const tx = decodeLine(bytes);
      if (typeof tx === 'string') {
        bad = { offset, reason: tx };
        return;
      }
      if (expected !== null && tx.n !== expected) {
        throw new StoreDamagedError(`${path} holds transaction ${tx.n} at byte ${offset} where ${expected} was expected: `
          + 'a journal file or the snapshot is missing, or files from another data directory were mixed in.');
      }
      apply(tx);
      scan.transactions += 1;
      scan.firstN ??= tx.n;
      scan.lastN = tx.n;
      scan.validBytes = offset + bytes.length + 1;
      expected = tx.n + 1;
    };
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(fileBytes, 1)));
    let carry: Buffer | null = null;
    let offset = 0; // file offset of the first byte of `carry` (or of the next line)
    for (let pos = 0; pos < fileBytes;) {
      const len = readSync(fd, buf, 0, Math.min(buf.length, fileBytes - pos), pos);
      if (len === 0) break;
      pos += len;
      const data: Buffer = carry ? Buffer.concat([carry, buf.subarray(0, len)]) : buf.subarray(0, len);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        line(data.subarray(start, nl), offset + start);
        start = nl + 1;
      }
      offset += start;
      carry = start < data.length ? Buffer.from(data.subarray(start)) : null;
    }
    const badLine = bad as { offset: number; reason: string } | null;
    if (badLine) scan.torn = { bytes: fileBytes - scan.validBytes, reason: `its last line is damaged (${badLine.reason})` };
    else if (carry) scan.torn = { bytes: carry.length, reason: 'its last line is incomplete' };
    return scan;
  } finally {
    closeSync(fd);
  }
}

export interface Rotation {
  /** The first transaction the new file gets. */
  firstN: number;
  /** Size of the file rotated out. */
  previousBytes: number;
}

interface Waiter {
  n: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

/**
 * Appends transaction lines to the current journal file with group commit,
 * and rotates to a new file on request (compaction) between two rounds, so
 * a rotated-out file is always complete and synced.
 */
export class JournalWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  /** Numbers of the last transaction appended, and of the last one written and synced. */
  private lastN: number;
  private durableN: number;
  private waiters: Waiter[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private rotation: { generation: number; resolve: (r: Rotation) => void; reject: (e: Error) => void } | null = null;
  /** Called once a new journal file exists with its header, before any transaction goes to it (the manifest names it). */
  onRotate: ((generation: number) => void) | null = null;
  private failure: JournalFailedError | null = null;
  /** Synced write rounds so far (group commit makes this far fewer than flushes). */
  rounds = 0;
  /** Told once when writing starts to fail, and once when it works again. */
  onFailure: ((e: JournalFailedError) => void) | null = null;
  onRecovery: ((outage: { ms: number; transactions: number }) => void) | null = null;
  /** A test knob: consulted before each write; an error it returns is thrown as the write's (a disk fault on demand). */
  writeFault: (() => Error | null) | null = null;
  /**
   * Called once transactions up to `n` are written and synced, before any
   * flush waiting for them resolves (the acknowledgement mark, ack-mark.ts):
   * nothing is acknowledged that the mark does not name.
   */
  onDurable: ((n: number) => void) | null = null;
  private failedAt = 0;
  private retry: NodeJS.Timeout | null = null;
  private closing = false;

  private constructor(
    private readonly dir: string,
    private fh: FileHandle,
    public generation: number,
    nextN: number,
    /** Bytes in the current file. */
    public fileBytes: number,
  ) {
    this.lastN = nextN - 1;
    this.durableN = nextN - 1;
  }

  /** Opens journal `generation` for appending (creating it, and syncing the directory, when new). */
  static async open(dir: string, generation: number, nextN: number): Promise<JournalWriter> {
    const { fh, bytes } = await openForAppend(dir, generation, nextN);
    return new JournalWriter(dir, fh, generation, nextN, bytes);
  }

  get path(): string {
    return join(this.dir, journalFileName(this.generation));
  }

  /** The number the next transaction gets. */
  get nextN(): number {
    return this.lastN + 1;
  }

  /** Bytes in the current file plus what waits to be written. */
  get bytes(): number {
    return this.fileBytes + this.pendingChars;
  }

  get failed(): JournalFailedError | null {
    return this.failure;
  }

  append(n: number, line: string): void {
    if (this.failure) throw this.failure;
    if (n !== this.lastN + 1) throw new Error(`journal: transaction ${n} appended after ${this.lastN}`);
    this.pending.push(line);
    this.pendingChars += line.length;
    this.lastN = n;
  }

  /** Resolves once every transaction appended so far is written and synced. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.durableN >= this.lastN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ n: this.lastN, resolve, reject });
      this.kick();
    });
  }

  /**
   * Moves appending to journal `generation` after the round in progress;
   * resolves once the new file takes the appends.
   */
  rotate(generation: number): Promise<Rotation> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.rotation = { generation, resolve, reject };
      this.kick();
    });
  }

  async close(): Promise<void> {
    // No retry after a close, even a failed one: the store's lock is released with it, and a retry left running would
    // write (and first cut back) a journal the next owner of the data directory appends to.
    this.closing = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    try {
      if (this.failure && this.pending.length > 0) {
        // One last try before giving up what was never acknowledged.
        this.kick();
        await this.loop;
      }
      await this.flush();
      await this.loop;
    } finally {
      await this.fh.close();
    }
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    // Started after the current synchronous burst: every commit made in it joins the first round.
    this.loop = new Promise<void>((resolve) => queueMicrotask(() => void this.run().then(resolve)));
  }

  private async run(): Promise<void> {
    let lines: string[] = [];
    let roundStart = this.fileBytes;
    try {
      if (this.failure) {
        // Cut back to the last synced size: a write cut short must not leave half a line before the retry.
        await this.fh.truncate(this.fileBytes);
      }
      for (;;) {
        if (this.rotation) {
          const { generation, resolve, reject } = this.rotation;
          this.rotation = null;
          let next: { fh: FileHandle; bytes: number };
          try {
            next = await openForAppend(this.dir, generation, this.durableN + 1);
          } catch (e) {
            // Only the rotation fails (compaction is refused); the journal in use still takes the appends.
            reject(e as Error);
            continue;
          }
          try {
            this.onRotate?.(generation);
          } catch (e) {
            // The manifest could not name the new file (a full disk): the rotation alone fails, its caller told (left
            // to the round's catch it would never settle, and the round's lines were not this error's), the new file
            // is dropped so a later rotation to this generation starts it afresh, and the journal in use takes the appends.
            // A close the disk refuses must not keep the rotation from settling: the file is dropped either way.
            await next.fh.close().catch(() => undefined);
            await unlink(join(this.dir, journalFileName(generation))).catch(() => undefined);
            reject(e as Error);
            continue;
          }
          const previous = this.fh;
          const previousBytes = this.fileBytes;
          this.fh = next.fh;
          this.generation = generation;
          this.fileBytes = next.bytes;
          // The manifest already names the new file, so the rotation has happened: the old file is complete and synced
          // (each round syncs), and a close the disk refuses loses nothing of it; left to the round's catch it would
          // fail the journal and leave the rotation unsettled.
          await previous.close().catch(() => undefined);
          // Everything written so far is synced (each round syncs): the new file starts after it.
          resolve({ firstN: this.durableN + 1, previousBytes });
          continue;
        }
        if (this.pending.length === 0) break;
        const upTo = this.lastN;
        roundStart = this.fileBytes;
        lines = this.pending;
        this.pending = [];
        this.pendingChars = 0;
        // One write per WRITE_CHUNK of lines: a backlog of any size never becomes one giant string.
        for (let i = 0; i < lines.length;) {
          let chars = 0;
          let j = i;
          while (j < lines.length && (j === i || chars + lines[j]!.length <= WRITE_CHUNK)) chars += lines[j++]!.length;
          const buf = Buffer.from(j === i + 1 ? lines[i]! : lines.slice(i, j).join(''), 'utf8');
          const fault = this.writeFault?.();
          if (fault) throw fault;
          await writeAll(this.fh, buf);
          this.fileBytes += buf.length;
          i = j;
        }
        if (!SYNCED_WRITES) await this.fh.datasync();
        // The mark first: if it cannot be written, the round fails whole and is retried (nothing acknowledged).
        this.onDurable?.(upTo);
        lines = [];
        this.durableN = upTo;
        if (this.failure) {
          const outage = { ms: Date.now() - this.failedAt, transactions: upTo - this.failure.durableN };
          this.failure = null;
          this.onRecovery?.(outage);
        }
        this.rounds += 1;
        const still: Waiter[] = [];
        for (const w of this.waiters) (w.n <= upTo ? w.resolve() : still.push(w));
        this.waiters = still;
      }
    } catch (e) {
      // Keep what was not written, in order, for the retry; the file is cut back to its synced size first.
      this.fileBytes = Math.min(this.fileBytes, roundStart);
      if (lines.length > 0) {
        this.pending = [...lines, ...this.pending];
        this.pendingChars = this.pending.reduce((n, l) => n + l.length, 0);
      }
      const first = !this.failure;
      this.failure = new JournalFailedError(`the journal ${this.path} could not be written or synced (${(e as Error).message}); `
        + `nothing after transaction ${this.durableN} is acknowledged. Writes are refused until the disk accepts them again `
        + `(retried every ${RETRY_MS / 1000} s); reads go on.`, this.durableN);
      for (const w of this.waiters.splice(0)) w.reject(this.failure);
      this.rotation?.reject(this.failure);
      this.rotation = null;
      if (first) {
        this.failedAt = Date.now();
        this.onFailure?.(this.failure);
      }
      if (!this.closing) {
        this.retry = setTimeout(() => {
          this.retry = null;
          this.kick();
        }, RETRY_MS);
        this.retry.unref();
      }
    } finally {
      this.running = false;
    }
  }
}

/**
 * O_DSYNC: each write returns once its data (and the size that reaches it)
 * is on stable storage, a write + fdatasync in one system call and one trip
 * through the thread pool. Where the platform has no O_DSYNC, fdatasync follows each write.
 */
const WRITE_CHUNK = 16 * 1024 * 1024;
/** How often a failed journal tries its writes again. */
const RETRY_MS = 1000;
const SYNCED_WRITES = typeof constants.O_DSYNC === 'number' && process.platform !== 'win32';
const APPEND_FLAGS = SYNCED_WRITES ? constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC : 'a';

async function openForAppend(dir: string, generation: number, firstN: number): Promise<{ fh: FileHandle; bytes: number }> {
  const path = join(dir, journalFileName(generation));
  // 0600: the journal holds guest details (issue 17); chmod for files an older version created 0644.
  const fh = await open(path, APPEND_FLAGS, 0o600);
  try {
    await fh.chmod(0o600);
    let { size } = await fh.stat();
    if (size === 0) {
      const header = Buffer.from(encodeHeader({ generation, firstN }), 'latin1');
      await writeAll(fh, header);
      if (!SYNCED_WRITES) await fh.datasync();
      size = header.length;
      // A new file's name must be durable before anything acknowledged lives only in it.
      await syncDir(dir);
    }
    return { fh, bytes: size };
  } catch (e) {
    await fh.close();
    throw e;
  }
}
