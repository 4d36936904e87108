/**
 * The throwaway cluster's binaries: found where Debian puts them, in
 * $PG_BIN or on the PATH; when they are nowhere, the tests that need them
 * fail (never skip) with a message naming what to install.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPgBin } from './pg-cluster.ts';

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
