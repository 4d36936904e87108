/**
 * Certification's vocabulary: the requirements a partner is graded on, what
 * was observed (the call journal, deliveries the certifier crafted, the
 * platform's own deliveries, drills), and the report and certificate a run
 * produces. Report writers and the CLI depend only on these types.
 */
import type { JournalEntry } from '../simulator/call-journal.ts';

export type { JournalEntry };

/** A requirement is met, broken, or the run gave no evidence either way. */
export type Outcome = 'pass' | 'fail' | 'not_observed';

/** Where a requirement is graded from. */
export type RequirementGroup = 'receiver' | 'usage' | 'recovery';

/** One requirement of the API document that falls on the partner. */
export interface Requirement {
  /** Stable id, `<group>.<property-it-proves>`. */
  id: string;
  group: RequirementGroup;
  title: string;
  /** Clause ids of spec/clauses.yaml. */
  clauses: string[];
  /** What the partner must do, in the document's words. */
  rule: string;
  /** True when the rule rests on an x-assumption of spec/openapi.yaml (signature scheme, tolerance). */
  assumption: boolean;
}

/** A delivery that reached (or did not reach) the partner's receiver. */
export interface DeliveryEvidence {
  /** `probe`: crafted by the certifier and posted straight to the partner; `platform`: the simulator's delivery worker. */
  source: 'probe' | 'platform';
  /** The probe's name (`wrong-signature`, ...) or `delivery`. */
  name: string;
  /** ISO time (platform clock) the delivery was sent. */
  at: string;
  type: string;
  sequence: number | null;
  /** What was sent: the X-Service-Signature header (not a secret), X-Service-Integration. */
  signature?: string | null;
  integrationHeader?: string | null;
  /** The partner's answer; null when none came (time-out, refused connection). */
  status: number | null;
  error?: string;
  /**
   * No answer came within the sender's time-out (certify's for a probe, the platform's for a delivery). The
   * document shows no delivery time-out (§6 gaps): a late answer is not a refusal, and on a loaded machine it is the
   * machine's, so a time-out alone never fails a requirement (issue 38).
   */
  timedOut?: true;
  /** Real milliseconds until the answer. */
  ms?: number;
}

/** The partner's copy of one night, read through its optional state probe. */
export interface StateCheck {
  when: string;
  property_id: number;
  type: 'rates';
  date: string;
  field: string;
  /** What the platform holds now (the newest event's value). */
  expected: unknown;
  /** The value of the superseded (older) event: holding it is a regression. */
  older: unknown;
  /** What the partner holds; undefined when it holds nothing for the night. */
  held: unknown;
  /** Why nothing could be read, when the probe failed. */
  error?: string;
  /** Platform ms of the read (absent in bundles written before it was kept). */
  at?: number;
  /** The newest call journal entry answered before the read (0: none): what the partner could have fetched by then. */
  afterCall?: number;
  /** The sequence of the event that set `expected`, when one event did. */
  sequence?: number;
  /** The sequence of the event that set `older`, when one event did. */
  olderSequence?: number;
}

export interface Evidence {
  /** Journal entries involved (bounded; `omitted` says how many more). */
  calls: JournalEntry[];
  deliveries: DeliveryEvidence[];
  state: StateCheck[];
  notes: string[];
  omitted: number;
}

export interface RequirementResult extends Requirement {
  outcome: Outcome;
  /** One line: why this outcome (what was received against what the document says, for a failure). */
  summary: string;
  /** Drills that exercised the requirement. */
  drills: string[];
  evidence: Evidence;
}

/** A fault drill: what the certifier did, what the partner was expected to do, what it did. */
export interface DrillRecord {
  id: string;
  title: string;
  /** The requirement the drill exercises. */
  requirement: string;
  /** What the certifier did to the platform. */
  action: string;
  expected: string;
  did: string;
  /** The drill's contribution to its requirement (the requirement's outcome is authoritative). */
  outcome: Outcome | 'not_run';
  startedAt: string | null;
  finishedAt: string | null;
}

