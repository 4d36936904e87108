/**
 * Writes a certification run: report.json, junit.xml, index.html and
 * certificate.json into `<dir>/<run-id>/`, then refreshes `<dir>/latest/`
 * with copies (swapped in whole). Secrets never reach the disk: every
 * rendered file is scanned with the conformance reports' redaction.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../reports/write.ts';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import type { CertReport, Certificate } from './types.ts';

export interface WrittenCertification {
  dir: string;
  latest: string;
  report: string;
  junit: string;
  html: string;
  certificate: string;
}

const NAMES = { report: 'report.json', junit: 'junit.xml', html: 'index.html', certificate: 'certificate.json' } as const;

/** report.json exactly as written (redacted); the certificate carries its digest. */
export function renderReportJson(report: CertReport): string {
  return redactSecrets(`${JSON.stringify(report, null, 2)}\n`);
}

export function renderCertificateJson(certificate: Certificate): string {
  return `${JSON.stringify(certificate, null, 2)}\n`;
}

export function writeCertification(dir: string, report: CertReport, reportJson: string, certificate: Certificate): WrittenCertification {
  const name = report.runId.replace(/[^A-Za-z0-9._-]+/g, '-');
  if (name === '' || name === 'latest' || /^\.+$/.test(name)) throw new Error(`run id ${JSON.stringify(report.runId)} cannot name a report directory`);
  const runDir = join(dir, name);
  mkdirSync(runDir, { recursive: true });
  const contents: Record<keyof typeof NAMES, string> = {
    report: reportJson,
    junit: redactSecrets(renderJunit(report), '&lt;redacted&gt;'),
    html: redactSecrets(renderHtml(report), '&lt;redacted&gt;'),
    certificate: renderCertificateJson(certificate),
  };
  const files = {} as Record<keyof typeof NAMES, string>;
  for (const kind of Object.keys(NAMES) as Array<keyof typeof NAMES>) {
    files[kind] = join(runDir, NAMES[kind]);
    writeFileSync(files[kind], contents[kind], 'utf8');
  }
  const latest = join(dir, 'latest');
  const staging = join(dir, `.latest-${randomUUID()}`);
  mkdirSync(staging, { recursive: true });
  try {
    for (const kind of Object.keys(NAMES) as Array<keyof typeof NAMES>) copyFileSync(files[kind], join(staging, NAMES[kind]));
    rmSync(latest, { recursive: true, force: true });
    renameSync(staging, latest);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir: runDir, latest, ...files };
}
