/**
 * What a verifier accepts (`npm run certify -- --verify`). Integrity (the
 * digest and a signature that checks) says only that nobody changed the
 * certificate after its signer made it; anyone can make a key, so a
 * certificate checked against the key it carries proves nothing about who
 * signed it. Trust comes from the verifier's own keys: `--public-key FILE`
 * or every key of `--trust-dir DIR` (the platform's published keys).
 *
 * Accepted (exit 0) only when all hold:
 * 1. the digest over the body holds and the signature checks;
 * 2. the signature checks with a trusted key (or, with `allowSelfSigned`, the
 *    embedded one: "self-signed: integrity only, not trust");
 * 3. the verdict follows from the results and the plan digest from the plan
 *    (an honest signer cannot have written anything else);
 * 4. the verdict is `certified` (or `certified-with-gaps` with `allowGaps`).
 * An unsigned certificate is never accepted: anyone can write one.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex, verifyCertificate } from './certificate.ts';
import { statementOf } from './issuance.ts';
import type { Certificate, Outcome, Verdict } from './types.ts';

export interface TrustedKey {
  /** Where the key came from (a file name), for the report. */
  source: string;
  pem: string;
}

export interface TrustOptions {
  trusted: TrustedKey[];
  allowSelfSigned?: boolean;
  allowGaps?: boolean;
}

export interface Assessment {
  ok: boolean;
  /** The first line: the decision and its reason. */
  message: string;
  /** What the certificate says, for people (only when it could be read). */
  details: string[];
  trust: 'trusted' | 'self-signed' | 'unsigned' | 'untrusted' | 'broken';
}

/** `sha256:<hex>` of the key's SubjectPublicKeyInfo: how docs/certification.md and messages name a key. */
export function keyFingerprint(key: KeyObject | string): string {
  const object = typeof key === 'string' ? createPublicKey(key) : key;
  return `sha256:${createHash('sha256').update(object.export({ type: 'spki', format: 'der' })).digest('hex')}`;
}

/** Reads a trusted public key; throws naming the source when it is not an Ed25519 public key (PEM). */
export function readTrustedKey(source: string, pem: string): TrustedKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (e) {
    throw new Error(`${source} is not a PEM public key (${(e as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${source} is not an Ed25519 public key (${key.asymmetricKeyType})`);
  // A private key reads as its public half; keep only that.
  return { source, pem: key.export({ type: 'spki', format: 'pem' }).toString() };
}

const VERDICTS: readonly Verdict[] = ['certified', 'certified-with-gaps', 'not-certified'];

function verdictFrom(outcomes: Outcome[]): Verdict {
  if (outcomes.includes('fail')) return 'not-certified';
  return outcomes.includes('not_observed') ? 'certified-with-gaps' : 'certified';
}

