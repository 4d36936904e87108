/**
 * A certificate against the evidence it claims (issue 28 items 4 and 5): the
 * run's certificate names the run key that signed its evidence bundle, the
 * bundle's digest and report.json's digest, and the subject observed (the
 * partner software and the webhook URL it ran at). `bindingProblems` lists
 * every way a bundle does not match: `--regrade` refuses such a bundle, and
 * `--verify CERT --bundle FILE` exits 1 naming the mismatch. Pure.
 */
import { sha256Hex, verifyCertificate } from './certificate.ts';
import { evidenceDigest, type EvidenceBundle } from './evidence-bundle.ts';
import { runKeySignatureProblem } from './run-key.ts';
import type { Certificate, PartnerIdentity } from './types.ts';

/** The subject: who was observed, as the certificate and the bundle name it. */
const SUBJECT: Array<[keyof PartnerIdentity, string]> = [['name', 'partner name'], ['version', 'partner version'], ['commit', 'partner commit'], ['webhookUrl', 'webhook URL']];

function subjectProblems(certified: Partial<PartnerIdentity> | undefined, claimed: Partial<PartnerIdentity> | undefined, where: string): string[] {
  const out: string[] = [];
  for (const [key, label] of SUBJECT) {
    const a = certified?.[key] ?? null;
    const b = claimed?.[key] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`the subject differs: ${label} ${JSON.stringify(b)} in ${where}, ${JSON.stringify(a)} in the certificate`);
  }
  return out;
}

/**
 * Every mismatch between a certificate and an evidence bundle (both parsed
 * JSON of unknown shape); empty when the certificate is the one the run that
 * wrote the bundle issued, and neither was changed since.
 */
export function bindingProblems(certificateFile: unknown, bundleFile: unknown): string[] {
  const out: string[] = [];
  const cert = certificateFile as Partial<Certificate> | null;
  if (!cert || typeof cert !== 'object') return ['no certificate to check the bundle against (the run\'s certificate.json names its run key and digests)'];
  const integrity = verifyCertificate(cert);
  if (!integrity.ok) return [`the certificate itself does not hold: ${integrity.message}`];
  const body = (cert as Certificate).body;
  const b = bundleFile as Partial<EvidenceBundle> | null;
  if (!b || typeof b !== 'object') return ['no evidence bundle'];
  if (body.runId !== b.runId) out.push(`the run differs: run ${JSON.stringify(b.runId)} in the bundle, ${JSON.stringify(body.runId)} in the certificate`);
  let digest: string | null = null;
  try {
    digest = evidenceDigest(b as EvidenceBundle);
  } catch (e) {
    out.push(`the bundle cannot be digested: ${(e as Error).message}`);
  }
  if (digest !== null && digest !== b.digest) out.push(`the bundle digests to ${digest}, it says ${b.digest}: it was edited after the run`);
  if (typeof body.evidenceDigest !== 'string') out.push('the certificate names no evidence bundle (evidenceDigest): it was issued before bundles were bound');
  else if (digest !== null && body.evidenceDigest !== digest) out.push(`the evidence digest differs: the bundle digests to ${digest}, the certificate names ${body.evidenceDigest}`);
  if (typeof body.evidenceKey !== 'string') out.push('the certificate names no run key (evidenceKey): it was issued before bundles were signed');
  else if (b.runKey?.fingerprint !== body.evidenceKey) out.push(`the run key differs: the bundle is signed with ${b.runKey?.fingerprint ?? 'no run key'}, the certificate names ${body.evidenceKey}`);
  if (digest !== null) {
    const signature = runKeySignatureProblem(b.runKey, digest, b.signature);
    if (signature) out.push(`the bundle's signature: ${signature}`);
  }
  out.push(...subjectProblems(body.partner, b.partner, 'the bundle'));
  if (typeof b.reportJson !== 'string') out.push('the bundle holds no report (reportJson)');
  else {
    const reportDigest = sha256Hex(b.reportJson);
    if (reportDigest !== body.reportDigest) out.push(`the report digest differs: the report in the bundle digests to ${reportDigest}, the certificate names ${body.reportDigest}`);
    if (reportDigest !== b.reportDigest) out.push(`the report digest differs: the report in the bundle digests to ${reportDigest}, the bundle says ${b.reportDigest}`);
    let report: { partner?: Partial<PartnerIdentity> } | null = null;
    try {
      report = JSON.parse(b.reportJson) as { partner?: Partial<PartnerIdentity> };
    } catch {
      out.push('the report in the bundle is not JSON');
    }
    if (report) out.push(...subjectProblems(body.partner, report.partner, 'the bundle\'s report'));
  }
  return [...new Set(out)];
}
