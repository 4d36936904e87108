/**
 * The evidence bundle: everything a run's grading read, written beside its
 * reports (evidence.json), so a platform can grade the run again with its
 * own grading code and sign what follows (`npm run certify -- --regrade`).
 *
 * It holds the plan and its seed, the certifier that graded the run, what
 * the certifier did (the drills), every observation the graders read (the
 * call journal, the crafted and the platform's deliveries, the superseded
 * sequences, the state-probe readings, the drills' records), the grade the
 * run gave and report.json exactly as written. Its `digest` is the SHA-256 of
 * the canonical JSON of every member but `digest` and `signature`; the run
 * signs that digest with its run key (run-key.ts) when it writes the bundle,
 * and the run's certificate names the key and binds the digest.
 *
 * `regradeEvidence` is pure: the bundle (and the run's certificate) in, the
 * grade or the reasons to refuse out. It refuses a bundle whose digest does
 * not hold or whose run-key signature does not verify (edited after the run),
 * that does not match the run's certificate (evidence-binding.ts: the key, the
 * digests, the subject), whose records contradict how the platform works (a call or a
 * delivery taken out: the journal numbers calls without a gap, the platform
 * delivers every sequence in order, §6.2), or whose recorded grade is not
 * what this certifier's graders make of its observations. What it cannot
 * know is whether the observations happened: a bundle made up whole, with a
 * digest to match, grades as what it says. The platform's signature says
 * "this evidence, graded by this code, gives this verdict", and names the
 * evidence by its digest.
 */
import { canonicalJson, sha256Hex } from './certificate.ts';
import { explainSkippedDrills } from './drill-dependencies.ts';
import { bindingProblems } from './evidence-binding.ts';
import { EVIDENCE_FORMAT, evidenceDigest, type EvidenceBundle, type Unsealed } from './evidence-bundle.ts';
import { gradeAll, verdictOf, type Observations } from './grade.ts';
import { issuanceStatement } from './issuance.ts';
import { REQUIREMENTS } from './requirements.ts';
import { runKeySignatureProblem, type RunKey } from './run-key.ts';
import type { CertReport, CertificateBody, CertifierIdentity, DrillRecord, Outcome, RequirementResult, Verdict } from './types.ts';


/** The bundle of a run, sealed and signed with the run key: `observations` exactly as graded, `reportJson` as written. */
export function evidenceBundle(reportJson: string, observations: Observations, runKey: RunKey): EvidenceBundle {
  const report = JSON.parse(reportJson) as CertReport;
  const unsealed: Unsealed = {
    format: EVIDENCE_FORMAT,
    runId: report.runId,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    apiVersion: report.apiVersion,
    specDigest: report.specDigest,
    target: report.target,
    partner: report.partner,
    certify: report.certify,
    plan: report.plan,
    planDigest: report.planDigest,
    drills: report.drills,
    observations,
    results: report.results.map((r) => ({ id: r.id, outcome: r.outcome, summary: r.summary })),
    verdict: report.verdict,
    reportDigest: sha256Hex(reportJson),
    reportJson,
    runKey: runKey.record,
  };
  return seal(unsealed, runKey);
}

/**
 * Adds the digest (after a JSON round trip, so it is the digest of what a
 * reader parses back) and the run key's signature over it, at the moment the
 * bundle is made.
 */
export function seal(unsealed: Unsealed, runKey: RunKey): EvidenceBundle {
  const plain = JSON.parse(JSON.stringify(unsealed)) as Unsealed;
  const digest = evidenceDigest(plain);
  return { ...plain, digest, signature: runKey.sign(digest) };
}

export type Regrade =
  | { ok: true; bundle: EvidenceBundle; results: RequirementResult[]; drills: DrillRecord[]; verdict: Verdict }
  | { ok: false; reasons: string[] };

/**
 * Grades the bundle's observations again; refuses it (with every reason found)
 * when it was edited, does not match the run's certificate, or its grade does
 * not follow.
 */