export function assessCertificate(file: unknown, options: TrustOptions): Assessment {
  const integrity = verifyCertificate(file);
  if (!integrity.ok) return { ok: false, message: integrity.message, details: [], trust: 'broken' };
  const cert = file as Certificate;
  const details = describe(cert);
  if (!integrity.signed) {
    return { ok: false, message: 'unsigned: the digest holds, but anyone can write an unsigned certificate; it proves nothing', details, trust: 'unsigned' };
  }
  const signer = keyFingerprint(cert.signature!.publicKey);
  let trust: Assessment['trust'];
  let whose: string;
  if (options.trusted.length > 0) {
    const match = options.trusted.find((k) => verifyCertificate(file, k.pem).ok);
    if (!match) {
      return { ok: false, message: `signed by a key you do not trust (${signer}); it checks with none of the ${options.trusted.length} trusted key${options.trusted.length === 1 ? '' : 's'} (${options.trusted.map((k) => k.source).join(', ')})`, details, trust: 'untrusted' };
    }
    trust = 'trusted';
    whose = `signed by a trusted key (${match.source}, ${keyFingerprint(match.pem)})`;
  } else {
    trust = 'self-signed';
    whose = `self-signed: integrity only, not trust (checked with the key it carries, ${signer})`;
    if (!options.allowSelfSigned) {
      return { ok: false, message: `${whose}; give the signer's key with --public-key or --trust-dir, or accept integrity alone with --allow-self-signed`, details, trust };
    }
  }
  const body = cert.body;
  const outcomes = Array.isArray(body.results) ? body.results.map((r) => r.outcome) : [];
  if (!VERDICTS.includes(body.verdict) || outcomes.length === 0 || body.verdict !== verdictFrom(outcomes)) {
    return { ok: false, message: `${whose}, but the verdict "${body.verdict}" does not follow from its ${outcomes.length} results`, details, trust };
  }
  if (typeof body.planDigest === 'string' && body.planDigest !== sha256Hex(canonicalJson(body.plan))) {
    return { ok: false, message: `${whose}, but the plan digest does not match the plan it carries`, details, trust };
  }
  if (body.issuance?.mode === 'regrade' && typeof body.evidenceDigest !== 'string') {
    return { ok: false, message: `${whose}, but it says it re-graded an evidence bundle and names none`, details, trust };
  }
  if (body.verdict === 'not-certified') return { ok: false, message: `${whose}; the verdict is not-certified`, details, trust };
  if (body.verdict === 'certified-with-gaps' && !options.allowGaps) {
    return { ok: false, message: `${whose}; the verdict is certified-with-gaps (some requirements not observed): accept it with --allow-gaps`, details, trust };
  }
  return { ok: true, message: `${body.verdict}; ${whose}`, details, trust };
}

/** Who graded what: a certify run, or a platform's re-grade of a run's evidence bundle. */
function issuedBy(b: Certificate['body']): string {
  const evidence = b.evidenceDigest ? `evidence sha256 ${b.evidenceDigest}` : 'no evidence bundle named';
  if (b.issuance?.mode === 'regrade') {
    const run = b.issuance.runCertifier;
    return `a re-grade of a run's evidence (${evidence}) by the certifier above, ${b.issuance.regradedAt}; the run was graded by ${run?.version ?? '?'}, sources sha256 ${run?.sourceDigest ?? '?'}`;
  }
  return `a certify run (${evidence})`;
}

/** What a verifier learns from a certificate whose digest holds. */
function describe(cert: Certificate): string[] {
  const b = cert.body;
  const p = b.partner ?? ({} as Partial<Certificate['body']['partner']>);
  const software = p.name ? `${p.name}${p.version ? ` ${p.version}` : ' (no version)'}${p.commit ? `, commit ${p.commit}` : ''}` : 'not named (the run had no --partner-name)';
  const count = (o: Outcome) => (b.results ?? []).filter((r) => r.outcome === o).length;
  return [
    `partner software  ${software}`,
    `tested at         ${p.webhookUrl ?? '?'} (integration ${p.integration?.slug ?? '?'}), target ${b.target?.kind ?? '?'}`,
    `run               ${b.runId}, issued ${b.issuedAt}`,
    `API               ${b.apiVersion}, spec sha256 ${b.specDigest}`,
    `certifier         ${b.certify ? `${b.certify.version}, sources sha256 ${b.certify.sourceDigest}` : 'not recorded (an older certificate)'}`,
    `plan              seed ${b.seed}${b.planDigest ? `, sha256 ${b.planDigest}` : ''}`,
    `issued by         ${issuedBy(b)}`,
    `issuance          ${statementOf(b.issuance)}`,
    ...(b.evidenceKey ? [`evidence signed   by the run key ${b.evidenceKey} when the bundle was written`] : []),
    `verdict           ${b.verdict}: ${count('pass')} pass, ${count('fail')} fail, ${count('not_observed')} not observed`,
    ...(b.results ?? []).filter((r) => r.outcome !== 'pass').map((r) => `  ${r.outcome === 'fail' ? 'FAIL' : 'N/O '} ${r.id}`),
    // Which drills ran (the crash drill only with --partner-command): a gap a verifier should see.
    ...(b.drills ?? []).filter((d) => d.outcome === 'not_run').map((d) => `  drill not run: ${d.id}: ${d.did}`),
  ];
}
