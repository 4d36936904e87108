/**
 * The certificate: the run's body (API version, spec digest, plan, seed,
 * every result), a SHA-256 digest over its canonical JSON, and optionally an
 * Ed25519 signature over that digest (node:crypto, PEM keys). Verification
 * recomputes the digest and checks the signature with the embedded public
 * key or one given by the verifier; it returns a verdict, never throws on a
 * bad file (only the CLI exits).
 *
 * Canonical JSON: object keys sorted by code unit at every depth, no
 * whitespace, arrays in order, undefined members left out; numbers must be
 * finite. Any change to any value changes the digest.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Certificate, CertificateBody } from './types.ts';

export const CERTIFICATE_FORMAT = 'partner-api-certificate/1';

export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON cannot hold the number ${value}`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The digest the certificate carries: SHA-256 over the canonical JSON of its body. */
export function digestOf(body: CertificateBody): string {
  return sha256Hex(canonicalJson(body));
}

/**
 * Reads a signing key: a PEM Ed25519 private key, or an error saying what
 * the text is instead (the CLI checks `--sign-key` with it before any drill).
 */
export function signingKey(privateKeyPem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch (e) {
    const reason = /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKeyPem) ? `a PEM block that cannot be read (${(e as Error).message})` : 'no PEM private key in it';
    throw new Error(`not a PEM Ed25519 private key: ${reason}; make one with \`openssl genpkey -algorithm ed25519 -out cert-key.pem\``);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`not a PEM Ed25519 private key: this one is ${key.asymmetricKeyType ?? 'not asymmetric'}`);
  return key;
}

/** Builds the certificate; signs it when a PEM private key (Ed25519) is given. Throws on a key that is not Ed25519. */
export function issueCertificate(body: CertificateBody, privateKeyPem?: string | null): Certificate {
  const digest = digestOf(body);
  if (!privateKeyPem) return { format: CERTIFICATE_FORMAT, body, digest, signature: null };
  const key = signingKey(privateKeyPem);
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  const value = sign(null, Buffer.from(digest, 'utf8'), key).toString('base64');
  return { format: CERTIFICATE_FORMAT, body, digest, signature: { algorithm: 'Ed25519', publicKey, value } };
}

export interface Verification {
  ok: boolean;
  /** One line for people: what was checked and what was found. */
  message: string;
  digestOk: boolean;
  signed: boolean;
  signatureOk: boolean | null;
}

/**
 * Checks a certificate (parsed JSON of unknown shape): the digest over its
 * body, then the signature. With `publicKeyPem`, the signature must verify
 * with that key (a certificate signed by anyone else fails); without, with
 * the embedded key. An unsigned certificate passes on its digest unless a
 * key was given.
 */
export function verifyCertificate(file: unknown, publicKeyPem?: string | null): Verification {
  const bad = (message: string, extra: Partial<Verification> = {}): Verification => ({ ok: false, message, digestOk: false, signed: false, signatureOk: null, ...extra });
  const cert = file as Partial<Certificate> | null;
  if (!cert || typeof cert !== 'object' || cert.format !== CERTIFICATE_FORMAT || typeof cert.body !== 'object' || cert.body === null || typeof cert.digest !== 'string') {
    return bad(`not a certificate: expected format "${CERTIFICATE_FORMAT}" with body and digest`);
  }
  let recomputed: string;
  try {
    recomputed = digestOf(cert.body as CertificateBody);
  } catch (e) {
    return bad(`the body cannot be digested: ${(e as Error).message}`);
  }
  if (recomputed !== cert.digest) {
    return bad(`digest mismatch: the body digests to ${recomputed}, the certificate says ${cert.digest}; the certificate was altered`);
  }
  const signature = cert.signature ?? null;
  if (signature === null) {
    if (publicKeyPem) return bad('the certificate is not signed, but a public key was given to check it with', { digestOk: true });
    return { ok: true, message: `digest ok (${recomputed}); the certificate is not signed`, digestOk: true, signed: false, signatureOk: null };
  }
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem ?? signature.publicKey);
  } catch (e) {
    return bad(`the public key cannot be read: ${(e as Error).message}`, { digestOk: true, signed: true });
  }
  if (signature.algorithm !== 'Ed25519' || key.asymmetricKeyType !== 'ed25519') {
    return bad(`the signature must be Ed25519 with an Ed25519 key (got ${signature.algorithm}, key ${key.asymmetricKeyType})`, { digestOk: true, signed: true, signatureOk: false });
  }
  let valid = false;
  try {
    valid = verify(null, Buffer.from(cert.digest, 'utf8'), key, Buffer.from(signature.value, 'base64'));
  } catch {
    valid = false;
  }
  const whose = publicKeyPem ? 'the given public key' : 'the embedded public key';
  if (!valid) return bad(`digest ok, but the signature does not verify with ${whose}`, { digestOk: true, signed: true, signatureOk: false });
  return { ok: true, message: `digest ok (${recomputed}); Ed25519 signature verified with ${whose}`, digestOk: true, signed: true, signatureOk: true };
}