export function regradeEvidence(file: unknown, certificate: unknown): Regrade {
  const refuse = (...reasons: string[]): Regrade => ({ ok: false, reasons });
  const b = file as Partial<EvidenceBundle> | null;
  if (!b || typeof b !== 'object' || b.format !== EVIDENCE_FORMAT) return refuse(`not an evidence bundle: expected format "${EVIDENCE_FORMAT}" (certify writes it as evidence.json beside report.json)`);
  const shape = missingMembers(b);
  if (shape.length > 0) return refuse(`not a whole evidence bundle: ${shape.join(', ')} missing or of the wrong type`);
  const bundle = b as EvidenceBundle;
  let digest: string;
  try {
    digest = evidenceDigest(bundle);
  } catch (e) {
    return refuse(`the bundle cannot be digested: ${(e as Error).message}`);
  }
  const reasons: string[] = [];
  if (digest !== bundle.digest) reasons.push(`tampered with: the bundle digests to ${digest}, it says ${bundle.digest}; it was edited after the run`);
  const unsigned = runKeySignatureProblem(bundle.runKey, digest, bundle.signature);
  if (unsigned) reasons.push(`not as the run signed it: ${unsigned}`);
  // The run's certificate names the run key, the evidence and report digests and the subject observed.
  const binding = bindingProblems(certificate, bundle).filter((p) => !p.startsWith('the bundle digests to') && !p.startsWith('the bundle\'s signature:'));
  reasons.push(...binding.map((p) => `does not match the run's certificate: ${p}`));
  if (bundle.planDigest !== sha256Hex(canonicalJson(bundle.plan))) reasons.push('tampered with: the plan digest does not match the plan it carries');
  reasons.push(...incoherent(bundle));

  const byRequirement: Record<string, string[]> = {};
  for (const d of bundle.drills) if (d.outcome !== 'not_run') (byRequirement[d.requirement] ??= []).push(d.id);
  let results: RequirementResult[];
  try {
    results = gradeAll(bundle.observations, byRequirement);
  } catch (e) {
    return refuse(...reasons, `the observations cannot be graded: ${(e as Error).message}`);
  }
  const recorded = new Map(bundle.results.map((r) => [r.id, r.outcome]));
  for (const r of results) {
    const was = recorded.get(r.id);
    if (was === undefined) reasons.push(`its grade does not follow: ${r.id} is not among the recorded results (graded by certifier ${bundle.certify.version}, sources sha256 ${bundle.certify.sourceDigest})`);
    else if (was !== r.outcome) reasons.push(`its grade does not follow: ${r.id} is recorded ${was}, its evidence grades ${r.outcome} (${r.summary})`);
  }
  for (const id of recorded.keys()) if (!REQUIREMENTS.some((r) => r.id === id)) reasons.push(`its grade does not follow: the recorded ${id} is no requirement of this certifier`);
  const recordedVerdict = verdictFromOutcomes(bundle.results.map((r) => r.outcome));
  if (bundle.verdict !== recordedVerdict) reasons.push(`its grade does not follow: the verdict "${bundle.verdict}" does not follow from its own recorded results (${recordedVerdict})`);
  if (reasons.length > 0) return { ok: false, reasons };
  const drills = bundle.drills.map((d) => ({ ...d, outcome: d.outcome === 'not_run' ? d.outcome : results.find((r) => r.id === d.requirement)?.outcome ?? d.outcome }));
  const explained = explainSkippedDrills(results, drills);
  return { ok: true, bundle, results: explained, drills, verdict: verdictOf(explained) };
}

function verdictFromOutcomes(outcomes: Outcome[]): Verdict {
  if (outcomes.includes('fail')) return 'not-certified';
  return outcomes.includes('not_observed') ? 'certified-with-gaps' : 'certified';
}

