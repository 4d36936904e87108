/**
 * The certificate: canonical JSON, the digest over the body, the Ed25519
 * signature. An untouched certificate verifies; any change to the body, the
 * digest or the signature, or a different key, does not.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, issueCertificate, verifyCertificate } from './certificate.ts';
import type { CertificateBody } from './types.ts';

function keys(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const body: CertificateBody = {
  runId: '20261121-060000-0000002a',
  issuedAt: '2026-11-21T11:30:10.000+05:30',
  apiVersion: '2026-09',
  specDigest: 'a'.repeat(64),
  seed: 42,
  target: { kind: 'in-process', baseUrl: 'http://127.0.0.1:1/api/integrations/v1' },
  partner: { name: 'Acme PMS', version: '4.2.0', commit: '0a1b2c3', webhookUrl: 'http://127.0.0.1:2/webhook', integration: { id: 4, slug: 'certify-0000002a' }, stateUrl: null },
  certify: { version: '0.1.0', sourceDigest: 'c'.repeat(64) },
  planDigest: 'd'.repeat(64),
  plan: { seed: 42, durationSeconds: 60, steps: [{ id: 'ready', title: 'Receiver up', expects: '2xx' }], parameters: { rate_x: 7100 } },
  results: [{ id: 'usage.me-interval', title: 'GET /me once a minute', clauses: ['5.R7'], outcome: 'pass', summary: 'One GET /me.' }],
  drills: [{ id: 'drill.key-rotation', outcome: 'pass', expected: 'one call with the old key', did: 'none' }],
  verdict: 'certified',
  reportDigest: 'b'.repeat(64),
};

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('canonical JSON', () => {
  it.each([
    ['keys sorted at every depth', { b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}'],
    ['undefined members left out', { a: undefined, b: 'x' }, '{"b":"x"}'],
    ['strings escaped as JSON', { 'k"': 'line\nbreak' }, '{"k\\"":"line\\nbreak"}'],
  ])('%s', (_name, given, want) => {
    expect(canonicalJson(given)).toBe(want);
  });

  it('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
  });
});

describe('certificate', () => {
  it('an untouched signed certificate verifies with the embedded key and with the signer\'s public key', () => {
    const k = keys();
    const cert = clone(issueCertificate(body, k.privateKey));
    expect(cert.signature?.algorithm).toBe('Ed25519');
    expect(verifyCertificate(cert)).toMatchObject({ ok: true, digestOk: true, signed: true, signatureOk: true });
    expect(verifyCertificate(cert, k.publicKey).ok).toBe(true);
  });

  it('an unsigned certificate verifies on its digest alone, but not against a key', () => {
    const cert = clone(issueCertificate(body));
    expect(verifyCertificate(cert)).toMatchObject({ ok: true, signed: false });
    expect(verifyCertificate(cert, keys().publicKey)).toMatchObject({ ok: false, digestOk: true });
  });

  it.each<[string, (c: any) => void]>([
    ['a result flipped to pass', (c) => { c.body.results[0].outcome = 'fail'; }],
    ['the verdict changed', (c) => { c.body.verdict = 'not-certified'; }],
    ['the seed changed', (c) => { c.body.seed = 43; }],
    ['a plan parameter changed', (c) => { c.body.plan.parameters.rate_x = 7101; }],
    ['a field added', (c) => { c.body.note = 'trust me'; }],
  ])('a tampered body fails: %s', (_name, tamper) => {
    const cert = clone(issueCertificate(body, keys().privateKey));
    tamper(cert);
    expect(verifyCertificate(cert)).toMatchObject({ ok: false, digestOk: false });
    expect(verifyCertificate(cert).message).toMatch(/digest mismatch/);
  });

  it('a tampered body with a recomputed digest fails on the signature', () => {
    const cert = clone(issueCertificate(body, keys().privateKey));
    cert.body.verdict = 'certified-with-gaps';
    cert.digest = issueCertificate(cert.body).digest;
    expect(verifyCertificate(cert)).toMatchObject({ ok: false, digestOk: true, signatureOk: false });
  });

  it('a wrong key fails: verifying with another public key, or a signature re-made with another key but the old public key embedded', () => {
    const signer = keys();
    const other = keys();
    const cert = clone(issueCertificate(body, signer.privateKey));
    expect(verifyCertificate(cert, other.publicKey)).toMatchObject({ ok: false, signatureOk: false });
    const forged = clone(issueCertificate(body, other.privateKey));
    forged.signature!.publicKey = cert.signature!.publicKey;
    expect(verifyCertificate(forged).ok).toBe(false);
  });

  it('bad input: not a certificate, a garbled signature, a key that is not Ed25519', () => {
    expect(verifyCertificate(null).ok).toBe(false);
    expect(verifyCertificate({ format: 'x' }).message).toMatch(/not a certificate/);
    const cert = clone(issueCertificate(body, keys().privateKey));
    cert.signature!.value = 'AAAA';
    expect(verifyCertificate(cert).ok).toBe(false);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => issueCertificate(body, rsa)).toThrow(/not a PEM Ed25519 private key: this one is rsa/);
    expect(() => issueCertificate(body, 'hello')).toThrow(/not a PEM Ed25519 private key: no PEM private key in it/);
  });
});
