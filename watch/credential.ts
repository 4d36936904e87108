/**
 * Which API key made a call, without the key: the first 12 hex digits of its
 * SHA-256 (`key-3f2a…`). Per-integration state is keyed by it until an answer
 * names the integration's slug; recordings keep it so they can be judged
 * offline with nothing secret in them.
 */
import { createHash } from 'node:crypto';

/** The credential id of an `Authorization` header value; `anonymous` when there is no bearer token. */
export function credentialOf(authorization: string | undefined): string {
  const token = /^Bearer[ \t]+(\S+)/i.exec(authorization ?? '')?.[1];
  if (!token) return 'anonymous';
  return `key-${createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12)}`;
}
