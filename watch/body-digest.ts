/**
 * Digests watch keeps instead of bodies (bounded memory): SHA-256 of bytes,
 * and a create's body fingerprint as §4.5 rule 1 defines it (SHA-256 over
 * key-sorted JSON, protocol/fingerprint.ts).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../protocol/fingerprint.ts';

export function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The body fingerprint of a create (§4.5 rule 1); of the raw text when it is not JSON. */
export function fingerprintOf(text: string, parsed: unknown): string {
  return parsed === undefined ? `raw:${digest(text)}` : digest(canonicalJson(parsed));
}
