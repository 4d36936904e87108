/** §5.4 signature verification: any v1 matches any secret held, within the tolerance of the partner's clock. */
import { describe, expect, it } from 'vitest';
import { signatureHeaderFor, signatureOf, verifySignature, type SignatureVerdict } from './signature.ts';

const BODY = '{"type":"rates.changed","sequence":7}';
const T = 1_789_000_000;
const OLD = 'whsec_old_secret';
const NEW = 'whsec_new_secret';

const cases: [string, { header: string | undefined; secrets: string[]; now: number; body?: string }, SignatureVerdict][] = [
  ['one v1, one secret', { header: signatureHeaderFor([OLD], T, BODY), secrets: [OLD], now: T }, { ok: true, t: T }],
  ['rotation: two v1s, the partner holds only the new secret', { header: signatureHeaderFor([NEW, OLD], T, BODY), secrets: [NEW], now: T }, { ok: true, t: T }],
  ['rotation: two v1s, the partner still holds only the old secret', { header: signatureHeaderFor([NEW, OLD], T, BODY), secrets: [OLD], now: T }, { ok: true, t: T }],
  ['the partner holds both, one v1', { header: signatureHeaderFor([NEW], T, BODY), secrets: [OLD, NEW], now: T }, { ok: true, t: T }],
  ['within the tolerance (299 s late)', { header: signatureHeaderFor([OLD], T, BODY), secrets: [OLD], now: T + 299 }, { ok: true, t: T }],
  ['signed with a secret the partner does not hold', { header: signatureHeaderFor(['whsec_attacker'], T, BODY), secrets: [OLD, NEW], now: T }, { ok: false, reason: 'mismatch' }],
  ['the body was changed after signing', { header: signatureHeaderFor([OLD], T, BODY), secrets: [OLD], now: T, body: BODY.replace('7', '8') }, { ok: false, reason: 'mismatch' }],
  ['a captured delivery replayed ten minutes later', { header: signatureHeaderFor([OLD], T, BODY), secrets: [OLD], now: T + 600 }, { ok: false, reason: 'stale' }],
  ['a timestamp from the future', { header: signatureHeaderFor([OLD], T + 600, BODY), secrets: [OLD], now: T }, { ok: false, reason: 'stale' }],
  ['no header', { header: undefined, secrets: [OLD], now: T }, { ok: false, reason: 'missing' }],
  ['no secret held', { header: signatureHeaderFor([OLD], T, BODY), secrets: [], now: T }, { ok: false, reason: 'no-secret' }],
  ['no timestamp', { header: `v1=${signatureOf(OLD, T, BODY)}`, secrets: [OLD], now: T }, { ok: false, reason: 'malformed' }],
  ['no v1', { header: `t=${T}`, secrets: [OLD], now: T }, { ok: false, reason: 'malformed' }],
  ['garbage', { header: 'Bearer nonsense,,==,t=abc,v1=xyz', secrets: [OLD], now: T }, { ok: false, reason: 'malformed' }],
  ['the v0 scheme is not a signature', { header: `t=${T},v0=${signatureOf(OLD, T, BODY)}`, secrets: [OLD], now: T }, { ok: false, reason: 'malformed' }],
];

describe('verifySignature (§5.4)', () => {
  it.each(cases)('%s', (_name, { header, secrets, now, body }, want) => {
    expect(verifySignature(header, body ?? BODY, secrets, now)).toEqual(want);
  });

  it('signs the raw bytes: the same JSON re-serialised does not verify', () => {
    const raw = '{"a": 1}';
    const header = signatureHeaderFor([OLD], T, raw);
    expect(verifySignature(header, Buffer.from(raw), [OLD], T).ok).toBe(true);
    expect(verifySignature(header, JSON.stringify(JSON.parse(raw)), [OLD], T).ok).toBe(false);
  });

  it('matches the platform\'s scheme: HMAC-SHA256 over "<t>.<body>" keyed by the whole secret', async () => {
    const { createHmac } = await import('node:crypto');
    expect(signatureOf(OLD, T, BODY)).toBe(createHmac('sha256', OLD).update(`${T}.${BODY}`).digest('hex'));
  });
});
