/**
 * The report writers: every text from the run is escaped (a partner's answer
 * can hold markup), JUnit shows a failed requirement as a failure and one not
 * observed as skipped, and the four files land in `<dir>/<run-id>/` and
 * `latest/`, with the certificate's digest of report.json matching the file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { issueCertificate, sha256Hex } from './certificate.ts';
import { emptyObservations, gradeAll, summarise, verdictOf } from './grade.ts';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import { REQUIREMENTS } from './requirements.ts';
import { certificateBody } from './run.ts';
import type { CertReport } from './types.ts';
import { renderReportJson, writeCertification } from './write.ts';

const dir = mkdtempSync(join(tmpdir(), 'certify-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sample(): CertReport {
  const results = gradeAll({ ...emptyObservations(), probes: [{ source: 'probe', name: 'wrong-signature', at: '2026-11-21T11:30:00.000+05:30', type: '<img src=x onerror=alert(1)>', sequence: 3, signature: null, integrationHeader: 'a"b', status: 200 }] });
  return {
    runId: '20261121-060000-0000002a',
    startedAt: '2026-11-21T11:30:00.000+05:30',
    finishedAt: '2026-11-21T11:30:12.000+05:30',
    apiVersion: '2026-09',
    specDigest: 'c'.repeat(64),
    target: { kind: 'in-process', baseUrl: 'http://127.0.0.1:1/api/integrations/v1' },
    partner: { name: 'Acme <PMS>', version: '1.2.3', commit: null, webhookUrl: 'http://127.0.0.1:2/webhook?<script>', integration: { id: 4, slug: 'certify-x' }, stateUrl: null },
    certify: { version: '0.1.0', sourceDigest: 'd'.repeat(64) },
    planDigest: 'e'.repeat(64),
    plan: { seed: 42, durationSeconds: 30, steps: [{ id: 'ready', title: 'Receiver up', expects: '2xx </pre><script>x</script>' }], parameters: { note: 'whsec_0123456789abcdef0123456789abcdef' } },
    drills: [{ id: 'drill.key-rotation', title: 'API key rotation', requirement: 'usage.rotated-key', action: 'rotate', expected: 'one call', did: '<b>two</b>', outcome: 'fail', startedAt: null, finishedAt: null }],
    results,
    summary: { ...summarise(results), ms: 12_000 },
    verdict: verdictOf(results),
    warnings: ['a <warning>'],
  };
}

describe('certification reports', () => {
  it('the HTML page is self-contained and escapes everything from the run', () => {
    const html = renderHtml(sample());
    expect(html).not.toMatch(/<script|<img|<b>two/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('a&quot;b');
    expect(html).toContain('Not certified');
  });

  it('JUnit: a failed requirement is a failure, one not observed is skipped, counts match', () => {
    const xml = renderJunit(sample());
    // One failed, every other requirement not observed (skipped), whatever the catalogue holds.
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*tests="${REQUIREMENTS.length}" failures="1" errors="0" skipped="${REQUIREMENTS.length - 1}"`));
    expect(xml).toMatch(/<testcase classname="certify.receiver" name="receiver.refuses-bad-signature: [^"]*"[^>]*>\s*<failure type="receiver.refuses-bad-signature"/);
    expect(xml.match(/<skipped /g)).toHaveLength(REQUIREMENTS.length - 1);
  });

  it('writes four files to the run directory and latest/; secrets are redacted; the certificate binds report.json', () => {
    const report = sample();
    const json = renderReportJson(report);
    const certificate = issueCertificate(certificateBody(JSON.parse(json) as CertReport, sha256Hex(json)));
    const written = writeCertification(dir, report, json, certificate);
    expect(written.dir).toBe(join(dir, report.runId));
    for (const name of ['report.json', 'junit.xml', 'index.html', 'certificate.json']) {
      const text = readFileSync(join(dir, 'latest', name), 'utf8');
      expect(text, name).toBe(readFileSync(join(written.dir, name), 'utf8'));
      expect(text, name).not.toContain('whsec_0123456789abcdef');
    }
    const onDisk = JSON.parse(readFileSync(written.certificate, 'utf8'));
    expect(onDisk.body.reportDigest).toBe(sha256Hex(readFileSync(written.report)));
    expect(() => writeCertification(dir, { ...report, runId: 'latest' }, json, certificate)).toThrow(/cannot name a report directory/);
  });
});
