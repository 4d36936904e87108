/** The in-memory store: a Map per table; a transaction is an overlay applied on commit. */
import type { Store, TableName, Tables, Transaction } from './store.ts';

/** Marks a key deleted inside a transaction's overlay. */
export const DELETED = Symbol('deleted');
export type Overlay = Map<TableName, Map<string, unknown>>;

export class MemoryStore implements Store {
  /** Tables are created on first use: the domain names its tables, the store need not list them. */
  protected readonly tables = new Map<TableName, Map<string, unknown>>();

  /** The map behind one table, created on first use. */
  protected table(name: TableName): Map<string, unknown> {
    let map = this.tables.get(name);
    if (!map) this.tables.set(name, (map = this.newTable()));
    return map;
  }

  /** A new table's map; the file store keeps records it loaded as text until they are read. */
  protected newTable(): Map<string, unknown> {
    return new Map();
  }

  /** Names of the tables that hold records (tools and tests; the domain names its tables). */
  tableNames(): TableName[] {
    return [...this.tables].filter(([, map]) => map.size > 0).map(([name]) => name);
  }

  get<T extends TableName>(table: T, key: string): Tables[T] | undefined {
    return this.tables.get(table)?.get(key) as Tables[T] | undefined;
  }

  values<T extends TableName>(table: T): Iterable<Tables[T]> {
    return this.table(table).values() as Iterable<Tables[T]>;
  }

  size(table: TableName): number {
    return this.tables.get(table)?.size ?? 0;
  }

  transaction<R>(fn: (tx: Transaction) => R): R {
    const tx = new OverlayTransaction(this, this.tables);
    const result = fn(tx);
    this.commit(tx.overlay);
    for (const f of tx.after) f();
    return result;
  }

  /** Applies a committed overlay; subclasses also make it durable. */
  protected commit(overlay: Overlay): void {
    for (const [table, rows] of overlay) {
      const map = this.table(table);
      for (const [k, v] of rows) v === DELETED ? map.delete(k) : map.set(k, v);
    }
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

/**
 * A transaction's view: its own writes over the store's committed state. A
 * class rather than closures because every request opens one (at least to
 * charge the rate-limit window): nothing to allocate beyond the object.
 */
class OverlayTransaction implements Transaction {
  readonly overlay: Overlay = new Map();
  readonly after: (() => void)[] = [];

  constructor(
    private readonly store: MemoryStore,
    private readonly committed: ReadonlyMap<TableName, Map<string, unknown>>,
  ) {}

  get<T extends TableName>(table: T, key: string): Tables[T] | undefined {
    const m = this.overlay.get(table);
    if (m?.has(key)) {
      const v = m.get(key);
      return v === DELETED ? undefined : (v as Tables[T]);
    }
    return this.store.get(table, key);
  }

  values<T extends TableName>(table: T): Iterable<Tables[T]> {
    const m = this.overlay.get(table);
    if (!m) return this.store.values(table);
    const merged = new Map<string, unknown>(this.committed.get(table));
    for (const [k, v] of m) v === DELETED ? merged.delete(k) : merged.set(k, v);
    return merged.values() as Iterable<Tables[T]>;
  }

  size(table: TableName): number {
    return Array.from(this.values(table)).length;
  }

  put<T extends TableName>(table: T, key: string, value: Tables[T]): void {
    this.pending(table).set(key, value);
  }

  delete(table: TableName, key: string): void {
    this.pending(table).set(key, DELETED);
  }

  onCommit(fn: () => void): void {
    this.after.push(fn);
  }

  private pending(table: TableName): Map<string, unknown> {
    let m = this.overlay.get(table);
    if (!m) this.overlay.set(table, (m = new Map()));
    return m;
  }
}
