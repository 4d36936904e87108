/**
 * Finds and reads the report.json of each directory given to `conformance
 * --merge`. A directory may be a run's own directory (`<report-dir>/<run-id>/`
 * or `<report-dir>/latest/`) or a whole report directory (what a run's
 * --report-dir names, or a CI artifact of it): then its `latest/` is taken,
 * or its one run when it has no `latest/`. Several runs and no `latest/` is
 * refused rather than guessed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../conformance/types.ts';
import { MergeError, type MergeInput } from './merge.ts';

const REPORT = 'report.json';

/** The report.json a --merge DIR stands for. Throws MergeError naming the directory when there is none or it is ambiguous. */
export function locateReport(dir: string): string {
  if (!existsSync(dir)) throw new MergeError(`--merge ${dir}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new MergeError(`--merge ${dir}: not a directory (name the run directory that holds report.json)`);
  const own = join(dir, REPORT);
  if (existsSync(own)) return own;
  const latest = join(dir, 'latest', REPORT);
  if (existsSync(latest)) return latest;
  const runs = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && existsSync(join(dir, e.name, REPORT)))
    .map((e) => e.name)
    .sort();
  if (runs.length === 1) return join(dir, runs[0]!, REPORT);
  if (runs.length > 1) throw new MergeError(`--merge ${dir}: holds ${runs.length} runs (${runs.join(', ')}) and no latest/; name the run directory to merge`);
  throw new MergeError(`--merge ${dir}: no report.json (looked in ${dir}, ${join(dir, 'latest')} and its run directories)`);
}

/** Reads and checks one run's report.json. */
export function readRunReport(file: string): RunReport {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new MergeError(`--merge ${file}: not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new MergeError(`--merge ${file}: not a conformance report (not an object)`);
  const r = data as Record<string, unknown>;
  if (r.kind === 'merged') throw new MergeError(`--merge ${file}: a merged report; merge the runs it was made from`);
  const missing = [
    typeof r.runId !== 'string' && 'runId',
    typeof r.apiVersion !== 'string' && 'apiVersion',
    typeof r.specDigest !== 'string' && 'specDigest',
    (r.target === null || typeof r.target !== 'object') && 'target',
    !Array.isArray(r.results) && 'results',
    !Array.isArray(r.coverage) && 'coverage',
    (r.summary === null || typeof r.summary !== 'object') && 'summary',
  ].filter((x): x is string => typeof x === 'string');
  if (missing.length > 0) throw new MergeError(`--merge ${file}: not a conformance report (no ${missing.join(', ')})`);
  const badResult = (r.results as unknown[]).findIndex((x) => x === null || typeof x !== 'object' || typeof (x as { id?: unknown }).id !== 'string' || typeof (x as { outcome?: unknown }).outcome !== 'string');
  if (badResult >= 0) throw new MergeError(`--merge ${file}: not a conformance report (results[${badResult}] has no id or outcome)`);
  return data as RunReport;
}

/** Each DIR's report, in the order given. */
export function readMergeInputs(dirs: readonly string[]): MergeInput[] {
  return dirs.map((dir) => {
    const file = locateReport(dir);
    return { report: readRunReport(file), source: file };
  });
}
