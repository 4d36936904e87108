/**
 * The snapshot's own rules (snapshot.ts's header, docs/simulator.md on
 * `state.json`): what is written loads back exactly, scanned (every record
 * held as its bytes until read) when the file is laid out as written and its
 * CRC-32 matches, parsed whole by lowdb otherwise; damage is refused naming
 * the file and why; a large state continues in part files; the counts
 * reported are the files'; writing is sliced and always ends. The file
 * store's own drills (file-store.test.ts) go through compaction and restart;
 * these call the writer and the reader directly, on files laid out by hand
 * where the rule is about a layout.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { crc32 } from 'node:zlib';
import { JSONFile } from 'lowdb/node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreDamagedError } from './errors.ts';
import { LazyTable, RawTexts } from './lazy-table.ts';
import { readSnapshot, SnapshotAborted, writeSnapshot, type SnapshotInfo, type SnapshotStep, type SnapshotWriteOptions, type SnapshotWriteResult } from './snapshot.ts';
import { openFilesUnder, tempDirs } from './test-support.ts';

const tempDir = tempDirs('snapshot-test-');

/** The CRC-32 as the file records it: eight lower-case hex digits. */
const hex = (b: Buffer | string) => crc32(b).toString(16).padStart(8, '0');

type Tables = Record<string, Record<string, unknown>>;

interface Loaded {
  info: SnapshotInfo | null;
  tables: Map<string, LazyTable>;
}

/** readSnapshot into LazyTables sharing one RawTexts, as the file store loads. */
async function load(dir: string): Promise<Loaded> {
  const texts = new RawTexts();
  const tables = new Map<string, LazyTable>();
  const info = await readSnapshot(dir, (name) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = new LazyTable(texts)));
    return t;
  });
  return { info, tables };
}

/** Every record of every table as an object (each read once). */
function plain(tables: Map<string, LazyTable>): Tables {
  return Object.fromEntries([...tables].map(([name, t]) => [name, Object.fromEntries(t.entries())]));
}

/** Records not read yet that are held as text (a range of the file), not as parsed objects. */
function heldAsText(tables: Map<string, LazyTable>): boolean[] {
  return [...tables.values()].flatMap((t) => [...t.stored()].map(([, v]) => t.rawText(v) !== null));
}

const asMaps = (tables: Tables): [string, Map<string, unknown>][] => Object.entries(tables).map(([n, rows]) => [n, new Map(Object.entries(rows))]);

const BASE: SnapshotWriteOptions = { partBytes: Number.POSITIVE_INFINITY, sliceMs: Number.POSITIVE_INFINITY, aborted: () => false };

/** Writes `tables` as snapshot `generation` and commits it (renames state.json.tmp into place, as the file store does). */
async function write(dir: string, tables: Tables | [string, Map<string, unknown>][], options: Partial<SnapshotWriteOptions> = {}, generation = 1): Promise<SnapshotWriteResult> {
  const result = await writeSnapshot(dir, { generation, journalFrom: 41 }, Array.isArray(tables) ? tables : asMaps(tables), { ...BASE, ...options });
  renameSync(join(dir, 'state.json.tmp'), join(dir, 'state.json'));
  return result;
}

/** `count` bookings-like records keyed 1..count, each `pad` characters of notes. */
function records(count: number, pad = 40, from = 1): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [String(from + i), { id: from + i, status: 'confirmed', notes: 'n'.repeat(pad) }]));
}

const size = (dir: string, file: string) => statSync(join(dir, file)).size;

interface RootDoc {
  format: string;
  version: number;
  generation: number;
  journal_from: number;
  tables_crc32: string;
  parts: { file: string; bytes: number; crc32: string | null }[];
}

const rootDoc = (dir: string) => JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as RootDoc;

/** Rewrites the "parts" of state.json (its trailer line: the tables' checksum does not cover it). */
function setParts(dir: string, change: (parts: Record<string, unknown>[]) => unknown[]): void {
  const path = join(dir, 'state.json');
  const text = readFileSync(path, 'utf8');
  const at = text.lastIndexOf('\n', text.length - 2) + 1;
  const trailer = JSON.parse(`{${text.slice(at)}`) as { tables_crc32: string; parts: Record<string, unknown>[] };
  writeFileSync(path, `${text.slice(0, at)}"tables_crc32":"${trailer.tables_crc32}","parts":${JSON.stringify(change(trailer.parts))}}\n`);
}

