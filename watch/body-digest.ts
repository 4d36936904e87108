/**
 * Digests watch keeps instead of bodies (bounded memory): SHA-256 of bytes,
 * and a create's body fingerprint as §4.5 rule 1 defines it (SHA-256 over
 * key-sorted JSON, "any value change counts"), built from the text as sent
 * exactly as the platform side builds it (simulator/domain/json-text.ts):
 * `0.1` and `0.10000000000000001` parse to one double but are two bodies,
 * and the suite holds a platform to that, so watch must too.
 */
import { createHash } from 'node:crypto';
import { scanJsonText } from '../simulator/domain/json-text.ts';

export function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The body fingerprint of a create (§4.5 rule 1); of the raw text when it is not JSON, or nests too deep to sort. */
export function fingerprintOf(text: string, parsed: unknown): string {
  if (parsed === undefined) return `raw:${digest(text)}`;
  try {
    return digest(scanJsonText(text).canonical);
  } catch {
    // A body nested past the stack's depth: its bytes stand for it (a retry sends the same bytes).
    return `raw:${digest(text)}`;
  }
}
