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
import { evidenceBundle, regradeCertificateBody, regradeEvidence, seal, type EvidenceBundle } from './evidence.ts';
import { emptyObservations, gradeAll, summarise, verdictOf, type Observations } from './grade.ts';
import { assessCertificate } from './trust.ts';
import type { CertReport, DeliveryEvidence, JournalEntry } from './types.ts';

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

function honest(): EvidenceBundle {
  const o = observations();
  return evidenceBundle(report(o), o, 'b'.repeat(64));
}

/** An editor who also seals the bundle again, so the digest alone does not give it away. */
function resealed(edit: (b: EvidenceBundle) => void): EvidenceBundle {
  const b = honest();
  edit(b);
  const { digest: _digest, ...rest } = b;
  return seal(rest);
}

const platform = generateKeyPairSync('ed25519');
const platformPrivate = platform.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const platformPublic = platform.publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('evidence bundle re-grade', () => {
  it('an honest bundle grades as recorded; its certificate binds the bundle digest and --verify trusts it with the platform key', () => {
    const bundle = honest();
    const r = regradeEvidence(JSON.parse(JSON.stringify(bundle)));
    if (!r.ok) throw new Error(r.reasons.join('\n'));
    expect(r.results.map((x) => x.outcome)).toEqual(bundle.results.map((x) => x.outcome));
    expect(r.verdict).toBe(bundle.verdict);
    // Not graded on nothing: a pass and a fail among them.
    expect(r.results.find((x) => x.id === 'receiver.refuses-bad-signature')!.outcome).toBe('pass');
    const grader = { version: '0.2.0', sourceDigest: 'e'.repeat(64) };
    const body = regradeCertificateBody(r, grader, '2026-11-22T10:00:00.000+05:30');
    expect(body).toMatchObject({ evidenceDigest: bundle.digest, reportDigest: 'b'.repeat(64), certify: grader, issuance: { mode: 'regrade', runCertifier: bundle.certify } });
    const certificate = JSON.parse(JSON.stringify(issueCertificate(body, platformPrivate)));
    const a = assessCertificate(certificate, { trusted: [{ source: 'platform.pem', pem: platformPublic }], allowGaps: true });
    expect(a.message, a.details.join('\n')).toMatch(new RegExp(`^${body.verdict}; signed by a trusted key`));
    expect(a.details.join('\n')).toContain(`issued by         a re-grade of a run's evidence (evidence sha256 ${bundle.digest})`);
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
    const r1 = regradeEvidence(edited);
    expect(r1.ok).toBe(false);
    expect(!r1.ok && r1.reasons[0]).toMatch(/^tampered with: the bundle digests to [0-9a-f]{64}, it says [0-9a-f]{64}/);
    const r2 = regradeEvidence(resealed(flip));
    expect(r2.ok).toBe(false);
    expect(!r2.ok && r2.reasons.join('\n')).toMatch(/its grade does not follow: \S+ is recorded pass, its evidence grades (fail|not_observed)/);
    // The verdict edited alone does not follow from the recorded results either.
    const r3 = regradeEvidence(resealed((b) => void (b.verdict = 'certified')));
    expect(!r3.ok && r3.reasons.join('\n')).toMatch(/the verdict "certified" does not follow from its own recorded results/);
  });

  it('a recorded delivery taken out is refused, sealed again or not: the platform delivers every sequence in order', () => {
    const drop = (b: EvidenceBundle) => void (b.observations.platformDeliveries = b.observations.platformDeliveries.filter((d) => d.sequence !== 2));
    const unsealed = honest();
    drop(unsealed);
    expect(regradeEvidence(unsealed).ok).toBe(false);
    const r = regradeEvidence(resealed(drop));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reasons).toEqual([expect.stringMatching(/^tampered with: the platform's delivery log has no record of sequence 2 below sequence 6, which was acknowledged/)]);
    // The superseded sequence 4 was never delivered and is no gap (§3.3).
    expect(!r.ok && r.reasons.join('\n')).not.toMatch(/sequence 4/);
  });

  it('a recorded call taken out is refused: the journal numbers calls without a gap', () => {
    const r = regradeEvidence(resealed((b) => void (b.observations.journal = b.observations.journal!.filter((e) => e.n !== 3))));
    expect(!r.ok && r.reasons.join('\n')).toMatch(/the call journal goes from call #2 to #4; a recorded call was taken out or moved/);
  });

  it('a running simulator\'s bundle (no journal, a delivery log cut to its last 200) is not held to the in-process records', () => {
    const b = resealed((x) => {
      x.target = { kind: 'running', baseUrl: 'http://127.0.0.1:1/api/integrations/v1' };
      x.observations.platformDeliveries = x.observations.platformDeliveries.slice(2);
    });
    expect(regradeEvidence(b).ok).toBe(true);
  });

  it('what is not a bundle is refused, saying what it is not', () => {
    expect(regradeEvidence(null)).toEqual({ ok: false, reasons: [expect.stringMatching(/^not an evidence bundle/)] });
    expect(regradeEvidence({ format: 'partner-api-certificate/1' })).toEqual({ ok: false, reasons: [expect.stringMatching(/^not an evidence bundle/)] });
    const { observations: _o, ...partial } = honest();
    expect(regradeEvidence(partial)).toEqual({ ok: false, reasons: [expect.stringMatching(/^not a whole evidence bundle: observations missing/)] });
  });
});