/** One step of the certification plan as it was fixed before the run (the certificate holds it). */
export interface PlanStep {
  id: string;
  title: string;
  /** What the partner is expected to do during the step. */
  expects: string;
}

export interface Plan {
  seed: number;
  /** Upper bound of the run in real seconds. */
  durationSeconds: number;
  steps: PlanStep[];
  /** Present on a `--receiver-only` run: only the receiver requirements were exercised (usage and recovery not observed). */
  scope?: 'receiver-only';
  /** The concrete choices the seed made (stays, rates, nights), so a rerun with the seed repeats them. */
  parameters: Record<string, unknown>;
}

export type Verdict = 'certified' | 'certified-with-gaps' | 'not-certified';

export interface CertReport {
  runId: string;
  startedAt: string;
  finishedAt: string;
  apiVersion: string;
  /** SHA-256 of spec/openapi.yaml. */
  specDigest: string;
  target: { kind: 'in-process' | 'running'; baseUrl: string };
  partner: PartnerIdentity;
  /** The certifier that graded the run: package version and the SHA-256 of its own sources. */
  certify: CertifierIdentity;
  plan: Plan;
  /** SHA-256 of the plan's canonical JSON: a rerun with the same seed (and dates) runs the plan with this digest. */
  planDigest: string;
  drills: DrillRecord[];
  results: RequirementResult[];
  summary: { total: number; pass: number; fail: number; not_observed: number; ms: number };
  verdict: Verdict;
  /** Things the operator should know (the partner was late to start, the clock is off...). */
  warnings: string[];
}

/** What was tested: the software as the operator named it, and where it ran. */
export interface PartnerIdentity {
  /** `--partner-name`, `--partner-version`, `--partner-commit`; null when not given (the certificate then names no software). */
  name: string | null;
  version: string | null;
  commit: string | null;
  webhookUrl: string;
  integration: { id: number; slug: string };
  stateUrl: string | null;
}

export interface CertifierIdentity {
  version: string;
  /** SHA-256 over certify's own source files (path and content, tests left out). */
  sourceDigest: string;
}

/** The certificate file: what was certified and the outcome, digested and optionally signed. */
export interface Certificate {
  format: 'partner-api-certificate/1';
  body: CertificateBody;
  /** SHA-256 (hex) of the canonical JSON of `body`. */
  digest: string;
  signature: { algorithm: 'Ed25519'; publicKey: string; value: string } | null;
}

export interface CertificateBody {
  runId: string;
  issuedAt: string;
  apiVersion: string;
  specDigest: string;
  seed: number;
  target: CertReport['target'];
  partner: CertReport['partner'];
  certify: CertifierIdentity;
  plan: Plan;
  planDigest: string;
  results: Array<Pick<RequirementResult, 'id' | 'title' | 'clauses' | 'outcome' | 'summary'>>;
  drills: Array<Pick<DrillRecord, 'id' | 'outcome' | 'expected' | 'did'>>;
  verdict: Verdict;
  /** SHA-256 of report.json as written beside the certificate (binds the evidence). */
  reportDigest: string;
  /** The `digest` of the evidence bundle (evidence.json) the results were graded from; absent in older certificates. */
  evidenceDigest?: string;
  /** The fingerprint (`sha256:…`) of the run key that signed the evidence bundle when it was written; absent in older certificates. */
  evidenceKey?: string;
  /** How the certificate came to be; absent in older certificates (a run). */
  issuance?: Issuance;
}

/**
 * `run`: certify carried out the plan against the partner and graded what it
 * saw (signed by whoever ran it: the partner itself, or the platform running
 * certify against the partner's deployment). `regrade`: a platform graded a
 * run's evidence bundle again with its own certifier (`certify`) and signed
 * that; the run's own certifier is `runCertifier`. `statement` says the mode
 * in the words a verifier reads (issuance.ts; absent in older certificates).
 */
export type Issuance =
  | { mode: 'run'; statement?: string }
  | { mode: 'regrade'; statement?: string; runCertifier: CertifierIdentity; regradedAt: string };
