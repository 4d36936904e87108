/**
 * The snapshot: the whole state as lowdb JSON documents that users can open
 * and read (`new Low(new JSONFile('data/state.json'), ...)`), tables keyed by
 * record key, one record per line:
 *
 *   {"format":"partner-api-simulator/store","version":2,"generation":3,"journal_from":1201,"written_at":"…","tables":{
 *   "brands":{
 *   "1":{"id":1,"name":"Seaside Stays"},
 *   "2":{"id":2,"name":"Mountain Retreats"}
 *   },
 *   "events":{
 *   …
 *   }
 *   },
 *   "tables_crc32":"9a0b1c2d","parts":[{"file":"state.000003.1.json","bytes":67108901,"crc32":"…"}]}
 *
 * A large state continues in part files (`{"generation","part","tables"}`),
 * so no file nears V8's string limit. `state.json` names its parts and is
 * renamed into place last: it is the one commit point of a snapshot.
 *
 * Loading: a file whose CRC-32 matches the one recorded is scanned line by
 * line and each record kept as a range of the file's bytes until first read
 * (LazyTable), so a restart is a scan, not a parse of every record. A file
 * whose recorded CRC-32 does not match is damaged and refused, valid JSON or
 * not (issue 17: a flipped byte loaded silently). A file that records none
 * (the first file store's version 1, or a hand edit whose author deleted
 * `tables_crc32`, or set a part's `crc32` to null, to say so) is parsed whole
 * by lowdb: accepted if it is valid JSON, refused as damaged if not.
 *
 * Writing is sliced: records are serialised for at most `sliceMs` before the
 * writer yields to the event loop. The tables are read live while they
 * change (a fuzzy snapshot): loading replays the journal from
 * `journal_from`, whose absolute puts and deletes bring every record changed
 * during the write to its final value. Each table is read up to the number
 * of records it held when its turn came, so a snapshot always ends.
 */
import { existsSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { JSONFile } from 'lowdb/node';
import { syncDir, writeAll } from './durable-fs.ts';
import { StoreDamagedError } from './errors.ts';
import { LazyTable, type RawTexts } from './lazy-table.ts';

export const SNAPSHOT_FILE = 'state.json';
export const SNAPSHOT_TEMP = 'state.json.tmp';
export const SNAPSHOT_FORMAT = 'partner-api-simulator/store';
export const PART_NAME = /^state\.(\d{6,})\.(\d+)\.json$/;

export function partFileName(generation: number, part: number): string {
  return `state.${String(generation).padStart(6, '0')}.${part}.json`;
}

type Rows = Record<string, unknown>;

export interface PartEntry {
  file: string;
  bytes: number;
  crc32: string | null;
}

/** `state.json`. Version 1 is the document of the first file store (no journal, no parts). */
export interface SnapshotDocument {
  format?: string;
  version: 1 | 2;
  generation?: number;
  /** The first journal transaction not wholly in the snapshot: replay starts there. */
  journal_from?: number;
  written_at?: string;
  tables: Record<string, Rows>;
  /** CRC-32 of the file up to the line that holds this field. */
  tables_crc32?: string;
  parts?: PartEntry[];
}

export interface PartDocument {
  generation: number;
  part: number;
  tables: Record<string, Rows>;
}

export interface SnapshotInfo {
  version: 1 | 2;
  generation: number;
  journalFrom: number | null;
  files: string[];
  bytes: number;
  records: number;
  /** Files read whole by lowdb because their checksum did not match (edited by hand, or version 1). */
  parsedWhole: string[];
}

function damaged(path: string, why: string): StoreDamagedError {
  return new StoreDamagedError(`${path} is damaged and cannot be loaded (${why}). The store will not start empty over it: `
    + 'restore the file from a backup, or move the data directory away to start afresh.');
}

/** A checksum that does not match: damage, unless whoever edited the file by hand says so. */
function mismatch(path: string, why: string, howToAccept: string): StoreDamagedError {
  return new StoreDamagedError(`${path} is damaged and cannot be loaded (its checksum does not match: ${why}). The store will not start empty `
    + `over it, nor load a changed byte: restore the file from a backup, or move the data directory away to start afresh. If you edited it by hand on purpose, ${howToAccept} to load it unchecked.`);
}

function isRows(v: unknown): v is Rows {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/** Reads a document with lowdb's own adapter, as a user would. */
async function readWhole<T>(path: string): Promise<T> {
  let doc: T | null;
  try {
    doc = await new JSONFile<T>(path).read();
  } catch (e) {
    throw damaged(path, (e as Error).message);
  }
  if (doc === null || typeof doc !== 'object') throw damaged(path, existsSync(path) ? 'it holds no JSON object' : 'the file is missing');
  return doc;
}

/**
 * Reads the tables of a file written by `writeSnapshot`, line by line, on
 * its bytes: each record is kept as a range of them (no string, no object
 * per record until it is read). Returns the count, or null when a line is
 * not laid out as written (the caller then parses the file whole).
 */
function scanTables(buf: Buffer, end: string, table: (name: string) => LazyTable): number | null {
  const ascii = isAscii(buf);
  const enc = ascii ? 'latin1' : 'utf8';
  let pos = buf.indexOf(10) + 1;
  if (pos === 0 || !buf.toString('latin1', 0, pos - 1).endsWith('"tables":{')) return null;
  let rows: LazyTable | null = null;
  let textId = -1;
  const ids = new Map<RawTexts, number>(); // one registration of `buf` per pool (a store's tables share one)
  let count = 0;
  while (pos < buf.length) {
    let nl = buf.indexOf(10, pos);
    if (nl === -1) nl = buf.length;
    const first = buf[pos];
    if (rows === null) {
      const line = buf.toString(enc, pos, nl);
      if (line === end) return nl + 1 >= buf.length ? count : null;
      if (first !== 0x22 || !line.endsWith('":{')) return null;
      rows = table(JSON.parse(line.slice(0, -2)) as string);
      textId = ids.get(rows.texts) ?? rows.texts.add(buf, ascii);
      ids.set(rows.texts, textId);
    } else if (first === 0x7d) {
      if (!(nl - pos === 1 || (nl - pos === 2 && buf[pos + 1] === 0x2c))) return null;
      rows = null;
    } else {
      // "key":value[,]  (the key a JSON string; the value kept as bytes)
      if (first !== 0x22) return null;
      let q = pos + 1;
      let escaped = false;
      for (; q < nl; q++) {
        const c = buf[q];
        if (c === 0x5c) {
          escaped = true;
          q++;
        } else if (c === 0x22) break;
      }
      if (q >= nl || buf[q + 1] !== 0x3a) return null;
      const key = escaped ? (JSON.parse(buf.toString(enc, pos, q + 1)) as string) : buf.toString(enc, pos + 1, q);
      rows.setRef(key, textId, q + 2, buf[nl - 1] === 0x2c ? nl - 1 : nl);
      count += 1;
    }
    pos = nl + 1;
  }
  return null;
}

/** A whole file in one read where the OS allows (readFile reads in 512 KiB steps, each a thread-pool trip). */
async function readAll(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.allocUnsafe(size);
    for (let off = 0; off < size;) {
      const { bytesRead } = await fh.read(buf, off, size - off, off);
      if (bytesRead === 0) return buf.subarray(0, off);
      off += bytesRead;
    }
    return buf;
  } finally {
    await fh.close();
  }
}

function loadRows(path: string, tables: Record<string, unknown>, table: (name: string) => LazyTable): number {
  let count = 0;
  for (const [name, rows] of Object.entries(tables)) {
    if (!isRows(rows)) throw damaged(path, `table "${name}" is not an object of records`);
    const map = table(name);
    for (const key in rows) {
      map.set(key, rows[key]);
      count += 1;
    }
  }
  return count;
}

/** Loads the snapshot into `table(name)` maps; null when there is none. */
export async function readSnapshot(dir: string, table: (name: string) => LazyTable): Promise<SnapshotInfo | null> {
  const rootPath = join(dir, SNAPSHOT_FILE);
  if (!existsSync(rootPath)) return null;
  const buf = await readAll(rootPath);
  const info: SnapshotInfo = { version: 2, generation: 0, journalFrom: null, files: [SNAPSHOT_FILE], bytes: buf.length, records: 0, parsedWhole: [] };

  // Fast path: the trailer line names the checksum of everything before it.
  let root: SnapshotDocument | null = null;
  const trailerAt = buf.lastIndexOf(10, buf.length - 2) + 1;
  type Trailer = Pick<SnapshotDocument, 'tables_crc32' | 'parts'>;
  let trailer: Trailer | null = null;
  try {
    trailer = JSON.parse('{' + buf.subarray(trailerAt).toString('utf8')) as Trailer;
  } catch {
    // no trailer line as written: the whole parse below
  }
  if (trailer && trailer.tables_crc32 === hex(crc32(buf.subarray(0, trailerAt)))) {
    const tables = buf.subarray(0, trailerAt);
    let header: SnapshotDocument | null = null;
    try {
      header = JSON.parse(tables.toString('utf8', 0, tables.indexOf(10)) + '}}') as SnapshotDocument;
    } catch {
      // no header line as written: the whole parse below
    }
    // A failed scan may have stored some rows: the whole parse below sets every row again.
    const count = header ? scanTables(tables, '},', table) : null;
    if (header && count !== null) {
      root = { ...header, tables: {}, ...trailer };
      info.records += count;
    }
  }
  if (!root) {
    root = await readWhole<SnapshotDocument>(rootPath);
    if (!isRows(root) || !isRows(root.tables) || (root.version !== 1 && root.version !== 2)) {
      throw damaged(rootPath, 'it is not a simulator snapshot: no "version" 1 or 2 with a "tables" object');
    }
    // A recorded checksum is a promise about the bytes: valid JSON that breaks it is a changed byte, not an edit.
    const computed = hex(crc32(buf.subarray(0, trailerAt)));
    if (root.tables_crc32 !== undefined && root.tables_crc32 !== computed) {
      throw mismatch(rootPath, `"tables_crc32" is ${JSON.stringify(root.tables_crc32)}, its tables hash to "${computed}"`, 'delete its "tables_crc32" member');
    }
    info.records += loadRows(rootPath, root.tables, table);
    info.parsedWhole.push(SNAPSHOT_FILE);
  }
  const v2 = root.version === 2;
  if (v2 && (!Number.isInteger(root.generation) || !Number.isInteger(root.journal_from) || !Array.isArray(root.parts))) {
    throw damaged(rootPath, 'a version 2 snapshot needs "generation", "journal_from" and "parts"');
  }
  info.version = root.version;
  info.generation = root.generation ?? 0;
  info.journalFrom = v2 ? root.journal_from! : null;

  const parts = root.parts ?? [];
  for (const entry of parts) {
    const m = isRows(entry) && typeof entry.file === 'string' ? PART_NAME.exec(entry.file) : null;
    if (!m || Number(m[1]) !== info.generation) throw damaged(rootPath, `"parts" names ${JSON.stringify(entry)}, not a part of generation ${info.generation}`);
    if (!existsSync(join(dir, entry.file))) throw damaged(rootPath, `its part ${entry.file} is missing`);
  }
  // Reading the next parts overlaps scanning this one.
  const AHEAD = 2;
  const reads: Promise<Buffer>[] = [];
  const read = (i: number) => {
    if (i >= parts.length) return;
    const p = readAll(join(dir, parts[i]!.file));
    p.catch(() => undefined); // awaited in its turn; not an unhandled rejection meanwhile
    reads[i] = p;
  };
  for (let i = 0; i < AHEAD; i++) read(i);
  for (const [i, entry] of parts.entries()) {
    const path = join(dir, entry.file);
    const part = await reads[i]!;
    delete reads[i];
    read(i + AHEAD);
    let count: number | null = null;
    if (entry.crc32 === hex(crc32(part)) && part.toString('latin1', 0, 64).startsWith(`{"generation":${info.generation},"part":${i + 1},"tables":{\n`)) {
      count = scanTables(part, '}}', table);
    }
    if (count === null) {
      if (entry.crc32 !== null && entry.crc32 !== undefined && entry.crc32 !== hex(crc32(part))) {
        throw mismatch(path, `${SNAPSHOT_FILE} records CRC-32 ${JSON.stringify(entry.crc32)}, the file hashes to "${hex(crc32(part))}"`, `set its "crc32" in the "parts" of ${SNAPSHOT_FILE} to null`);
      }
      const doc = await readWhole<PartDocument>(path);
      if (!isRows(doc) || doc.generation !== info.generation || doc.part !== i + 1 || !isRows(doc.tables)) {
        throw damaged(path, `it is not part ${i + 1} of snapshot generation ${info.generation}`);
      }
      count = loadRows(path, doc.tables, table);
      info.parsedWhole.push(entry.file);
    }
    info.records += count;
    info.files.push(entry.file);
    info.bytes += part.length;
  }
  return info;
}

/** Steps of writing a snapshot, for tests that stop the world at each one. */
export type SnapshotStep = 'writing' | 'part-written' | 'files-synced';

export interface SnapshotWriteOptions {
  /** Start a new part file once the current one holds this many bytes. */
  partBytes: number;
  /** Longest run of serialising before yielding to the event loop. */
  sliceMs: number;
  aborted: () => boolean;
  step?: (s: SnapshotStep) => void;
}

export interface SnapshotWriteResult {
  files: string[];
  bytes: number;
  records: number;
  slices: number;
  /** Longest stretch the writer held the event loop. */
  maxSliceMs: number;
}

const CHUNK_CHARS = 1 << 20;
/** fdatasync every so often while writing, so no sync (of this file or the journal) meets a mountain of dirty pages. */
const SYNC_EVERY_BYTES = 32 << 20;

class FileSink {
  private chunks: string[] = [];
  chars = 0;
  bytes = 0;
  crc = 0;
  private unsynced = 0;

  private constructor(readonly fh: FileHandle) {}

  static async create(path: string): Promise<FileSink> {
    return new FileSink(await open(path, 'w', 0o600));
  }

  push(s: string): void {
    this.chunks.push(s);
    this.chars += s.length;
  }

  async drain(): Promise<void> {
    if (this.chunks.length === 0) return;
    const buf = Buffer.from(this.chunks.join(''), 'utf8');
    this.chunks = [];
    this.chars = 0;
    this.crc = crc32(buf, this.crc);
    await writeAll(this.fh, buf);
    this.bytes += buf.length;
    this.unsynced += buf.length;
    if (this.unsynced >= SYNC_EVERY_BYTES) {
      await this.fh.datasync();
      this.unsynced = 0;
    }
  }

  async finish(): Promise<void> {
    await this.drain();
    await this.fh.datasync();
    await this.fh.close();
  }
}

export class SnapshotAborted extends Error {
  override readonly name = 'SnapshotAborted';
}

/**
 * Writes `state.json.tmp` (and part files) for `generation` from live
 * tables, synced, with the directory synced; renaming the temp file into
 * place is the caller's commit step. Records still held as text are copied
 * as they are; records written out are put back to text in a LazyTable
 * (parsed again on their next read), so the next compaction copies them too.
 */
export async function writeSnapshot(
  dir: string,
  header: { generation: number; journalFrom: number },
  tables: [string, Map<string, unknown>][],
  options: SnapshotWriteOptions,
): Promise<SnapshotWriteResult> {
  const result: SnapshotWriteResult = { files: [SNAPSHOT_FILE], bytes: 0, records: 0, slices: 1, maxSliceMs: 0 };
  const root = await FileSink.create(join(dir, SNAPSHOT_TEMP));
  const parts: PartEntry[] = [];
  const openSinks: FileSink[] = [root];
  let sink = root;
  const endPart = async () => {
    sink.push('}}\n');
    await sink.finish();
    openSinks.pop();
    parts.at(-1)!.bytes = sink.bytes;
    parts.at(-1)!.crc32 = hex(sink.crc);
    options.step?.('part-written');
  };
  try {
    let firstTable = true;
    let wroteOnce = false;
    root.push(`{"format":${JSON.stringify(SNAPSHOT_FORMAT)},"version":2,"generation":${header.generation},`
      + `"journal_from":${header.journalFrom},"written_at":${JSON.stringify(new Date().toISOString())},"tables":{\n`);
    let sliceStart = performance.now();
    const pause = async () => {
      result.maxSliceMs = Math.max(result.maxSliceMs, performance.now() - sliceStart);
      await sink.drain();
      if (!wroteOnce) {
        wroteOnce = true;
        options.step?.('writing');
      }
      await yieldToEventLoop();
      if (options.aborted()) throw new SnapshotAborted('snapshot abandoned: the store is closing');
      result.slices += 1;
      sliceStart = performance.now();
    };
    for (const [name, rows] of tables) {
      const lazy = rows instanceof LazyTable ? rows : null;
      const tableOpen = `${JSON.stringify(name)}:{\n`;
      sink.push(`${firstTable ? '' : '},\n'}${tableOpen}`);
      firstTable = false;
      let firstRow = true;
      let count = 0;
      // Records present now and left alone come first in the map's order and are never skipped;
      // what comes after `limit` was put later and is in the journal. Without the bound, a table
      // growing faster than it is written would keep the snapshot from ever ending.
      const limit = rows.size;
      for (const [key, value] of lazy ? lazy.stored() : rows) {
        if (count >= limit) break;
        let text = lazy ? lazy.rawText(value) : null;
        if (text === null) {
          text = JSON.stringify(value) ?? 'null';
          lazy?.dehydrate(key, value, text);
        }
        sink.push(`${firstRow ? '' : ',\n'}${JSON.stringify(key)}:${text}`);
        firstRow = false;
        result.records += 1;
        if (++count % 64 !== 0) continue;
        if (sink.chars >= CHUNK_CHARS || performance.now() - sliceStart >= options.sliceMs) await pause();
        if (sink.bytes + sink.chars >= options.partBytes) {
          // Close this table and the file's tables here; continue the table in a new part file.
          sink.push('\n}\n');
          if (sink === root) {
            root.push('},\n');
            await root.drain();
          } else await endPart();
          const file = partFileName(header.generation, parts.length + 1);
          parts.push({ file, bytes: 0, crc32: '' });
          sink = await FileSink.create(join(dir, file));
          openSinks.push(sink);
          sink.push(`{"generation":${header.generation},"part":${parts.length},"tables":{\n${tableOpen}`);
          firstRow = true;
        }
      }
      sink.push(firstRow ? '' : '\n');
    }
    if (!firstTable) sink.push('}\n');
    if (sink === root) root.push('},\n');
    else await endPart();
    await root.drain();
    const tablesCrc = hex(root.crc);
    root.push(`"tables_crc32":"${tablesCrc}","parts":${JSON.stringify(parts)}}\n`);
    await root.finish();
    openSinks.pop();
    result.maxSliceMs = Math.max(result.maxSliceMs, performance.now() - sliceStart);
    await syncDir(dir);
    options.step?.('files-synced');
    result.files.push(...parts.map((p) => p.file));
    result.bytes = root.bytes + parts.reduce((sum, p) => sum + p.bytes, 0);
    return result;
  } catch (e) {
    for (const s of openSinks) await s.fh.close().catch(() => undefined);
    throw e;
  }
}