async function refusal(dir: string): Promise<StoreDamagedError> {
  const e = await load(dir).then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(StoreDamagedError);
  return e as StoreDamagedError;
}

describe('snapshot: what is written loads back exactly, scanned, not parsed', () => {
  it('tables of any keys (quotes, backslashes, control characters, a colon, other scripts) load back exactly, each record held as its bytes until read', async () => {
    const dir = tempDir();
    const tables: Tables = {
      brands: { '1': { id: 1, name: 'Seaside Stays' }, '2': { id: 2, name: 'Zürich ☀ Retreats' } },
      keys: { 'a"b': { k: 1 }, 'c\\d': { k: 2 }, 'e\u0001f': { k: 3 }, ':x': { k: 4 }, 'é': { k: 5 }, '': { k: 6 } },
      empty: {},
      events: records(150),
    };
    const result = await write(dir, tables);
    expect(result.files).toEqual(['state.json']); // no part file below partBytes, however many records
    expect(result.records).toBe(158);
    expect(result.bytes).toBe(size(dir, 'state.json'));
    expect(openFilesUnder(dir), 'the writer lets go of its files').toEqual([]);

    const { info, tables: loaded } = await load(dir);
    expect(info).toEqual({ version: 2, generation: 1, journalFrom: 41, files: ['state.json'], bytes: size(dir, 'state.json'), records: 158, parsedWhole: [] });
    expect(openFilesUnder(dir), 'the reader lets go of its files').toEqual([]);
    expect(heldAsText(loaded)).toHaveLength(158);
    expect(heldAsText(loaded).every(Boolean), 'a restart is a scan: no record parsed before it is read').toBe(true);
    expect(plain(loaded)).toEqual(tables);
    expect([...loaded.keys()]).toEqual(['brands', 'keys', 'empty', 'events']);
    expect([...loaded.get('keys')!.keys()]).toEqual(Object.keys(tables.keys!));
  });

  it('is a lowdb document users can open: format, version 2, generation, journal_from and the tables as written', async () => {
    const dir = tempDir();
    const tables: Tables = { brands: { '1': { id: 1 } }, events: records(3) };
    await write(dir, tables, {}, 7);
    const doc = (await new JSONFile<RootDoc & { tables: Tables }>(join(dir, 'state.json')).read())!;
    expect(doc).toMatchObject({ format: 'partner-api-simulator/store', version: 2, generation: 7, journal_from: 41, tables, parts: [] });
    expect(doc.tables_crc32).toMatch(/^[0-9a-f]{8}$/);
  });

  it('a snapshot of no tables loads back as none', async () => {
    const dir = tempDir();
    expect((await write(dir, {})).records).toBe(0);
    JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    const { info, tables } = await load(dir);
    expect(info).toMatchObject({ records: 0, parsedWhole: [] });
    expect(tables.size).toBe(0);
  });

  it('a value JSON cannot hold is written as null: the file stays JSON', async () => {
    const dir = tempDir();
    await write(dir, [['t', new Map<string, unknown>([['a', undefined], ['b', { x: 1 }]])]]);
    expect(plain((await load(dir)).tables)).toEqual({ t: { a: null, b: { x: 1 } } });
  });
});

