/**
 * The report directory is made and proven writable before a run: a
 * directory that cannot hold the reports is refused at once, naming the
 * cause, and under /proc (where a recursive mkdir loops for ever) too.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareReportDir, ReportDirError } from './report-dir.ts';

const work = mkdtempSync(join(tmpdir(), 'report-dir-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('prepareReportDir', () => {
  it('makes a missing directory and its parents, and leaves nothing in it', () => {
    const dir = join(work, 'a', 'b', 'reports');
    prepareReportDir(dir);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('accepts a directory that is there and writable, and keeps what it holds', () => {
    writeFileSync(join(work, 'kept'), 'x');
    prepareReportDir(work);
    expect(existsSync(join(work, 'kept'))).toBe(true);
  });

  it.each([
    ['under /proc (a recursive mkdir loops for ever there)', '/proc/reports', /--report-dir \/proc\/reports: cannot create \/proc\/reports \(the file system there accepts no new files, ENOENT\)/],
    ['deep under /proc', '/proc/self/reports/latest', /--report-dir \/proc\/self\/reports\/latest: cannot create \/proc\/self\/reports/],
    ['below a file', '/dev/null/reports', /--report-dir \/dev\/null\/reports: \/dev\/null is a file, not a directory/],
    ['a file itself', join(work, 'kept'), /is a file, not a directory/],
    ['on a file system that refuses it', '/sys/reports', /--report-dir \/sys\/reports: cannot create \/sys\/reports \((not permitted, EPERM|permission denied, EACCES)\)/],
  ])('refuses a directory %s, naming the cause (never a recursive mkdir that loops: a test that returns at all proves it)', (_what, dir, message) => {
    expect(() => prepareReportDir(dir)).toThrow(ReportDirError);
    expect(() => prepareReportDir(dir)).toThrow(message);
  });

  it('names the flag it was given', () => {
    expect(() => prepareReportDir('/proc/x', '--fixtures-out')).toThrow(/^--fixtures-out \/proc\/x: /);
  });
});
