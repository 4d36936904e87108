/**
 * The run key: an Ed25519 key pair a certify run makes for itself when it
 * starts and forgets when it ends. The run signs its evidence bundle with it
 * at the moment the bundle is written, and the run's certificate names it
 * (`evidenceKey`), so the evidence is bound to what was observed then: a
 * bundle edited afterwards (its subject, an observation, an outcome), even
 * re-sealed with a fresh SHA-256, no longer verifies with the key the
 * certificate names, and nobody holds that key's private half any more.
 *
 * What it does not prove: that the run itself was honest. A partner who runs
 * a modified certifier can make a key and sign whatever it likes; the
 * certificate then says who signed it (trust.ts) and how it was issued.
 */
import { generateKeyPairSync, sign, verify, createPublicKey, type KeyObject } from 'node:crypto';
import { keyFingerprint } from './trust.ts';

/** The public half as a bundle carries it. */
export interface RunKeyRecord {
  algorithm: 'Ed25519';
  /** SPKI, PEM. */
  publicKey: string;
  /** `sha256:<hex>` of the SubjectPublicKeyInfo: how the certificate names the key. */
  fingerprint: string;
}

export interface RunKey {
  record: RunKeyRecord;
  /** Signs `digest` (the bundle's hex digest, as UTF-8 bytes); base64. */
  sign(digest: string): string;
}

/** A fresh run key; its private half never leaves this object. */
export function newRunKey(): RunKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const record: RunKeyRecord = { algorithm: 'Ed25519', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), fingerprint: keyFingerprint(publicKey) };
  return { record, sign: (digest) => sign(null, Buffer.from(digest, 'utf8'), privateKey).toString('base64') };
}

/**
 * Checks a signature over `digest` with the key a bundle carries: null when it
 * verifies, else why not (the key unreadable, not the one its fingerprint
 * names, or the signature not made with it over this digest).
 */
export function runKeySignatureProblem(record: Partial<RunKeyRecord> | undefined, digest: string, signature: unknown): string | null {
  if (!record || typeof record.publicKey !== 'string' || typeof record.fingerprint !== 'string') return 'it carries no run key (a bundle from before run keys, or one stripped of it)';
  if (typeof signature !== 'string' || signature === '') return 'it is not signed with its run key';
  let key: KeyObject;
  try {
    key = createPublicKey(record.publicKey);
  } catch (e) {
    return `its run key cannot be read (${(e as Error).message})`;
  }
  if (key.asymmetricKeyType !== 'ed25519') return `its run key is ${key.asymmetricKeyType}, not Ed25519`;
  if (keyFingerprint(key) !== record.fingerprint) return `its run key is ${keyFingerprint(key)}, not the ${record.fingerprint} it names`;
  let ok = false;
  try {
    ok = verify(null, Buffer.from(digest, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    ok = false;
  }
  return ok ? null : `its signature does not verify with its run key ${record.fingerprint} over its contents: it was changed after the run signed it`;
}