function missingMembers(b: Partial<EvidenceBundle>): string[] {
  const missing: string[] = [];
  const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  for (const k of ['runId', 'digest', 'planDigest', 'reportDigest', 'verdict', 'apiVersion', 'specDigest'] as const) if (typeof b[k] !== 'string') missing.push(k);
  for (const k of ['plan', 'certify', 'partner', 'target', 'observations'] as const) if (!isObject(b[k])) missing.push(k);
  for (const k of ['drills', 'results'] as const) if (!Array.isArray(b[k])) missing.push(k);
  const o = b.observations as Partial<Observations> | undefined;
  if (isObject(o)) {
    for (const k of ['probes', 'platformDeliveries', 'superseded', 'state', 'rawBody', 'lostAnswers'] as const) if (!Array.isArray(o![k])) missing.push(`observations.${k}`);
    if (o!.journal !== null && !Array.isArray(o!.journal)) missing.push('observations.journal');
  }
  return missing;
}

/**
 * Records that contradict how the in-process platform keeps them, which an
 * honest run never writes: the journal numbers every call of the run's
 * integration in order without a gap, and the platform delivers every
 * sequence in order, one at a time (§6.2), so each sequence below the
 * highest one acknowledged has a delivery record unless it was superseded
 * (§3.3). (A running simulator's journal is not read and its delivery log is
 * cut to the last 200: nothing to check there.)
 */
export function incoherent(b: EvidenceBundle): string[] {
  if (b.target?.kind !== 'in-process') return [];
  const out: string[] = [];
  const journal = b.observations.journal ?? [];
  for (let i = 1; i < journal.length; i++) {
    const prev = journal[i - 1]!;
    const e = journal[i]!;
    if (e.n !== prev.n + 1 || e.at < prev.at) {
      out.push(`tampered with: the call journal goes from call #${prev.n} to #${e.n}${e.at < prev.at ? ' back in time' : ''}; a recorded call was taken out or moved`);
      break;
    }
  }
  const delivered = b.observations.platformDeliveries;
  const acknowledged = delivered.filter((d) => d.sequence !== null && d.status !== null && d.status >= 200 && d.status < 300).map((d) => d.sequence!);
  const highest = acknowledged.length === 0 ? 0 : Math.max(...acknowledged);
  const recorded = new Set(delivered.map((d) => d.sequence));
  const superseded = new Set(b.observations.superseded);
  const gaps: number[] = [];
  for (let s = 1; s < highest; s++) if (!recorded.has(s) && !superseded.has(s)) gaps.push(s);
  if (gaps.length > 0) {
    out.push(`tampered with: the platform's delivery log has no record of sequence ${gaps.slice(0, 5).join(', ')}${gaps.length > 5 ? ` and ${gaps.length - 5} more` : ''} below sequence ${highest}, which was acknowledged (events are delivered in sequence order, §6.2); a recorded delivery was taken out`);
  }
  return out;
}

/** evidence.json as written (2-space JSON, a final newline). */
export function renderEvidenceJson(bundle: EvidenceBundle): string {
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

/**
 * The body of the certificate a platform signs for a bundle that regraded
 * cleanly: the run as the bundle tells it, the results as `grader` (this
 * certifier) graded them, the bundle bound by its digest.
 */
export function regradeCertificateBody(r: Extract<Regrade, { ok: true }>, grader: CertifierIdentity, regradedAt: string): CertificateBody {
  const b = r.bundle;
  return {
    runId: b.runId,
    issuedAt: regradedAt,
    apiVersion: b.apiVersion,
    specDigest: b.specDigest,
    seed: b.plan.seed,
    target: b.target,
    partner: b.partner,
    certify: grader,
    plan: b.plan,
    planDigest: b.planDigest,
    results: r.results.map((x) => ({ id: x.id, title: x.title, clauses: x.clauses, outcome: x.outcome, summary: x.summary })),
    drills: r.drills.map((d) => ({ id: d.id, outcome: d.outcome, expected: d.expected, did: d.did })),
    verdict: r.verdict,
    reportDigest: b.reportDigest,
    evidenceDigest: b.digest,
    evidenceKey: b.runKey.fingerprint,
    issuance: { mode: 'regrade', statement: issuanceStatement('regrade'), runCertifier: b.certify, regradedAt },
  };
}
