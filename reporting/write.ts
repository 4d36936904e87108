/**
 * Writes a run's reports (report.json, junit.xml, index.html) into
 * `<dir>/<runId>/` and refreshes `<dir>/latest/` with copies. Secrets never
 * reach the disk: the report is redacted before rendering and the rendered
 * files are scanned again before they are written.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MergedReport, RunReport } from '../conformance/types.ts';
import { renderHtml } from './html.ts';
import { renderJson, renderMergedJson } from './json.ts';
import { renderJunit, renderMergedJunit } from './junit.ts';
import { renderMergedHtml } from './merged-html.ts';
import { plain, sanitizeReport } from './sanitize.ts';

export const REDACTED = '<redacted>';

/**
 * Anything shaped like a credential of the platform: API keys (`dlk_`), staff
 * tokens (`stf_`), webhook secrets (`whsec_`), with the `Bearer ` before
 * them when there is one. Hex of either case, so an upper-cased echo is caught too.
 */
const SECRET = /(?:Bearer[ \t]+)?(?:dlk|stf|whsec)_[0-9a-fA-F]{16,}/g;

/** `text` with every secret-shaped token replaced by `replacement` (`<redacted>` by default). */
export function redactSecrets(text: string, replacement: string = REDACTED): string {
  return text.replace(SECRET, replacement);
}

/** True when `text` still holds something shaped like a secret. */
export function containsSecret(text: string): boolean {
  return new RegExp(SECRET.source).test(text);
}

/** A deep copy of the report with every string redacted, so renderers escape `<redacted>` like any text. */
export function redactReport(report: RunReport): RunReport {
  return redactValue(report) as RunReport;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecrets(k), redactValue(v)]));
  }
  return value;
}

export interface WrittenReports {
  /** The run's own directory, `<dir>/<runId>`. */
  dir: string;
  files: { json: string; junit: string; html: string };
}

const FILE_NAMES = { json: 'report.json', junit: 'junit.xml', html: 'index.html' } as const;

/**
 * Renders and writes the three reports of a run; returns where they are.
 * Throws when `report.runId` cannot be a directory name.
 */
export function writeReports(report: RunReport, dir: string): WrittenReports {
  // Whatever the target answered, all three files are written: the report is plain JSON with text where text belongs.
  const clean = redactReport(sanitizeReport(report));
  return writeRendered(report.runId, { json: renderJson(clean), junit: renderJunit(clean), html: renderHtml(clean) }, dir);
}

/**
 * Writes a merged report (`conformance --merge`) as a run's are: report.json,
 * junit.xml and index.html in `<dir>/<runId>/`, copied to `<dir>/latest/`.
 */
export function writeMergedReports(merged: MergedReport, dir: string): WrittenReports {
  // The runs were redacted when they were written; a report.json edited since is redacted again here.
  const clean = redactValue(plain(merged)) as MergedReport;
  return writeRendered(merged.runId, { json: renderMergedJson(clean), junit: renderMergedJunit(clean), html: renderMergedHtml(clean) }, dir);
}

function writeRendered(runId: string, rendered: Record<keyof WrittenReports['files'], string>, dir: string): WrittenReports {
  const runDir = resolve(dir, runDirectoryName(runId));
  // The second pass catches secrets that rendering itself assembles (XML drops
  // control characters, which can join the halves of a token). Markup-safe
  // replacement in XML and HTML: a raw `<` would break the document.
  const contents = {
    json: redactSecrets(rendered.json),
    junit: redactSecrets(rendered.junit, '&lt;redacted&gt;'),
    html: redactSecrets(rendered.html, '&lt;redacted&gt;'),
  };

  mkdirSync(runDir, { recursive: true });
  const files = {
    json: join(runDir, FILE_NAMES.json),
    junit: join(runDir, FILE_NAMES.junit),
    html: join(runDir, FILE_NAMES.html),
  };
  for (const kind of ['json', 'junit', 'html'] as const) writeFileSync(files[kind], contents[kind], 'utf8');

  refreshLatest(resolve(dir), files);
  return { dir: runDir, files };
}

/**
 * `<dir>/latest` as a real directory holding copies (symlinks do not survive
 * every CI artifact store or Windows checkout). Filled beside it, then swapped
 * in, so a reader never sees it half written.
 */
function refreshLatest(root: string, files: WrittenReports['files']): void {
  const latest = join(root, 'latest');
  const staging = join(root, `.latest-${randomUUID()}`);
  mkdirSync(staging, { recursive: true });
  try {
    for (const kind of ['json', 'junit', 'html'] as const) copyFileSync(files[kind], join(staging, FILE_NAMES[kind]));
    rmSync(latest, { recursive: true, force: true });
    renameSync(staging, latest);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The run id as a single safe path segment; characters outside `[A-Za-z0-9._-]` become `-`. */
function runDirectoryName(runId: string): string {
  const name = runId.replace(/[^A-Za-z0-9._-]+/g, '-');
  if (name === '' || /^\.+$/.test(name) || name === 'latest' || name.startsWith('.latest-')) {
    throw new Error(`report.runId ${JSON.stringify(runId)} cannot name a report directory (it would be "${name}")`);
  }
  return name;
}
