/**
 * writeFileDurablySync under a umask that would take the group's read (durable-fs.ts): the file gets exactly the mode
 * asked for, and a temporary file a crash left is replaced. Apart from durable-fs.test.ts because it sets the process's
 * umask, which Node refuses in worker threads, where the own-tests mutation run (vitest.own-tests.config.ts) runs.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileDurablySync } from './durable-fs.ts';

const dir = mkdtempSync(join(tmpdir(), 'durable-fs-umask-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileDurablySync whatever the umask', () => {
  it('gives the file exactly the mode asked for, over a temporary file a crash left readable by anyone', () => {
    writeFileSync(join(dir, '.other.tmp'), 'torn', { mode: 0o644 });
    const before = process.umask(0o077);
    try {
      writeFileDurablySync(join(dir, 'other'), 'x', 0o640);
    } finally {
      process.umask(before);
    }
    expect((statSync(join(dir, 'other')).mode & 0o777).toString(8)).toBe('640');
    expect(existsSync(join(dir, '.other.tmp'))).toBe(false);
  });
});
