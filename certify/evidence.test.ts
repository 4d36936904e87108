/**
 * The evidence bundle and its re-grade (`--regrade`): an honest bundle grades
 * as recorded and yields a certificate, bound to the bundle's digest, that
 * --verify trusts with the platform's key; an edited bundle is refused with
 * the reason, whether or not the editor sealed it again: an outcome flipped,
 * a recorded delivery or call taken out.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, issueCertificate, sha256Hex } from './certificate.ts';
import { evidenceBundle, regradeCertificateBody, regradeEvidence, seal } from './evidence.ts';
import type { EvidenceBundle } from './evidence-bundle.ts';
import { bindingProblems } from './evidence-binding.ts';
import { emptyObservations, gradeAll, summarise, verdictOf, type Observations } from './grade.ts';
import { newRunKey } from './run-key.ts';
import { certificateBody } from './run.ts';
import { assessCertificate } from './trust.ts';
import type { CertReport, Certificate, DeliveryEvidence, JournalEntry } from './types.ts';
import { renderReportJson } from './write.ts';

const T0 = Date.parse('2026-11-21T06:00:00Z');

function call(n: number, operation: string, extra: Partial<JournalEntry> = {}): JournalEntry {
  return {
    n, integration_id: 4, at: T0 + n * 1_000, operation, method: 'GET', path: '/api/integrations/v1/x', query: {},
    idempotency_key: null, body_fingerprint: null, status: 200, code: null, credential: 'current', retry_after: null, ...extra,
  };
}

function delivered(sequence: number, status = 200): DeliveryEvidence {
  return { source: 'platform', name: 'delivery', at: new Date(T0 + sequence * 500).toISOString(), type: 'event', sequence, status };
}

function observations(): Observations {
  return {
    ...emptyObservations(),
    journal: [
      call(1, 'getMe'),
      call(2, 'createBooking', { method: 'POST', idempotency_key: 'key-00000001', body_fingerprint: 'a', status: 201 }),
      call(3, 'createBooking', { method: 'POST', idempotency_key: 'key-00000002', body_fingerprint: 'b', status: 201 }),
      call(4, 'getRatesSnapshot', { watermark: 2 }),
      call(5, 'listEvents', { query: { after_sequence: '2', limit: '100' }, cursor: { after_sequence: 2, next_after_sequence: 6, has_more: false, first: 3, last: 6 } }),
    ],
    probes: [
      { source: 'probe', name: 'valid-ping', at: new Date(T0).toISOString(), type: 'ping', sequence: null, status: 200 },
      { source: 'probe', name: 'wrong-signature', at: new Date(T0).toISOString(), type: 'rates.changed', sequence: 3, status: 400 },
    ],
    platformDeliveries: [delivered(1), delivered(2), delivered(3), delivered(5), delivered(6)],
    superseded: [4],
  };
}

function report(o: Observations): CertReport {
  const results = gradeAll(o);
  const plan = { seed: 42, durationSeconds: 60, steps: [{ id: 'ready', title: 'Receiver up', expects: '2xx' }], parameters: {} };
  return {
    runId: '20261121-060000-0000002a', startedAt: '2026-11-21T11:30:00.000+05:30', finishedAt: '2026-11-21T11:31:00.000+05:30',
    apiVersion: '2026-09', specDigest: 'c'.repeat(64),
    target: { kind: 'in-process', baseUrl: 'http://127.0.0.1:1/api/integrations/v1' },
    partner: { name: 'Acme PMS', version: '4.2.0', commit: null, webhookUrl: 'http://127.0.0.1:2/webhook', integration: { id: 4, slug: 'certify-x' }, stateUrl: null },
    certify: { version: '0.1.0', sourceDigest: 'd'.repeat(64) },
    plan, planDigest: sha256Hex(canonicalJson(plan)),
    drills: [], results, summary: { ...summarise(results), ms: 60_000 }, verdict: verdictOf(results), warnings: [],
  };
}

const platform = generateKeyPairSync('ed25519');
const platformPrivate = platform.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const platformPublic = platform.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const partnerPrivate = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A run as certify writes it: the bundle signed with the run's key as it is made, and the run's certificate naming that key. */
function honestRun(edit: (r: CertReport) => void = () => undefined): { bundle: EvidenceBundle; certificate: Certificate } {
  const o = observations();
  const r = report(o);
  edit(r);
  const runKey = newRunKey();
  const reportJson = renderReportJson(r);
  const bundle = evidenceBundle(reportJson, o, runKey);
  const certificate = JSON.parse(JSON.stringify(issueCertificate(certificateBody(JSON.parse(reportJson) as CertReport, sha256Hex(reportJson), bundle.digest, runKey.record.fingerprint), partnerPrivate))) as Certificate;
  return { bundle: JSON.parse(JSON.stringify(bundle)) as EvidenceBundle, certificate };
}

const run = honestRun();

function honest(): EvidenceBundle {
  return JSON.parse(JSON.stringify(run.bundle)) as EvidenceBundle;
}

