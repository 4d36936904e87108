/**
 * What --verify accepts: a certified certificate whose signature checks with
 * a key the verifier trusts. The forgeries of issue 18 are refused: a
 * not-certified certificate edited to "certified", re-digested and re-signed
 * with a fresh key; an unsigned one; and a self-signed one is integrity only.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, issueCertificate, sha256Hex } from './certificate.ts';
import { assessCertificate, keyFingerprint, readTrustedKey, type TrustedKey } from './trust.ts';
import type { Certificate, CertificateBody, Outcome } from './types.ts';

function keys(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const platform = keys();
const trusted: TrustedKey[] = [{ source: 'platform.pem', pem: platform.publicKey }];

function body(outcomes: Outcome[]): CertificateBody {
  const verdict = outcomes.includes('fail') ? 'not-certified' : outcomes.includes('not_observed') ? 'certified-with-gaps' : 'certified';
  const plan = { seed: 42, durationSeconds: 60, steps: [{ id: 'ready', title: 'Receiver up', expects: '2xx' }], parameters: { rate_x: 7100 } };
  return {
    runId: '20261121-060000-0000002a',
    issuedAt: '2026-11-21T11:30:10.000+05:30',
    apiVersion: '2026-09',
    specDigest: 'a'.repeat(64),
    seed: 42,
    target: { kind: 'in-process', baseUrl: 'http://127.0.0.1:1/api/integrations/v1' },
    partner: { name: 'Acme PMS', version: '4.2.0', commit: null, webhookUrl: 'http://127.0.0.1:2/webhook', integration: { id: 4, slug: 'certify-0000002a' }, stateUrl: null },
    certify: { version: '0.1.0', sourceDigest: 'c'.repeat(64) },
    plan,
    planDigest: sha256Hex(canonicalJson(plan)),
    results: outcomes.map((outcome, i) => ({ id: `receiver.r${i}`, title: `R${i}`, clauses: ['6.R2'], outcome, summary: outcome })),
    drills: [],
    verdict,
    reportDigest: 'b'.repeat(64),
  };
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const certified = () => clone(issueCertificate(body(['pass', 'pass']), platform.privateKey));
const notCertified = () => clone(issueCertificate(body(['pass', 'fail']), platform.privateKey));

describe('--verify: what a certificate says', () => {
  it('names every drill that did not run, with why', () => {
    const b = body(['pass', 'not_observed']);
    b.drills = [{ id: 'drill.raw-body', outcome: 'pass', expected: '2xx', did: 'answered 2xx' }, { id: 'drill.crash-restart', outcome: 'not_run', expected: 'kept', did: 'Not run: needs --partner-command.' }];
    const a = assessCertificate(clone(issueCertificate(b, platform.privateKey)), { trusted, allowGaps: true });
    expect(a.ok).toBe(true);
    expect(a.details).toContain('  drill not run: drill.crash-restart: Not run: needs --partner-command.');
    expect(a.details.join('\n')).not.toMatch(/drill\.raw-body/);
  });
});

describe('--verify: trust', () => {
  it('a certified certificate signed by the platform\'s key is accepted with that key, and says what was tested', () => {
    const a = assessCertificate(certified(), { trusted });
    expect(a).toMatchObject({ ok: true, trust: 'trusted' });
    expect(a.message).toBe(`certified; signed by a trusted key (platform.pem, ${keyFingerprint(platform.publicKey)})`);
    expect(a.details.join('\n')).toMatch(/partner software +Acme PMS 4\.2\.0/);
    expect(a.details.join('\n')).toMatch(/plan +seed 42, sha256 [0-9a-f]{64}/);
    expect(a.details.join('\n')).toMatch(/certifier +0\.1\.0, sources sha256 c{64}/);
  });

  it('checked only against its own embedded key it is "self-signed: integrity only, not trust": refused unless --allow-self-signed', () => {
    const a = assessCertificate(certified(), { trusted: [] });
    expect(a).toMatchObject({ ok: false, trust: 'self-signed' });
    expect(a.message).toMatch(/^self-signed: integrity only, not trust/);
    expect(assessCertificate(certified(), { trusted: [], allowSelfSigned: true })).toMatchObject({ ok: true, trust: 'self-signed' });
  });

  it('forgery: a not-certified certificate edited to "certified", re-digested and re-signed with a fresh key is refused', () => {
    const forged = notCertified();
    forged.body.results = forged.body.results.map((r) => ({ ...r, outcome: 'pass' as const, summary: 'pass' }));
    forged.body.verdict = 'certified';
    const resigned = clone(issueCertificate(forged.body, keys().privateKey));
    expect(assessCertificate(resigned, { trusted })).toMatchObject({ ok: false, trust: 'untrusted' });
    expect(assessCertificate(resigned, { trusted }).message).toMatch(/^signed by a key you do not trust \(sha256:[0-9a-f]{64}\)/);
    expect(assessCertificate(resigned, { trusted: [] })).toMatchObject({ ok: false, trust: 'self-signed' });
    // Re-digested but left with the platform's signature: the signature no longer checks.
    const redigested = clone(forged) as Certificate;
    redigested.digest = issueCertificate(forged.body).digest;
    expect(assessCertificate(redigested, { trusted })).toMatchObject({ ok: false, trust: 'broken' });
  });

  it('forgery: an unsigned certificate is refused, whatever the flags', () => {
    const unsigned = clone(issueCertificate(body(['pass', 'pass'])));
    for (const options of [{ trusted }, { trusted: [] }, { trusted: [], allowSelfSigned: true, allowGaps: true }]) {
      const a = assessCertificate(unsigned, options);
      expect(a).toMatchObject({ ok: false, trust: 'unsigned' });
      expect(a.message).toMatch(/^unsigned/);
    }
  });

  it('a genuine not-certified certificate is refused; certified-with-gaps only with --allow-gaps', () => {
    expect(assessCertificate(notCertified(), { trusted })).toMatchObject({ ok: false, trust: 'trusted' });
    expect(assessCertificate(notCertified(), { trusted }).message).toMatch(/the verdict is not-certified$/);
    const gaps = clone(issueCertificate(body(['pass', 'not_observed']), platform.privateKey));
    expect(assessCertificate(gaps, { trusted }).ok).toBe(false);
    expect(assessCertificate(gaps, { trusted }).message).toMatch(/--allow-gaps/);
    expect(assessCertificate(gaps, { trusted, allowGaps: true }).ok).toBe(true);
  });

  it('a verdict that does not follow from the results, or a plan digest that does not match the plan, is refused even when self-signed is allowed', () => {
    const edited = body(['pass', 'fail']);
    edited.verdict = 'certified';
    expect(assessCertificate(clone(issueCertificate(edited, keys().privateKey)), { trusted: [], allowSelfSigned: true }).message).toMatch(/does not follow from its 2 results/);
    const planEdited = body(['pass']);
    planEdited.plan.parameters = { rate_x: 1 };
    expect(assessCertificate(clone(issueCertificate(planEdited, platform.privateKey)), { trusted }).message).toMatch(/plan digest does not match/);
  });

  it('trusted keys: an Ed25519 public key, or the public half of a private one; anything else is named and refused', () => {
    expect(readTrustedKey('a.pem', platform.privateKey).pem).toBe(platform.publicKey);
    expect(() => readTrustedKey('rsa.pem', generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString())).toThrow(/rsa\.pem is not an Ed25519 public key/);
    expect(() => readTrustedKey('junk.pem', 'junk')).toThrow(/junk\.pem is not a PEM public key/);
  });
});
