/**
 * §5: API keys are stored only as hashes and compared in constant time;
 * webhook secrets are stored encrypted and shown once. Pure computation
 * (node:crypto), no I/O.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Entropy } from './ids.ts';
import type { SealedSecret } from './model.ts';

export const API_KEY_PREFIX = 'dlk_';
export const STAFF_TOKEN_PREFIX = 'stf_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function newApiKey(entropy: Entropy): string {
  return API_KEY_PREFIX + entropy.hex(24);
}

export function newStaffToken(entropy: Entropy): string {
  return STAFF_TOKEN_PREFIX + entropy.hex(24);
}

export function newWebhookSecret(entropy: Entropy): string {
  return WEBHOOK_SECRET_PREFIX + entropy.hex(24);
}

/** Encrypts secrets at rest; the key never leaves the process that holds it. */
export interface Vault {
  seal(plain: string): SealedSecret;
  open(sealed: SealedSecret): string;
}

/** AES-256-GCM with a 32-byte key: `iv.tag.ciphertext`, base64url each. */
export function aesVault(key: Buffer): Vault {
  if (key.length !== 32) throw new Error('aesVault: the key must be 32 bytes');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
    },
    open(sealed) {
      const [iv, tag, body] = sealed.split('.').map((s) => Buffer.from(s, 'base64url')) as [Buffer, Buffer, Buffer];
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    },
  };
}
