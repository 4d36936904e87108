/**
 * A file-backed store: the memory store, saved as one lowdb JSON document
 * (`state.json`) that users can open and read. Every commit marks the state
 * dirty; `flush()` (awaited before a response is sent) writes it through
 * lowdb's atomic temp-file-and-rename writer, coalescing concurrent flushes.
 *
 * This first version rewrites the whole document per flush, so its cost
 * grows with the data; the journaled design of the "simulator on file" issue
 * replaces it behind the same Store interface.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { MemoryStore, type Overlay } from './memory-store.ts';
import type { TableName, Tables } from './store.ts';

type Document = { version: 1; tables: Partial<{ [T in TableName]: Record<string, Tables[T]> }> };

export class FileStore extends MemoryStore {
  private dirty = false;
  private writing: Promise<void> | null = null;

  private constructor(private readonly db: Low<Document>, initial: Document['tables']) {
    super(initial);
  }

  /** Opens (or creates) the store in `dir`. Throws on a document that does not parse, never starts silently empty. */
  static async open(dir: string): Promise<FileStore> {
    mkdirSync(dir, { recursive: true });
    const db = new Low<Document>(new JSONFile<Document>(join(dir, 'state.json')), { version: 1, tables: {} });
    try {
      await db.read();
    } catch (e) {
      throw new Error(`${join(dir, 'state.json')} is damaged and cannot be loaded (${(e as Error).message}); move it away to start afresh.`);
    }
    return new FileStore(db, db.data.tables);
  }

  protected override commit(overlay: Overlay): void {
    super.commit(overlay);
    this.dirty = true;
  }

  override async flush(): Promise<void> {
    while (this.dirty || this.writing) {
      if (this.writing) {
        await this.writing;
        continue;
      }
      this.dirty = false;
      this.db.data = { version: 1, tables: this.toTables() };
      this.writing = this.db.write().finally(() => {
        this.writing = null;
      });
    }
  }

  override async close(): Promise<void> {
    await this.flush();
  }

  private toTables(): Document['tables'] {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [table, rows] of Object.entries(this.data)) out[table] = Object.fromEntries(rows as Map<string, unknown>);
    return out as Document['tables'];
  }
}
