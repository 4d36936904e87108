/**
 * The webhook signature (spec ServiceSignatureHeader x-assumption):
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 * the whole `whsec_` secret as key, one `v1=` per valid secret (§5.4).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const INTEGRATION_HEADER = 'X-Service-Integration';
/** Receivers should refuse timestamps further than this from their clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function hmacHex(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
}

/** The header value for `body` signed at unix time `t` with each secret, current first. */
export function signatureHeader(secrets: string[], t: number, body: string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmacHex(s, t, body)}`)].join(',');
}

export type Verdict = { ok: true; t: number } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

// Stryker disable all: the receiver's judge (§5.4 "the receiver accepts the payload if any matches"): only the suite's receiver, watch and certify's partner double call it, never the simulator; webhooks.signed pins the v1= values themselves
/** §5.4: accepts the payload if any `v1` matches any of the receiver's secrets, within the tolerance. */
export function verifySignature(header: string | undefined, body: string, secrets: string[], nowSeconds: number, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS): Verdict {
  if (!header) return { ok: false, reason: 'missing' };
  const parts = header.split(',').map((p) => p.trim().split('=') as [string, string | undefined]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const signatures = parts.filter(([k, v]) => k === 'v1' && v !== undefined).map(([, v]) => v!);
  if (!Number.isInteger(t) || signatures.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return { ok: false, reason: 'stale' };
  const match = secrets.some((secret) => {
    const expected = Buffer.from(hmacHex(secret, t, body), 'hex');
    return signatures.some((sig) => {
      const given = Buffer.from(sig, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  });
  return match ? { ok: true, t } : { ok: false, reason: 'mismatch' };
}
// Stryker restore all
