/**
 * How certify names a secret on the console (issue 28 item 6): never the
 * secret itself, which a terminal, a CI log or a screenshot keeps, but a
 * short fingerprint that tells two secrets apart (`sha256:1a2b3c4d5e6f`),
 * beside the field of the credentials file that holds it.
 */
import { createHash } from 'node:crypto';

/** `sha256:` and the first 12 hex digits of the secret's SHA-256: enough to tell secrets apart, nothing to recover one. */
export function secretFingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`;
}
