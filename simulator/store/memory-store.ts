/** The in-memory store: Maps per table; a transaction is an overlay applied on commit. */
import type { Store, TableName, Tables, Transaction } from './store.ts';

type Data = { [T in TableName]: Map<string, Tables[T]> };
/** Marks a key deleted inside a transaction's overlay. */
export const DELETED = Symbol('deleted');
export type Overlay = Map<TableName, Map<string, unknown>>;

export class MemoryStore implements Store {
  protected readonly data: Data;

  constructor(initial?: Partial<{ [T in TableName]: Record<string, Tables[T]> }>) {
    this.data = new Proxy({} as Data, {
      get: (target, table: string) => (target[table as TableName] ??= this.newTable() as never),
    });
    for (const [table, rows] of Object.entries(initial ?? {})) {
      const map = this.data[table as TableName] as Map<string, unknown>;
      for (const [key, value] of Object.entries(rows ?? {})) map.set(key, value);
    }
  }

  /** The map behind one table; the file store keeps records it loaded as text until they are read. */
  protected newTable(): Map<string, unknown> {
    return new Map();
  }

  /** Names of the tables that hold records (tools and tests; the domain names its tables). */
  tableNames(): TableName[] {
    return (Object.keys(this.data) as TableName[]).filter((t) => this.data[t].size > 0);
  }

  get<T extends TableName>(table: T, key: string): Tables[T] | undefined {
    return this.data[table].get(key) as Tables[T] | undefined;
  }

  values<T extends TableName>(table: T): Iterable<Tables[T]> {
    return this.data[table].values() as Iterable<Tables[T]>;
  }

  size(table: TableName): number {
    return this.data[table].size;
  }

  transaction<R>(fn: (tx: Transaction) => R): R {
    const overlay = new Map<TableName, Map<string, unknown>>();
    const after: (() => void)[] = [];
    const pending = (table: TableName) => {
      let m = overlay.get(table);
      if (!m) overlay.set(table, (m = new Map()));
      return m;
    };
    const tx: Transaction = {
      get: (table, key) => {
        const m = overlay.get(table);
        if (m?.has(key)) {
          const v = m.get(key);
          return v === DELETED ? undefined : (v as never);
        }
        return this.get(table, key);
      },
      values: (table) => {
        const m = overlay.get(table);
        if (!m) return this.values(table);
        const merged = new Map(this.data[table] as Map<string, unknown>);
        for (const [k, v] of m) v === DELETED ? merged.delete(k) : merged.set(k, v);
        return merged.values() as never;
      },
      size: (table) => Array.from(tx.values(table)).length,
      put: (table, key, value) => void pending(table).set(key, value),
      delete: (table, key) => void pending(table).set(key, DELETED),
      onCommit: (f) => void after.push(f),
    };
    const result = fn(tx);
    this.commit(overlay);
    for (const f of after) f();
    return result;
  }

  /** Applies a committed overlay; subclasses also make it durable. */
  protected commit(overlay: Overlay): void {
    for (const [table, rows] of overlay) {
      const map = this.data[table] as Map<string, unknown>;
      for (const [k, v] of rows) v === DELETED ? map.delete(k) : map.set(k, v);
    }
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
