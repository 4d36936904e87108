/**
 * The throwaway cluster's binaries: found where Debian puts them, in
 * $PG_BIN or on the PATH; when they are nowhere, the tests that need them
 * fail (never skip) with a message naming what to install. A cluster
 * started once and attached to by each run of a file (the own-tests
 * mutation run) leaves no database behind and the server running.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { attachPgCluster, findPgBin, startPgCluster } from './pg-cluster.ts';

const dir = mkdtempSync(join(tmpdir(), 'sim-pg-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeBin(path: string): string {
  mkdirSync(path, { recursive: true });
  for (const name of ['initdb', 'pg_ctl']) writeFileSync(join(path, name), '');
  return path;
}

describe('findPgBin', () => {
  it.each([
    ['$PG_BIN first', { env: { PG_BIN: fakeBin(join(dir, 'own')), PATH: '' }, debian: join(dir, 'debian') }, join(dir, 'own')],
    ['the newest Debian version', { env: { PATH: '' }, debian: (fakeBin(join(dir, 'debian', '13', 'bin')), fakeBin(join(dir, 'debian', '15', 'bin')), join(dir, 'debian')) }, join(dir, 'debian', '15', 'bin')],
    ['the PATH last', { env: { PATH: `/nonexistent:${fakeBin(join(dir, 'on-path'))}` }, debian: join(dir, 'none') }, join(dir, 'on-path')],
  ])('%s', (_name, where, want) => {
    expect(findPgBin(where)).toBe(want);
  });

  it('nowhere: an error naming what to install, never a quiet skip', () => {
    expect(() => findPgBin({ env: { PATH: '/nonexistent' }, debian: join(dir, 'none') })).toThrow(/initdb, pg_ctl.*apt-get install postgresql/);
  });
});

describe('attachPgCluster', () => {
  it('drops the databases an earlier user left (a run cut short) and, at stop, its own; the server stays up', async () => {
    const cluster = await startPgCluster();
    const databases = async () => {
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      try {
        return (await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname NOT LIKE 'template%' ORDER BY datname")).rows.map((r) => r.datname);
      } finally {
        await client.end();
      }
    };
    try {
      const cut = await attachPgCluster(cluster.url);
      const left = await cut.createDatabase('left_behind');
      // Still connected, as a store of a run stopped by Stryker's bail may be.
      const holder = new pg.Client({ connectionString: left });
      holder.on('error', () => undefined);
      await holder.connect();
      const next = await attachPgCluster(cluster.url);
      expect(await databases()).toEqual(['postgres']);
      expect(await next.createDatabase('store_1')).toBe(cluster.url.replace(/postgres$/, 'store_1'));
      expect(await databases()).toEqual(['postgres', 'store_1']);
      await next.stop();
      expect(await databases()).toEqual(['postgres']);
      await holder.end().catch(() => undefined);
    } finally {
      await cluster.stop();
    }
  });
});