describe('snapshot parts: a large state continues in part files, each checked by its CRC-32', () => {
  it('each part records its bytes and its CRC-32 (eight hex digits, padded); the counts reported are the files\'; all parts load back scanned', async () => {
    const dir = tempDir();
    const tables: Tables = { bookings: records(900, 30), events: records(400, 11) };
    const steps: SnapshotStep[] = [];
    const result = await write(dir, tables, { partBytes: 4 * 1024, sliceMs: 0, step: (s) => steps.push(s) });
    const parts = rootDoc(dir).parts;
    expect(parts.length).toBeGreaterThan(10);
    expect(result.files).toEqual(['state.json', ...parts.map((p) => p.file)]);
    expect(parts.map((p) => p.file)).toEqual(parts.map((_, i) => `state.000001.${i + 1}.json`));
    for (const p of parts) expect(p).toEqual({ file: p.file, bytes: size(dir, p.file), crc32: hex(readFileSync(join(dir, p.file))) });
    expect(parts.some((p) => p.crc32!.startsWith('0')), 'a CRC-32 below 0x10000000 is here, written with its leading zero').toBe(true);
    const total = result.files.reduce((sum, f) => sum + size(dir, f), 0);
    expect(result.bytes).toBe(total);
    expect(result.records).toBe(1300);
    expect(steps, 'writing once, then each part as it is written, then the files synced').toEqual(['writing', ...parts.map(() => 'part-written'), 'files-synced']);

    const { info, tables: loaded } = await load(dir);
    expect(info).toEqual({ version: 2, generation: 1, journalFrom: 41, files: result.files, bytes: total, records: 1300, parsedWhole: [] });
    expect(heldAsText(loaded).every(Boolean)).toBe(true);
    expect(plain(loaded)).toEqual(tables);
    expect([...loaded.get('bookings')!.keys()]).toEqual(Object.keys(tables.bookings!));
  });

  it('writes parts, slices and all without a step hook', async () => {
    const dir = tempDir();
    const result = await write(dir, { bookings: records(300) }, { partBytes: 2 * 1024, sliceMs: 0 });
    expect(result.files.length).toBeGreaterThan(2);
    expect(plain((await load(dir)).tables)).toEqual({ bookings: records(300) });
  });

  it('a file ends at the first check (every 64 records) at or past partBytes', async () => {
    const dir = tempDir();
    const tables: Tables = { bookings: records(200, 20) };
    await write(dir, tables);
    const text = readFileSync(join(dir, 'state.json'), 'latin1');
    // The bytes up to the end of the 64th record: the root holds exactly that much when the writer first checks.
    const at64 = text.indexOf('\n"65":') - 1;
    expect(text.slice(at64 - 2, at64 + 2)).toBe('"},\n');
    await write(dir, tables, { partBytes: at64 });
    const doc = rootDoc(dir) as RootDoc & { tables: Tables };
    expect(Object.keys(doc.tables.bookings!)).toEqual(Object.keys(records(64)));
    expect(readFileSync(join(dir, doc.parts[0]!.file), 'latin1')).toMatch(/^\{"generation":1,"part":1,"tables":\{\n"bookings":\{\n"65":/);
    expect(plain((await load(dir)).tables)).toEqual(tables);
  });

  it('a part laid out as written but for its final newline is still scanned', async () => {
    const dir = tempDir();
    const tables: Tables = { bookings: records(200) };
    await write(dir, tables, { partBytes: 4 * 1024 });
    const last = rootDoc(dir).parts.at(-1)!.file;
    const bytes = readFileSync(join(dir, last));
    const cut = bytes.subarray(0, bytes.length - 1);
    writeFileSync(join(dir, last), cut);
    setParts(dir, (parts) => parts.map((p) => (p.file === last ? { ...p, bytes: cut.length, crc32: hex(cut) } : p)));
    const { info, tables: loaded } = await load(dir);
    expect(info!.parsedWhole).toEqual([]);
    expect(heldAsText(loaded).every(Boolean)).toBe(true);
    expect(plain(loaded)).toEqual(tables);
  });
});

describe('snapshot writing: sliced, bounded, and it always ends', () => {
  let clock = 0;
  afterEach(() => {
    vi.restoreAllMocks();
  });
  /** performance.now on a clock only records move: each record takes 1 ms to serialise. */
  function virtualClock(): void {
    clock = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
  }
  const slow = (n: number, pad = 8): [string, Map<string, unknown>][] => [['bookings', new Map(Array.from({ length: n }, (_, i) => [String(i + 1), {
    toJSON: () => {
      clock += 1;
      return { id: i + 1, notes: 'n'.repeat(pad) };
    },
  }]))]];

  it('serialises for at most sliceMs between yields: a slice ends at the first check (every 64 records) at or past it; the longest is reported', async () => {
    virtualClock();
    const dir = tempDir();
    const result = await write(dir, slow(640), { sliceMs: 128 });
    // Yields after records 128, 256, 384, 512 and 640 (each 128 ms on this clock), then the tail (0 ms).
    expect(result.slices).toBe(6);
    expect(result.maxSliceMs).toBe(128);
    expect(result.records).toBe(640);
    expect(Object.keys(plain((await load(dir)).tables).bookings!)).toHaveLength(640);
  });

  it('the last slice counts in the longest reported', async () => {
    virtualClock();
    const dir = tempDir();
    const result = await write(dir, slow(100), { sliceMs: 1000 });
    expect(result.slices).toBe(1);
    expect(result.maxSliceMs).toBe(100);
  });

  it('a slice also ends once a MiB of text waits to be written, however long sliceMs', async () => {
    vi.spyOn(performance, 'now').mockReturnValue(1000);
    const dir = tempDir();
    const header = `{"format":"partner-api-simulator/store","version":2,"generation":1,"journal_from":41,"written_at":"${new Date().toISOString()}","tables":{\n"t":{\n`;
    // 64 records of `"NN":{"s":"xxx…"}` joined by ",\n": exactly 1 MiB with the header when the writer first checks; 36 more after.
    const per = Math.floor((2 ** 20 - header.length - 63 * 2) / 64);
    const rest = 2 ** 20 - header.length - 63 * 2 - per * 64;
    const rows = new Map(Array.from({ length: 100 }, (_, i) => [String(10 + i), { s: 'x'.repeat(per - 13 + (i === 0 ? rest : 0)) }]));
    const result = await write(dir, [['t', rows]]);
    expect(readFileSync(join(dir, 'state.json'), 'latin1').indexOf(',\n"74":')).toBe(2 ** 20);
    expect(result.slices).toBe(2);
    expect(plain((await load(dir)).tables).t).toEqual(Object.fromEntries(rows));
  });

  it('a table that grows while it is written is written up to the records it held when its turn came: the snapshot ends', async () => {
    const dir = tempDir();
    const rows = new Map(Object.entries(records(200)));
    let added = 0;
    // Every yield lets 100 more records in, faster than the writer's 64 a slice.
    const grow = () => {
      for (let i = 0; i < 100; i++) rows.set(String(1000 + added++), { id: 1000 + added });
      return false;
    };
    const result = await write(dir, [['bookings', rows]], { sliceMs: 0, aborted: grow });
    expect(added).toBeGreaterThan(0);
    expect(result.records).toBe(200);
    expect(Object.keys(plain((await load(dir)).tables).bookings!)).toEqual(Object.keys(records(200)));
  });

  it('syncs the data as it goes: each file at its end, and once 32 MiB wait unsynced (no sync meets a mountain of dirty pages)', async () => {
    const dir = tempDir();
    const probe = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const real = proto.datasync;
    /** The size of each file when it was synced, in order. */
    const synced: number[] = [];
    vi.spyOn(proto, 'datasync').mockImplementation(async function (this: FileHandle) {
      synced.push((await this.stat()).size);
      return real.call(this);
    });

    await write(dir, { bookings: records(300) }, { partBytes: 8 * 1024, sliceMs: 0 });
    const parts = rootDoc(dir).parts;
    expect(parts.length).toBeGreaterThan(1);
    expect(synced, 'each part once it is whole, then state.json').toEqual([...parts.map((p) => p.bytes), size(dir, 'state.json')]);

    synced.length = 0;
    const big = new Map(Array.from({ length: 34 }, (_, i) => [String(i + 1), { s: 'x'.repeat(2 ** 20) }]));
    await write(dir, [['t', big]]);
    expect(synced).toHaveLength(2);
    expect(synced[0]).toBeGreaterThanOrEqual(32 * 2 ** 20);
    expect(synced[1]).toBe(size(dir, 'state.json'));
  });

  it.each([
    ['before any part', Number.POSITIVE_INFINITY],
    ['with a part open', 2 * 1024],
  ])('an abandoned write (%s) throws SnapshotAborted and lets go of every file it opened', async (_name, partBytes) => {
    const dir = tempDir();
    let pauses = 0;
    const written = writeSnapshot(dir, { generation: 1, journalFrom: 1 }, asMaps({ bookings: records(500) }), { ...BASE, partBytes, sliceMs: 0, aborted: () => ++pauses > 3 });
    await expect(written).rejects.toBeInstanceOf(SnapshotAborted);
    await expect(written).rejects.toThrow(/snapshot abandoned: the store is closing/);
    expect(openFilesUnder(dir)).toEqual([]);
  });
});

describe('snapshot loading: a file not laid out as written is parsed whole, and loads what it holds', () => {
  const HEAD = '{"format":"partner-api-simulator/store","version":2,"generation":1,"journal_from":1,"tables":{\n';
  const CANONICAL = `${HEAD}"t":{\n"a":{"x":1},\n"b":{"x":2}\n},\n"u":{\n"c":{"x":3}\n}\n},\n`;
  const DATA = { t: { a: { x: 1 }, b: { x: 2 } }, u: { c: { x: 3 } } };
  /** state.json of `body` (up to and with the line that closes "tables") and a trailer that records its true CRC-32. */
  const withCrc = (body: string) => `${body}"tables_crc32":"${hex(body)}","parts":[]}\n`;

  it('the canonical layout, by hand, is scanned', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), withCrc(CANONICAL));
    const { info, tables } = await load(dir);
    expect(info!.parsedWhole).toEqual([]);
    expect(info!.records).toBe(3);
    expect(plain(tables)).toEqual(DATA);
  });

  it.each([
    ['a space in the header line\'s "tables": {', CANONICAL.replace('"tables":{', '"tables": {'), DATA],
    ['a header line that holds a table, and a member after "tables"', `${HEAD.replace('"tables":{\n', '"tables":{"t":{"a":{"x":1}}},"extra":{\n')}"u":{\n"c":{"x":3}\n}\n},\n`, { t: { a: { x: 1 } } }],
    ['a table on one line', `${HEAD}"t":{"a":{"x":1},"b":{"x":2}},\n"u":{\n"c":{"x":3}\n}\n},\n`, DATA],
    ['an indented table line', CANONICAL.replace('"u":{', ' "u":{'), DATA],
    ['a table closed on the line that opens the next', `${HEAD}"t":{\n"a":{"x":1},\n"b":{"x":2}\n},"u":{"c":{"x":3}}\n},\n`, DATA],
    ['a space after a table\'s closing brace', `${HEAD}"t":{\n"a":{"x":1},\n"b":{"x":2}\n},\n"u":{\n"c":{"x":3}\n} \n},\n`, DATA],
    ['a space after a table\'s closing brace and comma', `${HEAD}"t":{\n"a":{"x":1},\n"b":{"x":2}\n}, \n"u":{\n"c":{"x":3}\n}\n},\n`, DATA],
    ['a space before a record\'s colon', CANONICAL.replace('"a":', '"a" :'), DATA],
    ['an indented record whose key begins with a colon', CANONICAL.replace('"a":{"x":1},\n', '"a":{"x":1},\n ":k":{"x":9},\n'), { ...DATA, t: { a: { x: 1 }, ':k': { x: 9 }, b: { x: 2 } } }],
    ['a member between "tables" and the trailer', `${CANONICAL}"note":"edited",\n`, DATA],
  ])('%s', async (_name, body, data) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), withCrc(body));
    const { info, tables } = await load(dir);
    expect(plain(tables)).toEqual(data);
    expect(info!.parsedWhole).toEqual(['state.json']);
    expect(info!.records).toBe(Object.values(data).reduce((n, rows) => n + Object.keys(rows).length, 0));
  });

  it('a file with no CRC-32 (version 1) is parsed whole: loaded if JSON', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ version: 1, tables: DATA }, null, 2));
    const { info, tables } = await load(dir);
    expect(info).toEqual({ version: 1, generation: 0, journalFrom: null, files: ['state.json'], bytes: size(dir, 'state.json'), records: 3, parsedWhole: ['state.json'] });
    expect(plain(tables)).toEqual(DATA);
  });

  it('a part laid out otherwise, its true CRC-32 recorded, is parsed whole', async () => {
    const dir = tempDir();
    await write(dir, { bookings: records(200) }, { partBytes: 4 * 1024 });
    const part = join(dir, 'state.000001.1.json');
    const pretty = JSON.stringify(JSON.parse(readFileSync(part, 'utf8')), null, 2);
    writeFileSync(part, pretty);
    setParts(dir, (parts) => parts.map((p, i) => (i === 0 ? { ...p, crc32: hex(pretty) } : p)));
    const { info, tables } = await load(dir);
    expect(info!.parsedWhole).toEqual(['state.000001.1.json']);
    expect(info!.records).toBe(200);
    expect(plain(tables)).toEqual({ bookings: records(200) });
  });

  it('a part with anything after its closing line, its true CRC-32 recorded, is parsed whole: refused when that is not JSON', async () => {
    const dir = tempDir();
    await write(dir, { bookings: records(200) }, { partBytes: 4 * 1024 });
    const part = join(dir, 'state.000001.1.json');
    const extended = Buffer.concat([readFileSync(part), Buffer.from('{"more":1}\n')]);
    writeFileSync(part, extended);
    setParts(dir, (parts) => parts.map((p, i) => (i === 0 ? { ...p, crc32: hex(extended) } : p)));
    expect((await refusal(dir)).message).toMatch(/state\.000001\.1\.json is damaged and cannot be loaded/);
  });
});

