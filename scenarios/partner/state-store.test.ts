/** One contract, run against every StateStore (HOUSE-STYLE: one contract test per interface). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyState } from './state.ts';
import { FileStateStore, MemoryStateStore, type StateStore } from './state-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'partner-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runStoreContract(name: string, newStore: () => StateStore): void {
  describe(`${name} state store`, () => {
    it('is empty before the first save (a cold start)', async () => {
      expect(await newStore().load()).toBeNull();
    });

    it('gives back what was saved, as a copy: later changes to the live state are not saved by accident', async () => {
      const store = newStore();
      const state = emptyState();
      state.cursor = 42;
      state.bookings_updated_since = '2026-09-15T12:00:00.000+05:30';
      await store.save(state);
      state.cursor = 99;
      const loaded = await store.load();
      expect(loaded).toEqual({ ...emptyState(), cursor: 42, bookings_updated_since: '2026-09-15T12:00:00.000+05:30' });
      loaded!.cursor = 7;
      expect((await store.load())!.cursor).toBe(42);
    });

    it('the last save wins', async () => {
      const store = newStore();
      for (const cursor of [1, 2, 3]) await store.save({ ...emptyState(), cursor });
      expect((await store.load())!.cursor).toBe(3);
    });
  });
}

let n = 0;
runStoreContract('memory', () => new MemoryStateStore());
runStoreContract('file', () => new FileStateStore(join(dir, `state-${++n}.json`)));

describe('file state store', () => {
  it('writes one readable JSON document, replaced atomically', async () => {
    const path = join(dir, 'nested', 'state.json');
    await new FileStateStore(path).save({ ...emptyState(), cursor: 5 });
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(5);
    expect(() => readFileSync(`${path}.tmp`)).toThrow();
  });

  it('a corrupt file is an error, not a silent cold start', async () => {
    const path = join(dir, 'corrupt.json');
    writeFileSync(path, '{"cursor": 4');
    await expect(new FileStateStore(path).load()).rejects.toThrow();
  });
});