/**
 * An editor who also seals the bundle again, so the digest alone does not give it away; the run key's private half
 * is gone with the run, so it signs with a key of its own (or, `keep`, leaves the run's signature as it was).
 */
function resealed(edit: (b: EvidenceBundle) => void, keep = false): EvidenceBundle {
  const b = honest();
  edit(b);
  const { digest: _digest, signature, ...rest } = b;
  if (!keep) return seal({ ...rest, runKey: forger.record }, forger);
  const { digest } = seal(rest, forger);
  return { ...rest, digest, signature } as EvidenceBundle;
}

const forger = newRunKey();

describe('evidence bundle re-grade', () => {
  it('an honest bundle grades as recorded; its certificate binds the bundle digest and --verify trusts it with the platform key', () => {
    const bundle = honest();
    const r = regradeEvidence(JSON.parse(JSON.stringify(bundle)), run.certificate);
    if (!r.ok) throw new Error(r.reasons.join('\n'));
    expect(r.results.map((x) => x.outcome)).toEqual(bundle.results.map((x) => x.outcome));
    expect(r.verdict).toBe(bundle.verdict);
    // Not graded on nothing: a pass and a fail among them.
    expect(r.results.find((x) => x.id === 'receiver.refuses-bad-signature')!.outcome).toBe('pass');
    const grader = { version: '0.2.0', sourceDigest: 'e'.repeat(64) };
    const body = regradeCertificateBody(r, grader, '2026-11-22T10:00:00.000+05:30');
    expect(body).toMatchObject({ evidenceDigest: bundle.digest, evidenceKey: bundle.runKey.fingerprint, reportDigest: run.certificate.body.reportDigest, certify: grader, issuance: { mode: 'regrade', runCertifier: bundle.certify, statement: 're-graded from a partner\'s bundle: the platform vouches for the grading, not the observation' } });
    const certificate = JSON.parse(JSON.stringify(issueCertificate(body, platformPrivate)));
    const a = assessCertificate(certificate, { trusted: [{ source: 'platform.pem', pem: platformPublic }], allowGaps: true });
    expect(a.message, a.details.join('\n')).toMatch(new RegExp(`^${body.verdict}; signed by a trusted key`));
    expect(a.details.join('\n')).toContain(`issued by         a re-grade of a run's evidence (evidence sha256 ${bundle.digest})`);
    expect(a.details.join('\n')).toContain('issuance          re-graded from a partner\'s bundle: the platform vouches for the grading, not the observation');
    // The run's own certificate says it was observed, and matches its bundle.
    expect(assessCertificate(run.certificate, { trusted: [], allowSelfSigned: true, allowGaps: true }).details.join('\n')).toContain('issuance          observed by the platform: ');
    expect(bindingProblems(run.certificate, bundle)).toEqual([]);
    expect(bindingProblems(certificate, bundle)).toEqual([]);
    // The same evidence edited after the platform signed: the certificate no longer matches it.
    expect(assessCertificate({ ...certificate, body: { ...certificate.body, evidenceDigest: '0'.repeat(64) } }, { trusted: [{ source: 'platform.pem', pem: platformPublic }], allowGaps: true }).message).toMatch(/digest mismatch/);
  });

  it('an outcome flipped is refused: by the digest, and, sealed again, because the grade does not follow', () => {
    const flip = (b: EvidenceBundle) => {
      const failed = b.results.find((x) => x.outcome !== 'pass')!;
      failed.outcome = 'pass';
    };
    const edited = honest();
    flip(edited);
    const r1 = regradeEvidence(edited, run.certificate);
    expect(r1.ok).toBe(false);
    expect(!r1.ok && r1.reasons[0]).toMatch(/^tampered with: the bundle digests to [0-9a-f]{64}, it says [0-9a-f]{64}/);
    const r2 = regradeEvidence(resealed(flip), run.certificate);
    expect(r2.ok).toBe(false);
    expect(!r2.ok && r2.reasons.join('\n')).toMatch(/its grade does not follow: \S+ is recorded pass, its evidence grades (fail|not_observed)/);
    // The verdict edited alone does not follow from the recorded results either.
    const r3 = regradeEvidence(resealed((b) => void (b.verdict = 'certified')), run.certificate);
    expect(!r3.ok && r3.reasons.join('\n')).toMatch(/the verdict "certified" does not follow from its own recorded results/);
  });

  it('a recorded delivery taken out is refused, sealed again or not: the platform delivers every sequence in order', () => {
    const drop = (b: EvidenceBundle) => void (b.observations.platformDeliveries = b.observations.platformDeliveries.filter((d) => d.sequence !== 2));
    const unsealed = honest();
    drop(unsealed);
    expect(regradeEvidence(unsealed, run.certificate).ok).toBe(false);
    const r = regradeEvidence(resealed(drop), run.certificate);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reasons).toContainEqual(expect.stringMatching(/^tampered with: the platform's delivery log has no record of sequence 2 below sequence 6, which was acknowledged/));
    // The superseded sequence 4 was never delivered and is no gap (§3.3).
    expect(!r.ok && r.reasons.join('\n')).not.toMatch(/sequence 4/);
  });

  it('a recorded call taken out is refused: the journal numbers calls without a gap', () => {
    const r = regradeEvidence(resealed((b) => void (b.observations.journal = b.observations.journal!.filter((e) => e.n !== 3))), run.certificate);
    expect(!r.ok && r.reasons.join('\n')).toMatch(/the call journal goes from call #2 to #4; a recorded call was taken out or moved/);
  });

  it('a running simulator\'s bundle (no journal, a delivery log cut to its last 200) is not held to the in-process records', () => {
    const b = honest();
    b.target = { kind: 'running', baseUrl: 'http://127.0.0.1:1/api/integrations/v1' };
    b.observations.platformDeliveries = b.observations.platformDeliveries.slice(2);
    const { digest: _digest, signature: _signature, ...rest } = b;
    const key = newRunKey();
    const bundle = seal({ ...rest, runKey: key.record }, key);
    const certificate = issueCertificate({ ...run.certificate.body, target: b.target, evidenceDigest: bundle.digest, evidenceKey: key.record.fingerprint }, partnerPrivate);
    const r = regradeEvidence(bundle, JSON.parse(JSON.stringify(certificate)));
    expect(r.ok, !r.ok ? r.reasons.join('\n') : '').toBe(true);
  });

  it('a bundle edited in its subject and sealed again is refused, by --regrade and against the certificate (--verify --bundle), naming the subject', () => {
    const impostor = (b: EvidenceBundle) => void (b.partner = { ...b.partner, name: 'Impostor PMS', version: '9.9.9', commit: 'deadbeef' });
    // Re-sealed, the run's signature kept: it no longer verifies over the new digest.
    const kept = resealed(impostor, true);
    const r1 = regradeEvidence(kept, run.certificate);
    expect(r1.ok).toBe(false);
    expect(!r1.ok && r1.reasons.join('\n')).toMatch(/not as the run signed it: its signature does not verify with its run key sha256:[0-9a-f]{64} over its contents/);
    expect(!r1.ok && r1.reasons.join('\n')).toMatch(/does not match the run's certificate: the subject differs: partner name "Impostor PMS" in the bundle, "Acme PMS" in the certificate/);
    // Re-sealed and re-signed with a key of the editor's own: a run key the certificate does not name.
    const resigned = resealed(impostor);
    const r2 = regradeEvidence(resigned, run.certificate);
    expect(!r2.ok && r2.reasons.join('\n')).toMatch(/the run key differs: the bundle is signed with sha256:[0-9a-f]{64}, the certificate names sha256:[0-9a-f]{64}/);
    expect(!r2.ok && r2.reasons.join('\n')).toMatch(/the subject differs: partner version "9\.9\.9" in the bundle, "4\.2\.0" in the certificate/);
    for (const b of [kept, resigned]) expect(bindingProblems(run.certificate, b).join('\n')).toMatch(/the subject differs: partner name "Impostor PMS" in the bundle/);
  });

  it('a fully consistent fabrication (outcomes, verdict and report edited to agree) is refused: the report in it is not the one the certificate names', () => {
    const fabricated = honestRun((r) => {
      r.results = r.results.map((x) => ({ ...x, outcome: 'pass' as const }));
      r.verdict = 'certified';
    });
    // The fabricated report and bundle put together with the run's real certificate.
    const bundle = resealed((b) => {
      b.reportJson = fabricated.bundle.reportJson;
      b.reportDigest = fabricated.bundle.reportDigest;
    });
    const reasons = bindingProblems(run.certificate, bundle).join('\n');
    expect(reasons).toMatch(/the report digest differs: the report in the bundle digests to [0-9a-f]{64}, the certificate names [0-9a-f]{64}/);
    const r = regradeEvidence(bundle, run.certificate);
    expect(!r.ok && r.reasons.join('\n')).toMatch(/the report digest differs/);
    // Without the run's certificate there is nothing to bind the bundle to: refused.
    const alone = regradeEvidence(honest(), null);
    expect(!alone.ok && alone.reasons.join('\n')).toMatch(/no certificate to check the bundle against/);
  });

  it('what is not a bundle is refused, saying what it is not', () => {
    expect(regradeEvidence(null, run.certificate)).toEqual({ ok: false, reasons: [expect.stringMatching(/^not an evidence bundle/)] });
    expect(regradeEvidence({ format: 'partner-api-certificate/1' }, run.certificate)).toEqual({ ok: false, reasons: [expect.stringMatching(/^not an evidence bundle/)] });
    const { observations: _o, ...partial } = honest();
    expect(regradeEvidence(partial, run.certificate)).toEqual({ ok: false, reasons: [expect.stringMatching(/^not a whole evidence bundle: observations missing/)] });
  });
});
