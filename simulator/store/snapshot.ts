/**
 * The snapshot: the whole state as lowdb JSON documents that users can open
 * and read (`new Low(new JSONFile('data/state.json'), ...)`), one record per
 * line, tables keyed by record key:
 *
 *   {"format":"partner-api-simulator/store","version":2,"generation":3,"journal_from":1201,"written_at":"…","tables":{
 *   "brands":{
 *   "1":{"id":1,"name":"Seaside Stays"},
 *   …}},
 *   "parts":["state.000003.1.json"]}
 *
 * A large state continues in part files (`state.<generation>.<i>.json`, each
 * `{"generation","part","tables"}`) so no file nears V8's string limit;
 * `state.json` names them and is renamed into place last, so it is the one
 * commit point of a snapshot.
 *
 * Writing is sliced: records are serialised for at most `sliceMs` before the
 * writer yields to the event loop, so requests keep flowing. The tables are
 * read live while they change (a fuzzy snapshot): loading replays the
 * journal from `journal_from`, whose absolute puts and deletes bring every
 * record changed during the write to its final value.
 */
import { existsSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { JSONFile } from 'lowdb/node';
import { syncDir, writeAll } from './durable-fs.ts';
import { StoreDamagedError } from './errors.ts';

export const SNAPSHOT_FILE = 'state.json';
export const SNAPSHOT_TEMP = 'state.json.tmp';
export const SNAPSHOT_FORMAT = 'partner-api-simulator/store';
export const PART_NAME = /^state\.(\d{6,})\.(\d+)\.json$/;

export function partFileName(generation: number, part: number): string {
  return `state.${String(generation).padStart(6, '0')}.${part}.json`;
}

type Rows = Record<string, unknown>;

/** `state.json`. Version 1 is the document of the first file store (no journal, no parts). */
export interface SnapshotDocument {
  format?: string;
  version: 1 | 2;
  generation?: number;
  /** The first journal transaction not wholly in the snapshot: replay starts there. */
  journal_from?: number;
  written_at?: string;
  tables: Record<string, Rows>;
  parts?: string[];
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
}

function damaged(path: string, why: string): StoreDamagedError {
  return new StoreDamagedError(`${path} is damaged and cannot be loaded (${why}). The store will not start empty over it: `
    + 'restore the file from a backup, or move the data directory away to start afresh.');
}

async function readDocument<T>(path: string): Promise<T> {
  let doc: T | null;
  try {
    doc = await new JSONFile<T>(path).read();
  } catch (e) {
    throw damaged(path, (e as Error).message);
  }
  if (doc === null) throw damaged(path, 'the file is missing');
  return doc;
}

function isRows(v: unknown): v is Rows {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Loads the snapshot into `table(name)` maps; null when there is none. */
export async function readSnapshot(dir: string, table: (name: string) => Map<string, unknown>): Promise<SnapshotInfo | null> {
  const rootPath = join(dir, SNAPSHOT_FILE);
  if (!existsSync(rootPath)) return null;
  const root = await readDocument<SnapshotDocument>(rootPath);
  if (!isRows(root) || !isRows(root.tables) || (root.version !== 1 && root.version !== 2)) {
    throw damaged(rootPath, 'it is not a simulator snapshot: no "version" 1 or 2 with a "tables" object');
  }
  const v2 = root.version === 2;
  if (v2 && (!Number.isInteger(root.generation) || !Number.isInteger(root.journal_from) || !Array.isArray(root.parts))) {
    throw damaged(rootPath, 'a version 2 snapshot needs "generation", "journal_from" and "parts"');
  }
  const info: SnapshotInfo = {
    version: root.version, generation: root.generation ?? 0, journalFrom: v2 ? root.journal_from! : null,
    files: [SNAPSHOT_FILE], bytes: statSync(rootPath).size, records: 0,
  };
  const load = (path: string, tables: Record<string, unknown>) => {
    for (const [name, rows] of Object.entries(tables)) {
      if (!isRows(rows)) throw damaged(path, `table "${name}" is not an object of records`);
      const map = table(name);
      for (const key in rows) map.set(key, rows[key]);
      info.records += Object.keys(rows).length;
    }
  };
  load(rootPath, root.tables);
  for (const [i, name] of (root.parts ?? []).entries()) {
    const m = typeof name === 'string' ? PART_NAME.exec(name) : null;
    if (!m || Number(m[1]) !== info.generation) throw damaged(rootPath, `"parts" names ${JSON.stringify(name)}, not a part of generation ${info.generation}`);
    const path = join(dir, name);
    if (!existsSync(path)) throw damaged(rootPath, `its part ${name} is missing`);
    const part = await readDocument<PartDocument>(path);
    if (!isRows(part) || part.generation !== info.generation || part.part !== i + 1 || !isRows(part.tables)) {
      throw damaged(path, `it is not part ${i + 1} of snapshot generation ${info.generation}`);
    }
    load(path, part.tables);
    info.files.push(name);
    info.bytes += statSync(path).size;
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
/** fdatasync every so often while writing, so the final sync (and other files' syncs) never meet a mountain of dirty pages. */
const SYNC_EVERY_BYTES = 32 << 20;

class FileSink {
  private chunks: string[] = [];
  chars = 0;
  bytes = 0;
  private unsynced = 0;

  private constructor(readonly fh: FileHandle) {}

  static async create(path: string): Promise<FileSink> {
    return new FileSink(await open(path, 'w', 0o644));
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
 * place is the caller's commit step.
 */
export async function writeSnapshot(
  dir: string,
  header: { generation: number; journalFrom: number },
  tables: [string, Map<string, unknown>][],
  options: SnapshotWriteOptions,
): Promise<SnapshotWriteResult> {
  const result: SnapshotWriteResult = { files: [SNAPSHOT_FILE], bytes: 0, records: 0, slices: 1, maxSliceMs: 0 };
  const root = await FileSink.create(join(dir, SNAPSHOT_TEMP));
  const parts: string[] = [];
  const openSinks: FileSink[] = [root];
  try {
    let sink = root;
    let firstTable = true;
    let firstRow = true;
    let wroteOnce = false;
    root.push(`{"format":${JSON.stringify(SNAPSHOT_FORMAT)},"version":2,"generation":${header.generation},`
      + `"journal_from":${header.journalFrom},"written_at":${JSON.stringify(new Date().toISOString())},"tables":{`);
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
      sink.push(`${firstTable ? '' : ','}\n${JSON.stringify(name)}:{`);
      firstTable = false;
      firstRow = true;
      let count = 0;
      for (const [key, value] of rows) {
        sink.push(`${firstRow ? '' : ','}\n${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`);
        firstRow = false;
        result.records += 1;
        if (++count % 64 !== 0) continue;
        if (sink.chars >= CHUNK_CHARS || performance.now() - sliceStart >= options.sliceMs) await pause();
        if (sink.bytes + sink.chars >= options.partBytes) {
          // Continue this table in a new part file.
          sink.push('}}');
          if (sink === root) await root.drain();
          else {
            sink.push('}\n');
            await sink.finish();
            openSinks.pop();
            options.step?.('part-written');
          }
          const name_ = partFileName(header.generation, parts.length + 1);
          parts.push(name_);
          sink = await FileSink.create(join(dir, name_));
          openSinks.push(sink);
          sink.push(`{"generation":${header.generation},"part":${parts.length},"tables":{\n${JSON.stringify(name)}:{`);
          firstRow = true;
        }
      }
      sink.push('}');
    }
    sink.push('}');
    if (sink !== root) {
      sink.push('}\n');
      await sink.finish();
      openSinks.pop();
      options.step?.('part-written');
    }
    root.push(`,\n"parts":${JSON.stringify(parts)}}\n`);
    await root.finish();
    openSinks.pop();
    result.maxSliceMs = Math.max(result.maxSliceMs, performance.now() - sliceStart);
    await syncDir(dir);
    options.step?.('files-synced');
    result.files.push(...parts);
    result.bytes = root.bytes;
    for (const p of parts) result.bytes += statSync(join(dir, p)).size;
    return result;
  } catch (e) {
    for (const s of openSinks) await s.fh.close().catch(() => undefined);
    throw e;
  }
}
