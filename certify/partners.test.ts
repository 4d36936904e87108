/**
 * Certification proven both ways, in-process and fast: the test double that
 * does everything the contract asks is certified on every requirement, and
 * each partner broken on purpose fails exactly the requirement its breach
 * breaks, nothing else. (The reference partner, as a separate process, is
 * in end-to-end.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PartnerDouble, type Breakage } from './partner-double.ts';
import { REQUIREMENTS } from './requirements.ts';
import { runCertification } from './run.ts';
import { freePort } from './test-support.ts';
import type { CertReport } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'certify-partners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function certifyDouble(breakage: Breakage | null, seed: number): Promise<CertReport> {
  const port = await freePort();
  let double: PartnerDouble | null = null;
  try {
    const { report } = await runCertification({
      webhookUrl: `http://127.0.0.1:${port}/webhook`,
      stateUrl: `http://127.0.0.1:${port}/state`,
      durationSeconds: 60,
      seed,
      reportDir: null,
      credentialsOut: join(dir, `${breakage ?? 'good'}.json`),
      onCredentials: async (path) => {
        double = await PartnerDouble.start({ credentialsPath: path, port, breakage });
      },
    });
    return report;
  } finally {
    await (double as PartnerDouble | null)?.stop();
  }
}

const failed = (r: CertReport) => r.results.filter((x) => x.outcome === 'fail').map((x) => x.id);
const explain = (r: CertReport) => r.results.filter((x) => x.outcome !== 'pass').map((x) => `${x.outcome} ${x.id}: ${x.summary}`).join('\n');

describe.concurrent('certification of partners', () => {
  it('a partner doing everything the contract asks is certified on every requirement', async () => {
    const report = await certifyDouble(null, 101);
    expect(report.results.map((r) => [r.id, r.outcome]), explain(report)).toEqual(REQUIREMENTS.map((r) => [r.id, 'pass']));
    expect(report.verdict).toBe('certified');
    expect(report.drills.map((d) => [d.id, d.outcome])).toEqual([
      ['drill.lost-answer', 'pass'], ['drill.rate-limit', 'pass'], ['drill.unavailable', 'pass'],
      ['drill.webhook-outage', 'pass'], ['drill.key-rotation', 'pass'], ['drill.secret-rotation', 'pass'],
    ]);
    for (const d of report.drills) expect(d.did, d.id).not.toBe('');
  });

  it.each<[Breakage, string]>([
    ['skipSignature', 'receiver.refuses-bad-signature'],
    ['newKeyPerRetry', 'usage.retry-same-key'],
    ['pollMeEverySecond', 'usage.me-interval'],
    ['ignoreRetryAfter', 'usage.retry-after'],
    ['applySuperseded', 'receiver.no-regression'],
  ])('a partner that breaks %s fails exactly %s', async (breakage, requirement) => {
    const report = await certifyDouble(breakage, 202);
    expect(failed(report), explain(report)).toEqual([requirement]);
    expect(report.verdict).toBe('not-certified');
    const result = report.results.find((r) => r.id === requirement)!;
    expect(result.summary).toMatch(/^Received: .* \/ Documented: /);
    expect(result.evidence.calls.length + result.evidence.deliveries.length + result.evidence.state.length).toBeGreaterThan(0);
  });
});