describe('snapshot loading: damage is refused, naming the file and why', () => {
  const V2 = { format: 'partner-api-simulator/store', version: 2, generation: 1, journal_from: 1 };

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'rows'],
    ['a number', 7],
  ])('a table that is %s is not an object of records', async (_name, rows) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ version: 1, tables: { brands: { '1': { id: 1 } }, bookings: rows } }));
    const e = await refusal(dir);
    expect(e.message).toMatch(/state\.json is damaged and cannot be loaded \(table "bookings" is not an object of records\)/);
    expect(e.message).toMatch(/will not start empty over it: restore the file from a backup, or move the data directory away to start afresh/);
  });

  it.each([
    ['no JSON object: a number', '42', /holds no JSON object/],
    ['no JSON object: a string', '"state"', /holds no JSON object/],
    ['an array', '[]', /not a simulator snapshot/],
    ['version 2 without tables', JSON.stringify({ ...V2, parts: [] }), /not a simulator snapshot: no "version" 1 or 2 with a "tables" object/],
    ['tables that are an array', JSON.stringify({ ...V2, tables: [], parts: [] }), /not a simulator snapshot/],
    ['version 3', JSON.stringify({ ...V2, version: 3, tables: {}, parts: [] }), /not a simulator snapshot/],
    ['version 2 without generation', JSON.stringify({ ...V2, generation: undefined, tables: {}, parts: [] }), /a version 2 snapshot needs "generation", "journal_from" and "parts"/],
    ['version 2 with a generation that is no integer', JSON.stringify({ ...V2, generation: '1', tables: {}, parts: [] }), /needs "generation"/],
    ['version 2 without journal_from', JSON.stringify({ ...V2, journal_from: undefined, tables: {}, parts: [] }), /needs "generation", "journal_from"/],
    ['version 2 without parts', JSON.stringify({ ...V2, tables: {} }), /needs "generation", "journal_from" and "parts"/],
  ])('state.json that holds %s', async (_name, text, why) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), text);
    const e = await refusal(dir);
    expect(e.message).toMatch(/^\S*state\.json is damaged and cannot be loaded/);
    expect(e.message).toMatch(why);
  });

  it('state.json that is not JSON: the parser\'s reason is named', async () => {
    const dir = tempDir();
    const text = '{"version":2,"tables":{"book';
    writeFileSync(join(dir, 'state.json'), text);
    let reason = '';
    try {
      JSON.parse(text);
    } catch (e) {
      reason = (e as Error).message;
    }
    expect((await refusal(dir)).message).toContain(`(${reason})`);
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('a flipped byte in state.json that leaves it JSON: the recorded and the computed checksums are named', async () => {
    const dir = tempDir();
    await write(dir, { bookings: records(3) });
    const path = join(dir, 'state.json');
    const recorded = rootDoc(dir).tables_crc32;
    const text = readFileSync(path, 'utf8').replace('"id":2', '"id":7');
    writeFileSync(path, text);
    const computed = hex(text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
    const e = await refusal(dir);
    expect(e.message).toContain(`state.json is damaged and cannot be loaded (its checksum does not match: "tables_crc32" is "${recorded}", its tables hash to "${computed}")`);
    expect(e.message).toMatch(/delete its "tables_crc32" member to load it unchecked/);
  });

  describe('parts', () => {
    async function withParts(): Promise<string> {
      const dir = tempDir();
      await write(dir, { bookings: records(200) }, { partBytes: 4 * 1024 });
      expect(rootDoc(dir).parts.length).toBeGreaterThan(2);
      return dir;
    }

    it('a part with a flipped byte, laid out as written: refused naming both checksums; loaded through lowdb, as edited, once its crc32 is null or gone', async () => {
      const dir = await withParts();
      const path = join(dir, 'state.000001.1.json');
      const recorded = rootDoc(dir).parts[0]!.crc32;
      const text = readFileSync(path, 'utf8');
      const key = /\n"(\d+)":/.exec(text)![1]!;
      writeFileSync(path, text.replace(`"id":${key},`, `"id":${Number(key) + 1000},`));
      const e = await refusal(dir);
      expect(e.message).toContain(`state.000001.1.json is damaged and cannot be loaded (its checksum does not match: state.json records CRC-32 "${recorded}", the file hashes to "${hex(readFileSync(path))}")`);
      expect(e.message).toMatch(/set its "crc32" in the "parts" of state\.json to null to load it unchecked/);

      for (const unchecked of [{ crc32: null }, { crc32: undefined }]) {
        setParts(dir, (parts) => parts.map((p, i) => (i === 0 ? { ...p, ...unchecked } : p)));
        const { info, tables } = await load(dir);
        expect(info!.parsedWhole).toEqual(['state.000001.1.json']);
        expect(info!.records).toBe(200);
        expect((tables.get('bookings')!.get(key) as { id: number }).id).toBe(Number(key) + 1000);
      }
    });

    it.each([
      ['null', () => null],
      ['a name alone', () => 'state.000001.1.json'],
      ['a file that is no string', () => ({ file: 7 })],
      ['a file that is an array', () => ({ file: ['state.000001.1.json'] })],
      ['a part of another generation', () => ({ file: 'state.000002.1.json', bytes: 0, crc32: null })],
      ['a part in another directory', () => ({ file: 'sub/state.000001.1.json', bytes: 0, crc32: null })],
      ['a part name with more after it', () => ({ file: 'state.000001.1.json.bak', bytes: 0, crc32: null })],
    ])('state.json whose "parts" names %s', async (_name, entry) => {
      const dir = await withParts();
      // Each named file is there, a whole part of its own generation.
      writeFileSync(join(dir, 'state.000002.1.json'), '{"generation":2,"part":1,"tables":{"bookings":{"9999":{"id":9999}}}}');
      writeFileSync(join(dir, 'state.000001.1.json.bak'), '{"generation":1,"part":1,"tables":{"bookings":{"9999":{"id":9999}}}}');
      setParts(dir, (parts) => [entry(), ...parts.slice(1)]);
      const e = await refusal(dir);
      expect(e.message).toContain(`state.json is damaged and cannot be loaded ("parts" names ${JSON.stringify(entry())}, not a part of generation 1)`);
    });

    it('parts listed out of order, each with its own CRC-32: refused, the first is not part 1', async () => {
      const dir = await withParts();
      setParts(dir, ([first, second, ...rest]) => [second, first, ...rest]);
      expect((await refusal(dir)).message).toContain('state.000001.2.json is damaged and cannot be loaded (it is not part 1 of snapshot generation 1)');
    });

    it('a part of another generation under this generation\'s name, its CRC-32 recorded: refused', async () => {
      const dir = await withParts();
      const part = readFileSync(join(dir, 'state.000001.1.json'));
      // Snapshot 2 of the same tables, whose part 1 is a copy of snapshot 1's.
      const root = readFileSync(join(dir, 'state.json'), 'utf8').replace('"generation":1,', '"generation":2,');
      const body = root.slice(0, root.lastIndexOf('\n', root.length - 2) + 1);
      writeFileSync(join(dir, 'state.json'), `${body}"tables_crc32":"${hex(body)}","parts":[{"file":"state.000002.1.json","bytes":${part.length},"crc32":"${hex(part)}"}]}\n`);
      writeFileSync(join(dir, 'state.000002.1.json'), part);
      expect((await refusal(dir)).message).toContain('state.000002.1.json is damaged and cannot be loaded (it is not part 1 of snapshot generation 2)');
    });

    it.each([
      ['tables that are no object', '{"generation":1,"part":1,"tables":[]}', 'it is not part 1 of snapshot generation 1'],
      ['no tables', '{"generation":1,"part":1}', 'it is not part 1 of snapshot generation 1'],
      ['another part number', '{"generation":1,"part":2,"tables":{}}', 'it is not part 1 of snapshot generation 1'],
      ['another generation', '{"generation":3,"part":1,"tables":{}}', 'it is not part 1 of snapshot generation 1'],
      ['a table that is no object of records', '{"generation":1,"part":1,"tables":{"bookings":[1]}}', 'table "bookings" is not an object of records'],
      ['no JSON object', '42', 'it holds no JSON object'],
    ])('an unchecked part (crc32 null) that holds %s', async (_name, text, why) => {
      const dir = await withParts();
      writeFileSync(join(dir, 'state.000001.1.json'), text);
      setParts(dir, (parts) => parts.map((p, i) => (i === 0 ? { ...p, crc32: null } : p)));
      const e = await refusal(dir);
      expect(e.message).toContain(`state.000001.1.json is damaged and cannot be loaded (${why})`);
      expect(e.message).toMatch(/restore the file from a backup/);
    });
  });
});
