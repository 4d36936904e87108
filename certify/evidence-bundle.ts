/**
 * The evidence bundle's shape and its digest (evidence.ts makes, seals and re-grades bundles; evidence-binding.ts holds
 * one against its certificate): the SHA-256 of the canonical JSON of every member but `digest` and `signature`.
 */
import { canonicalJson, sha256Hex } from './certificate.ts';
import type { Observations } from './grade.ts';
import type { RunKeyRecord } from './run-key.ts';
import type { CertReport, CertifierIdentity, DrillRecord, RequirementResult, Verdict } from './types.ts';

export const EVIDENCE_FORMAT = 'partner-api-evidence/1';

export interface EvidenceBundle {
  format: typeof EVIDENCE_FORMAT;
  runId: string;
  startedAt: string;
  finishedAt: string;
  apiVersion: string;
  specDigest: string;
  target: CertReport['target'];
  partner: CertReport['partner'];
  /** The certifier that graded the run. */
  certify: CertifierIdentity;
  plan: CertReport['plan'];
  planDigest: string;
  /** What the certifier did; each drill names its requirement. */
  drills: DrillRecord[];
  /** Everything the graders read. */
  observations: Observations;
  /** The grade the run gave. */
  results: Array<Pick<RequirementResult, 'id' | 'outcome' | 'summary'>>;
  verdict: Verdict;
  /** SHA-256 of report.json as written beside the bundle. */
  reportDigest: string;
  /** report.json exactly as written (its SHA-256 is `reportDigest`, and the certificate's). */
  reportJson: string;
  /** The public half of the run key that signed the bundle when it was written. */
  runKey: RunKeyRecord;
  /** SHA-256 of the canonical JSON of every member above. */
  digest: string;
  /** The run key's Ed25519 signature over `digest` (base64), made when the bundle was written. */
  signature: string;
}

/** A bundle before `seal` adds its digest and signature. */
export type Unsealed = Omit<EvidenceBundle, 'digest' | 'signature'>;

/** The digest a bundle must carry: over every member but `digest` and `signature`. */
export function evidenceDigest(bundle: Unsealed & { digest?: unknown; signature?: unknown }): string {
  const { digest: _digest, signature: _signature, ...rest } = bundle;
  return sha256Hex(canonicalJson(rest));
}
