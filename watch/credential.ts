/**
 * Which API key made a call, without the key: the first 12 hex digits of its
 * SHA-256 (`key-3f2a…`). Per-integration state is keyed by it until an answer
 * names the integration's slug; recordings keep it so they can be judged
 * offline with nothing secret in them.
 */
import { createHash } from 'node:crypto';

/** Ids of the header values seen last: a hash per exchange was a tenth of watch's time per `GET /me`. Bounded: cleared when full. */
const known = new Map<string, string>();
const KNOWN_MAX = 1024;

/** The credential id of an `Authorization` header value; `anonymous` when there is no bearer token. */
export function credentialOf(authorization: string | undefined): string {
  const header = authorization ?? '';
  const seen = known.get(header);
  if (seen !== undefined) return seen;
  const token = /^Bearer[ \t]+(\S+)/i.exec(header)?.[1];
  const id = token ? `key-${createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12)}` : 'anonymous';
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(header, id);
  return id;
}
