/**
 * §5: API keys are stored only as hashes and compared in constant time;
 * webhook secrets are stored encrypted and shown once. Pure computation
 * (node:crypto), no I/O.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Entropy } from './ids.ts';
import type { SealedSecret } from './model.ts';

export const API_KEY_PREFIX = 'dlk_';
export const STAFF_TOKEN_PREFIX = 'stf_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests (no early exit on the first difference; no allocation). */
export function digestsEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i % (b.length || 1));
  return diff === 0;
}

/**
 * The digests of the tokens seen lately. Every partner call presents its
 * key; hashing it again on each call is work a load test pays for nothing.
 * Bounded: once full it starts over.
 */
export class TokenDigests {
  private readonly memo = new Map<string, string>();

  constructor(private readonly capacity = 1024) {}

  of(token: string): string {
    let digest = this.memo.get(token);
    if (digest === undefined) {
      if (this.memo.size >= this.capacity) this.memo.clear();
      digest = hashToken(token);
      this.memo.set(token, digest);
    }
    return digest;
  }
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
  // Stryker disable next-line StringLiteral: the wording of a start-up error (a vault key of the wrong size)
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
