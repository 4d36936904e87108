/**
 * Webhook signature verification. The document leaves the scheme open
 * (§6 gaps); the contract fixes it (spec ServiceSignatureHeader x-assumption):
 * `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each `v1` an
 * HMAC-SHA256 keyed by a whole `whsec_` secret over `"<t>.<raw body>"`.
 *
 * §5.4: while a secret is being rotated each delivery carries one `v1` per
 * valid secret, and the receiver accepts the payload if ANY `v1` matches ANY
 * secret it holds. The timestamp must be within a tolerance of the receiver's
 * own clock, so a captured delivery cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const INTEGRATION_HEADER = 'x-service-integration';
/** Deliveries whose `t` is further than this from our clock are refused (the contract suggests 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureVerdict =
  | { ok: true; t: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' | 'no-secret' };

/** The hex HMAC of one secret over `"<t>.<raw body>"` (the raw bytes, never re-serialised JSON). */
export function signatureOf(secret: string, t: number, rawBody: Buffer | string): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), body])).digest('hex');
}

/** A header as the platform sends it: one `v1` per secret (tests and forged deliveries use it). */
export function signatureHeaderFor(secrets: readonly string[], t: number, rawBody: Buffer | string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${signatureOf(s, t, rawBody)}`)].join(',');
}

/** §5.4: accepted when any `v1` matches any of `secrets` and `t` is within the tolerance of `nowSeconds`. */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer | string,
  secrets: readonly string[],
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignatureVerdict {
  if (!header) return { ok: false, reason: 'missing' };
  if (secrets.length === 0) return { ok: false, reason: 'no-secret' };
  let t: number | null = null;
  const given: Buffer[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) given.push(Buffer.from(value, 'hex'));
  }
  if (t === null || given.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return { ok: false, reason: 'stale' };
  const stamp = t;
  const match = secrets.some((secret) => {
    const expected = Buffer.from(signatureOf(secret, stamp, rawBody), 'hex');
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
  return match ? { ok: true, t } : { ok: false, reason: 'mismatch' };
}
