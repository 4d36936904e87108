/**
 * Writes a certification run: report.json, junit.xml, index.html and
 * certificate.json into `<dir>/<run-id>/`, then refreshes `<dir>/latest/`
 * with copies (swapped in whole). Secrets never reach the disk: every
 * rendered file is scanned with the conformance reports' redaction.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { containsSecret, redactSecrets } from '../reporting/write.ts';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import { renderEvidenceJson } from './evidence.ts';
import type { EvidenceBundle } from './evidence-bundle.ts';
import type { CertReport, Certificate } from './types.ts';

export interface WrittenCertification {
  dir: string;
  latest: string;
  report: string;
  junit: string;
  html: string;
  certificate: string;
  /** evidence.json: what the grading read (`--regrade` grades it again); null when the run wrote none. */
  evidence: string | null;
}

const NAMES = { report: 'report.json', junit: 'junit.xml', html: 'index.html', certificate: 'certificate.json', evidence: 'evidence.json' } as const;

/** report.json exactly as written (redacted); the certificate carries its digest. */
export function renderReportJson(report: CertReport): string {
  return redactSecrets(`${JSON.stringify(report, null, 2)}\n`);
}

export function renderCertificateJson(certificate: Certificate): string {
  return `${JSON.stringify(certificate, null, 2)}\n`;
}

export function writeCertification(dir: string, report: CertReport, reportJson: string, certificate: Certificate, evidence?: EvidenceBundle): WrittenCertification {
  const name = report.runId.replace(/[^A-Za-z0-9._-]+/g, '-');
  if (name === '' || name === 'latest' || /^\.+$/.test(name)) throw new Error(`run id ${JSON.stringify(report.runId)} cannot name a report directory`);
  const runDir = join(dir, name);
  mkdirSync(runDir, { recursive: true });
  const contents: Record<keyof typeof NAMES, string> = {
    report: reportJson,
    junit: redactSecrets(renderJunit(report), '&lt;redacted&gt;'),
    html: redactSecrets(renderHtml(report), '&lt;redacted&gt;'),
    certificate: renderCertificateJson(certificate),
    // Already redacted when sealed (its digest is over what is written); checked, never rewritten.
    evidence: evidence ? renderEvidenceJson(evidence) : '',
  };
  if (evidence && containsSecret(contents.evidence)) throw new Error('the evidence bundle holds something shaped like a secret; it was not written');
  const kinds = (Object.keys(NAMES) as Array<keyof typeof NAMES>).filter((k) => k !== 'evidence' || evidence);
  const files = {} as Record<keyof typeof NAMES, string>;
  for (const kind of kinds) {
    files[kind] = join(runDir, NAMES[kind]);
    writeFileSync(files[kind], contents[kind], 'utf8');
  }
  const latest = join(dir, 'latest');
  const staging = join(dir, `.latest-${randomUUID()}`);
  mkdirSync(staging, { recursive: true });
  try {
    for (const kind of kinds) copyFileSync(files[kind], join(staging, NAMES[kind]));
    rmSync(latest, { recursive: true, force: true });
    renameSync(staging, latest);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir: runDir, latest, ...files, evidence: evidence ? files.evidence : null };
}
