/**
 * The file-system steps durability rests on (durable-fs.ts): a directory made
 * owner-only one level at a time, modes only ever tightened, a buffer written
 * whole however short the writes, a small file replaced whole or not at all.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectory, syncDir, syncDirSync, tightenModes, writeAll, writeFileDurablySync } from './durable-fs.ts';
import { openFilesUnder, tempDirs } from './test-support.ts';

const tempDir = tempDirs('durable-fs-test-');
const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);

describe('makeDirectory', () => {
  it('makes every missing level, each owner-only, below the nearest one that exists, and nothing else', () => {
    const root = tempDir();
    makeDirectory(join(root, 'a', 'b', 'c'));
    for (const p of ['a', 'a/b', 'a/b/c']) expect(mode(join(root, p)), p).toBe('700');
    expect(readdirSync(root)).toEqual(['a']);
    makeDirectory(join(root, 'a', 'd'), 0o750);
    expect(mode(join(root, 'a', 'd'))).toBe('750');
    expect(mode(join(root, 'a'))).toBe('700');
    expect(readdirSync(join(root, 'a')).sort()).toEqual(['b', 'd']);
  });

  it.runIf(process.platform === 'linux')('fails at once with the cause where a level cannot be made (a pseudo file system: Node\'s recursive mkdir never returns there)', () => {
    expect(() => makeDirectory('/proc/self/simulator-data/store')).toThrow(/ENOENT/);
  });

  it('an existing directory is left as it is; an existing file is refused as mkdir refuses it', () => {
    const root = tempDir();
    chmodSync(root, 0o755);
    makeDirectory(root);
    expect(mode(root)).toBe('755');
    writeFileSync(join(root, 'file'), 'x');
    expect(() => makeDirectory(join(root, 'file'))).toThrow(/EEXIST/);
    expect(() => makeDirectory(join(root, 'file', 'below'))).toThrow(/ENOTDIR/);
  });

  // A level that turns out made when mkdir comes to it (EEXIST) is taken as made: another process may have made it
  // meanwhile. A link to nowhere is such a level (it exists as a name, not as a directory): what fails is what is wrong.
  it('a level that is a symbolic link to nowhere, or a loop of links, fails with that cause, never as "exists"', () => {
    const root = tempDir();
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    symlinkSync(join(root, 'loop'), join(root, 'loop'));
    expect(() => makeDirectory(join(root, 'dangling'))).toThrow(/ENOENT/);
    expect(() => makeDirectory(join(root, 'dangling', 'below'))).toThrow(/ENOENT/);
    expect(() => makeDirectory(join(root, 'loop'))).toThrow(/ELOOP/);
  });
});

describe('tightenModes', () => {
  it('takes from the directory and its files what anyone but the owner may do, and says what it changed', () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'journal'), 'x', { mode: 0o644 });
    writeFileSync(join(dir, 'tool'), 'x', { mode: 0o755 });
    writeFileSync(join(dir, 'private'), 'x', { mode: 0o600 });
    mkdirSync(join(dir, 'sub'), { mode: 0o755 });
    const changes = tightenModes(dir);
    expect(changes.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: '.', from: 0o755, to: 0o700 },
      { name: 'journal', from: 0o644, to: 0o600 },
      { name: 'tool', from: 0o755, to: 0o600 },
    ]);
    expect([mode(dir), mode(join(dir, 'journal')), mode(join(dir, 'tool')), mode(join(dir, 'private')), mode(join(dir, 'sub'))]).toEqual(['700', '600', '600', '600', '755']);
    expect(tightenModes(dir)).toEqual([]);
  });

  it('only takes away: a read-only directory stays read-only; a symbolic link and what it points to are left alone', () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'target'), 'x', { mode: 0o644 });
    const dir = tempDir();
    symlinkSync(join(outside, 'target'), join(dir, 'link'));
    chmodSync(dir, 0o500);
    try {
      expect(tightenModes(dir)).toEqual([]);
      expect(mode(dir)).toBe('500');
      expect(mode(join(outside, 'target'))).toBe('644');
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe('writeAll', () => {
  it('writes the whole buffer however short each write stops', async () => {
    const written: Buffer[] = [];
    const calls: [number, number][] = [];
    const fh = {
      write: async (buf: Buffer, off: number, len: number) => {
        calls.push([off, len]);
        const n = Math.min(3, len);
        written.push(Buffer.from(buf.subarray(off, off + n)));
        return { bytesWritten: n, buffer: buf };
      },
    } as unknown as FileHandle;
    await writeAll(fh, Buffer.from('0123456789'));
    expect(Buffer.concat(written).toString()).toBe('0123456789');
    expect(calls).toEqual([[0, 10], [3, 7], [6, 4], [9, 1]]);
    await writeAll(fh, Buffer.alloc(0));
    expect(calls).toHaveLength(4);
  });
});

describe('syncDir and syncDirSync', () => {
  it('sync a directory, and fail on one that is not there (on this system, a failed sync is never quietly skipped)', async () => {
    const dir = tempDir();
    await expect(syncDir(dir)).resolves.toBeUndefined();
    expect(() => syncDirSync(dir)).not.toThrow();
    await expect(syncDir(join(dir, 'gone'))).rejects.toThrow(/ENOENT/);
    expect(() => syncDirSync(join(dir, 'gone'))).toThrow(/ENOENT/);
  });

  it.runIf(process.platform === 'linux')('let go of the directory once synced', async () => {
    const dir = tempDir();
    await syncDir(dir);
    expect(openFilesUnder(dir)).toEqual([]);
    syncDirSync(dir);
    expect(openFilesUnder(dir)).toEqual([]);
  });
});

describe('writeFileDurablySync', () => {
  it('replaces the file whole, owner-only, with no temporary file left', () => {
    const dir = tempDir();
    const path = join(dir, 'manifest.json');
    writeFileSync(path, 'the old content, longer than the new one\n', { mode: 0o644 });
    writeFileDurablySync(path, 'Āsha 🏝\n');
    expect(readFileSync(path, 'utf8')).toBe('Āsha 🏝\n');
    expect(mode(path)).toBe('600');
    expect(readdirSync(dir)).toEqual(['manifest.json']);
  });

  it.runIf(process.platform === 'linux')('lets go of the file it wrote', () => {
    const dir = tempDir();
    writeFileDurablySync(join(dir, 'manifest.json'), '{}\n');
    expect(openFilesUnder(dir)).toEqual([]);
  });
});
