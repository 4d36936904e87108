/**
 * A table whose records may still be JSON text: what a restart loads (the
 * snapshot's records, the journal's puts) is kept as text and parsed the
 * first time it is read. A restart then costs a scan of the files, not a
 * parse of every record; most events and bookings are never read again.
 * Reads always see objects.
 *
 * Records are objects (every table of `Tables` holds objects), so a value
 * held here that is not an object is a record not parsed yet: a string is
 * its JSON text; a number is a range of bytes in the store's RawTexts (a
 * whole snapshot file kept as loaded: no string, no object per record until
 * it is read).
 */
export class RawTexts {
  private texts: { buf: Buffer; encoding: 'latin1' | 'utf8' }[] = [];
  private textOf = new Int32Array(1024);
  private startOf = new Int32Array(1024);
  private endOf = new Int32Array(1024);
  private count = 0;

  /** Keeps the bytes of a file records are cut from (off the V8 heap); returns its id. */
  add(buf: Buffer, ascii: boolean): number {
    this.texts.push({ buf, encoding: ascii ? 'latin1' : 'utf8' });
    return this.texts.length - 1;
  }

  /** A reference to bytes [start, end) of text `textId` (a small integer: a Map holds it without an allocation). */
  ref(textId: number, start: number, end: number): number {
    if (this.count === this.textOf.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.textOf = grow(this.textOf);
      this.startOf = grow(this.startOf);
      this.endOf = grow(this.endOf);
    }
    this.textOf[this.count] = textId;
    this.startOf[this.count] = start;
    this.endOf[this.count] = end;
    return this.count++;
  }

  text(ref: number): string {
    const t = this.texts[this.textOf[ref]!]!;
    return t.buf.toString(t.encoding, this.startOf[ref], this.endOf[ref]);
  }
}

export class LazyTable extends Map<string, unknown> {
  constructor(readonly texts: RawTexts = new RawTexts()) {
    super();
  }

  override get(key: string): unknown {
    const v = super.get(key);
    return typeof v === 'object' || v === undefined ? v : this.decode(key, v as string | number);
  }

  /** Stores a record as bytes [start, end) of a text added to `texts` (parsed on first read). */
  setRef(key: string, textId: number, start: number, end: number): void {
    super.set(key, this.texts.ref(textId, start, end));
  }

  /** Entries as held: not-yet-parsed records as a string or a reference (see `rawText`). */
  stored(): MapIterator<[string, unknown]> {
    return super.entries();
  }

  /** The JSON text of a value as held, or null when it is a parsed record. */
  rawText(held: unknown): string | null {
    if (typeof held === 'string') return held;
    if (typeof held === 'number') return this.texts.text(held);
    return null;
  }

  /** Puts a record back to its JSON text when it is still `value` (compaction just wrote it out). */
  dehydrate(key: string, value: unknown, text: string): void {
    if (super.get(key) === value) super.set(key, text);
  }

  override entries(): MapIterator<[string, unknown]> {
    return this.decoded((k, v) => [k, v]);
  }

  override values(): MapIterator<unknown> {
    return this.decoded((_k, v) => v);
  }

  override [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries();
  }

  override forEach(fn: (value: unknown, key: string, map: Map<string, unknown>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  private decode(key: string, held: string | number): unknown {
    const value: unknown = JSON.parse(typeof held === 'number' ? this.texts.text(held) : held);
    super.set(key, value); // the same key: its place in the order is kept
    return value;
  }

  private decoded<T>(pick: (k: string, v: unknown) => T): MapIterator<T> {
    const inner = super.entries();
    const self = this;
    function* walk(): Generator<T, undefined, unknown> {
      for (const [k, v] of inner) yield pick(k, typeof v === 'object' ? v : self.decode(k, v as string | number));
      return undefined;
    }
    return walk() as unknown as MapIterator<T>;
  }
}
