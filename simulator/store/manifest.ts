/**
 * The data directory's manifest (`manifest.json`): which journal generation
 * is the newest, from which generation every journal begins with its header
 * line, and, after a clean close, the last transaction written.
 *
 *   {"format":"partner-api-simulator/manifest","generation":3,"headers_from":1,"closed_at":1260}
 *
 * Issue 17: a deleted or emptied newest journal used to load as a shorter
 * history without a word (40 of 58 acknowledged bookings). With the manifest
 * open knows which journal must exist, that it must begin with its header,
 * and (after a clean stop) how far it must reach; anything less is a named
 * error. The manifest is replaced atomically (temp file, fsync, rename, fsync
 * of the directory) when a journal generation begins, at open and at close;
 * never per transaction.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurablySync } from './durable-fs.ts';
import { StoreDamagedError } from './errors.ts';

export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'partner-api-simulator/manifest';

export interface Manifest {
  /** The newest journal generation: `journal.<generation>.log` exists and begins with its header. */
  generation: number;
  /** Journals from this generation on begin with a header line (older ones were written before there was a manifest). */
  headersFrom: number;
  /** The last transaction written before a clean close; null while the store is open (or after a kill). */
  closedAt: number | null;
}

/** The manifest of `dir`, or null when it has none (a new directory, or one written before manifests). */
export function readManifest(dir: string): Manifest | null {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return null;
  let doc: { format?: unknown; generation?: unknown; headers_from?: unknown; closed_at?: unknown };
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as typeof doc;
  } catch (e) {
    throw damagedManifest(path, `not JSON: ${(e as Error).message}`);
  }
  const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
  if (doc?.format !== FORMAT || !isCount(doc.generation) || !isCount(doc.headers_from) || !(doc.closed_at === null || isCount(doc.closed_at))) {
    throw damagedManifest(path, `not a manifest of format "${FORMAT}" with "generation", "headers_from" and "closed_at"`);
  }
  return { generation: doc.generation, headersFrom: doc.headers_from, closedAt: doc.closed_at };
}

export function writeManifest(dir: string, m: Manifest): void {
  writeFileDurablySync(join(dir, MANIFEST_FILE), JSON.stringify({ format: FORMAT, generation: m.generation, headers_from: m.headersFrom, closed_at: m.closedAt }) + '\n');
}

function damagedManifest(path: string, why: string): StoreDamagedError {
  return new StoreDamagedError(`${path} is damaged and cannot be loaded (${why}). The store will not start without knowing which journal is the newest: `
    + 'restore the file from a backup, or move the data directory away to start afresh.');
}
