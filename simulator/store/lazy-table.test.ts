/**
 * The lazy table (lazy-table.ts): what a restart loads stays JSON text, or a
 * range of a loaded file's bytes, until first read; every read sees the
 * record as it was written, and the table keeps its order and its texts.
 */
import { describe, expect, it } from 'vitest';
import { LazyTable, RawTexts } from './lazy-table.ts';

const record = (id: number, name = `guest ${id}`) => ({ id, name });
/** A file of records, one JSON text per line, and where each lies in it. */
function file(records: object[]): { buf: Buffer; ranges: [number, number][] } {
  const ranges: [number, number][] = [];
  let text = '';
  for (const r of records) {
    const json = JSON.stringify(r);
    const start = Buffer.byteLength(text);
    ranges.push([start, start + Buffer.byteLength(json)]);
    text += `${json}\n`;
  }
  return { buf: Buffer.from(text, 'utf8'), ranges };
}

describe('LazyTable: records loaded as text read as the records written', () => {
  it('a record held as JSON text or as a range of a file reads as the object, at every way of reading, in the order loaded', () => {
    const { buf, ranges } = file([record(1), record(2)]);
    const table = new LazyTable();
    const text = table.texts.add(buf, true);
    table.setRef('1', text, ...ranges[0]!);
    table.set('3', JSON.stringify(record(3)));
    table.setRef('2', text, ...ranges[1]!);
    table.set('4', record(4));
    const all = [['1', record(1)], ['3', record(3)], ['2', record(2)], ['4', record(4)]];
    expect([...table.entries()]).toEqual(all);
    expect([...table]).toEqual(all);
    expect([...table.values()]).toEqual(all.map(([, v]) => v));
    const seen: unknown[] = [];
    const self = {};
    table.forEach(function (this: unknown, v, k, map) { seen.push([k, v, this, map]); }, self);
    expect(seen).toEqual(all.map(([k, v]) => [k, v, self, table]));
    expect(table.get('2')).toEqual(record(2));
    expect(table.get('5')).toBeUndefined();
  });

  it('each way of reading parses a record not read before', () => {
    const texts = () => { const t = new LazyTable(); t.set('1', JSON.stringify(record(1))); return t; };
    expect(texts().get('1')).toEqual(record(1));
    expect([...texts().values()]).toEqual([record(1)]);
    expect([...texts().entries()]).toEqual([['1', record(1)]]);
    expect([...texts()]).toEqual([['1', record(1)]]);
  });

  it('a record is parsed once: later reads see the same object, held in place of its text', () => {
    const table = new LazyTable();
    table.set('1', JSON.stringify(record(1)));
    table.set('2', JSON.stringify(record(2)));
    const first = table.get('1');
    expect(table.get('1')).toBe(first);
    expect([...table.stored()]).toEqual([['1', record(1)], ['2', JSON.stringify(record(2))]]);
    const [, second] = [...table.values()];
    expect(table.get('2')).toBe(second);
    expect([...table.keys()]).toEqual(['1', '2']);
  });

  it('a file of other scripts is read as UTF-8; an ASCII one byte for byte', () => {
    const names = { buf: file([record(1, 'Āsha Rao 🏝'), record(2, 'ਅਮਨ')]), ascii: file([record(3), record(4)]) };
    const table = new LazyTable();
    const utf8 = table.texts.add(names.buf.buf, false);
    const ascii = table.texts.add(names.ascii.buf, true);
    table.setRef('2', utf8, ...names.buf.ranges[1]!);
    table.setRef('1', utf8, ...names.buf.ranges[0]!);
    table.setRef('4', ascii, ...names.ascii.ranges[1]!);
    expect(table.get('1')).toEqual(record(1, 'Āsha Rao 🏝'));
    expect(table.get('2')).toEqual(record(2, 'ਅਮਨ'));
    expect(table.get('4')).toEqual(record(4));
    expect(table.texts.add(Buffer.from('x'), true)).toBe(2);
  });

  it('holds any number of references: past the first thousand, each still reads its own bytes', () => {
    const records = Array.from({ length: 2100 }, (_, i) => record(i));
    const { buf, ranges } = file(records);
    const texts = new RawTexts();
    const a = new LazyTable(texts);
    const b = new LazyTable(texts);
    const text = texts.add(buf, true);
    ranges.forEach((r, i) => (i % 2 === 0 ? a : b).setRef(String(i), text, ...r));
    expect([...a.values()]).toEqual(records.filter((_, i) => i % 2 === 0));
    expect([...b.values()]).toEqual(records.filter((_, i) => i % 2 === 1));
  });

  it('rawText: the JSON text of a record still held as text or as a range; null once parsed', () => {
    const { buf, ranges } = file([record(1)]);
    const table = new LazyTable();
    const text = table.texts.add(buf, true);
    table.setRef('1', text, ...ranges[0]!);
    table.set('2', JSON.stringify(record(2)));
    const held = new Map(table.stored());
    expect(table.rawText(held.get('1'))).toBe(JSON.stringify(record(1)));
    expect(table.rawText(held.get('2'))).toBe(JSON.stringify(record(2)));
    expect(table.rawText(table.get('1'))).toBeNull();
  });

  it('dehydrate puts a record back to its text only while it is still the record compaction wrote', () => {
    const table = new LazyTable();
    table.set('1', record(1));
    table.set('2', record(2));
    const written = table.get('1');
    table.dehydrate('1', written, JSON.stringify(record(1)));
    table.dehydrate('2', record(2), JSON.stringify(record(2)));
    expect(table.stored().next().value).toEqual(['1', JSON.stringify(record(1))]);
    expect(new Map(table.stored()).get('2')).toEqual(record(2));
    expect(table.get('1')).toEqual(record(1));
  });
});
