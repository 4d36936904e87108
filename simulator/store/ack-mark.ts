/**
 * The acknowledgement mark (`acknowledged`): how far the journal was durable
 * when the store last acknowledged a flush, and the highest ids and
 * sequences issued by then.
 *
 *   <crc32, 8 hex> {"format":"partner-api-simulator/acknowledged","n":1260,"issued":{"counter:booking":5030,"sequence:1":61}}\n
 *
 * Issue 29, item 1: after a kill the manifest has no `closed_at`, so a
 * newest journal cut short by many whole transactions loaded as "a write cut
 * short" and the next create reused an id already acknowledged to a partner.
 * The journal cannot prove its own length (a cut removes the proof with the
 * data), so the proof lives here: the journal writer rewrites this mark
 * after every synced round and before any flush of that round resolves. At
 * open, journals that end before `n` have lost acknowledged transactions:
 * the store refuses to start (or, with `--recover`, starts from what is
 * intact and raises every id and sequence past `issued`, so none is reused).
 * What follows `n` was never acknowledged and may be dropped as a torn tail.
 *
 * The mark is one positional write of one line at offset 0 (a process kill
 * never tears a single write); it is not synced per round: it is written
 * after the journal data it names is already on stable storage, so after a
 * power loss it may name less than was acknowledged, never more (it then
 * proves less, and never refuses a sound directory). It is synced at close.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

export const ACK_FILE = 'acknowledged';
const FORMAT = 'partner-api-simulator/acknowledged';

export interface AckMark {
  /** Every transaction up to this number was durable when a flush resolved. */
  n: number;
  /** The highest ids and sequences issued by then (store-agnostic names: `counter:booking`, `sequence:1`). */
  issued: Record<string, number>;
}

export function encodeAckMark(mark: AckMark): string {
  const body = JSON.stringify({ format: FORMAT, n: mark.n, issued: mark.issued });
  return `${crc32(body).toString(16).padStart(8, '0')} ${body}\n`;
}

/**
 * The mark of `dir`: null when there is none (a directory from before the
 * mark), `damaged` when its line fails its checksum (a power loss during its
 * write: it proves nothing, the journal's own checks still apply).
 */
export function readAckMark(dir: string): AckMark | null | 'damaged' {
  const path = join(dir, ACK_FILE);
  if (!existsSync(path)) return null;
  // The checksum is over the body's bytes as written: read bytes, decode only the checked body.
  const bytes = readFileSync(path);
  const line = bytes.subarray(0, bytes.indexOf('\n') === -1 ? bytes.length : bytes.indexOf('\n'));
  const body = line.subarray(9);
  const head = /^([0-9a-f]{8}) /.exec(line.toString('latin1'));
  if (head === null || crc32(body) !== Number.parseInt(head[1]!, 16)) return 'damaged';
  try {
    const doc = JSON.parse(body.toString('utf8')) as { format?: unknown; n?: unknown; issued?: unknown };
    if (doc.format !== FORMAT || !Number.isSafeInteger(doc.n) || typeof doc.issued !== 'object' || doc.issued === null) return 'damaged';
    return { n: doc.n as number, issued: doc.issued as Record<string, number> };
  } catch {
    return 'damaged';
  }
}

/** Keeps the mark file open and rewrites it in place (one write at offset 0; a longer old line is cut by the newline). */
export class AckMarkWriter {
  private constructor(private readonly fd: number) {}

  /** Opens (creating, owner-only) the mark of `dir`; the caller's next durable directory write (the manifest) makes a new file's name durable. */
  static open(dir: string): AckMarkWriter {
    const path = join(dir, ACK_FILE);
    if (!existsSync(path)) closeSync(openSync(path, 'wx', 0o600));
    return new AckMarkWriter(openSync(path, 'r+'));
  }

  write(mark: AckMark): void {
    const line = Buffer.from(encodeAckMark(mark));
    writeSync(this.fd, line, 0, line.length, 0);
  }

  close(): void {
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
  }
}
