/**
 * The directory a run writes its reports to, made and proven writable before
 * the first check, so a directory that cannot hold them ends the run at once
 * (exit 2, naming the cause) rather than after the whole run.
 *
 * It is made one level at a time, not with `mkdirSync(…, { recursive: true })`:
 * under /proc that call loops for ever on ENOENT (node 20 and 22), where a
 * single mkdir fails at once.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A report directory that cannot be made or written: the message names the flag, the directory and the cause. */
export class ReportDirError extends Error {}

/** Makes `dir` (and its missing parents) and writes and removes a file in it; throws ReportDirError saying why not. */
export function prepareReportDir(dir: string, flag = '--report-dir'): void {
  const path = resolve(dir);
  const missing: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    const kind = kindOf(p);
    if (kind === 'directory') break;
    if (kind === 'other') throw new ReportDirError(`${flag} ${dir}: ${p} is a file, not a directory`);
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      mkdirSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new ReportDirError(`${flag} ${dir}: cannot create ${p} (${cause(e)})`);
    }
  }
  const probe = resolve(path, `.write-test-${process.pid}`);
  try {
    writeFileSync(probe, '');
  } catch (e) {
    throw new ReportDirError(`${flag} ${dir}: cannot write in ${path} (${cause(e)})`);
  }
  rmSync(probe, { force: true });
}

function kindOf(path: string): 'directory' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch (e) {
    // ENOTDIR: a parent is a file; the walk up finds it and says so.
    if (['ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return 'missing';
    throw new ReportDirError(`cannot look at ${path} (${cause(e)})`);
  }
}

const CAUSES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  ENOENT: 'the file system there accepts no new files',
  ENOTDIR: 'a part of the path is a file',
  EDQUOT: 'the disk quota is used up',
};

function cause(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return CAUSES[code] ? `${CAUSES[code]}, ${code}` : (e as Error).message;
}
