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
import type { CertReport, JournalEntry } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'certify-partners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Certify's --duration here is a cap far above the need (issue 38): the good partner's run ends once everything is
 * observed; a broken one's once `lastStep`, the last step its break shows in, is done (the run's signal is aborted as
 * that step starts: it finishes, no other starts). A slow machine makes the test slower, never red.
 */
const CAP_SECONDS = 1_800;

async function certifyDouble(breakage: Breakage | null, seed: number, lines: string[] = [], lastStep: string | ((e: JournalEntry) => boolean) | null = null, callDelayMs = 0): Promise<CertReport> {
  const port = await freePort();
  let double: PartnerDouble | null = null;
  const end = new AbortController();
  try {
    const { report } = await runCertification({
      webhookUrl: `http://127.0.0.1:${port}/webhook`,
      stateUrl: `http://127.0.0.1:${port}/state`,
      durationSeconds: CAP_SECONDS,
      // A clean partner waits for every event as long as the machine needs; a broken one ends at the step that shows it.
      patience: breakage === null ? 10 : 1,
      readyTimeoutSeconds: 600,
      signal: end.signal,
      seed,
      reportDir: null,
      // One file per run: the runs are concurrent, and a double re-reads its file (two runs of one breakage once shared it, and each double then called the other's platform).
      credentialsOut: join(dir, `${breakage ?? 'good'}-${seed}.json`),
      log: (l) => {
        lines.push(l);
        if (l === `step ${lastStep}`) end.abort();
      },
      // Or once the partner's own call shows the break (the step in progress still finishes).
      onCall: (e) => void (typeof lastStep === 'function' && lastStep(e) && end.abort()),
      onCredentials: async (path) => {
        double = await PartnerDouble.start({ credentialsPath: path, port, breakage, callDelayMs });
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
  it('a partner doing everything the contract asks passes every requirement; without --partner-command the crash drill is not run, so certified-with-gaps', async () => {
    const lines: string[] = [];
    const report = await certifyDouble(null, 101, lines);
    // Secrets are never printed: the console names them by their field in the credentials file and a fingerprint.
    expect(lines.join('\n')).not.toMatch(/(dlk|whsec)_[0-9A-Za-z]{8,}/);
    expect(lines.join('\n')).toMatch(/API key {11}apiKey in the credentials file \(sha256:[0-9a-f]{12}\)/);
    expect(lines.join('\n')).toMatch(/run key {11}sha256:[0-9a-f]{64}/);
    // Certify did not start it, so it cannot kill and restart it: that requirement is not observed, and says why.
    // On a slow machine its two calls for orders 3 and 4 may come more than the drill's 2 s apart: no 429 is met, the drill
    // says "none refused", and usage.retry-after is not observed (never failed).
    const spread = /none refused/.test(report.drills.find((d) => d.id === 'drill.rate-limit')!.did);
    const gap = (id: string) => id === 'recovery.crash-restart' || (spread && id === 'usage.retry-after');
    expect(report.results.map((r) => [r.id, r.outcome]), explain(report)).toEqual(REQUIREMENTS.map((r) => [r.id, gap(r.id) ? 'not_observed' : 'pass']));
    expect(report.results.find((r) => r.id === 'recovery.crash-restart')!.summary).toMatch(/^Not run: .*--partner-command/);
    expect(report.verdict).toBe('certified-with-gaps');
    expect(report.warnings.join('\n')).toMatch(/crash-and-restart drill did not run .*--partner-command.*certified-with-gaps/);
    expect(report.drills.map((d) => [d.id, d.outcome])).toEqual([
      ['drill.snapshot-watermark', 'pass'], ['drill.raw-body', 'pass'], ['drill.lost-answer', 'pass'], ['drill.rate-limit', spread ? 'not_observed' : 'pass'], ['drill.unavailable', 'pass'], ['drill.crash-restart', 'not_run'],
      ['drill.webhook-outage', 'pass'], ['drill.key-rotation', 'pass'], ['drill.secret-rotation', 'pass'],
    ]);
    for (const d of report.drills) expect(d.did, d.id).not.toBe('');
    // Not passed on nothing: four raw-body encodings and the booking's escapes answered 2xx, each new rate held.
    const rawBody = report.results.find((r) => r.id === 'receiver.raw-body-signature')!;
    expect(rawBody.evidence.deliveries.map((d) => [d.name, d.status])).toEqual([
      ['raw-body-whitespace', 200], ['raw-body-escapes', 200], ['raw-body-decimal-numbers', 200], ['raw-body-key-order', 200], ['raw-body-escapes-booking', 200],
    ]);
    expect(rawBody.summary).toMatch(/the new rate held for 4 of 4 nights\.$/);
    // Not passed on nothing: the change made while its cold-start snapshot was held was replayed and is held.
    expect(report.results.find((r) => r.id === 'usage.snapshot-watermark')!.summary).toMatch(/^event \d+ \(base_rate \d+ → \d+ for \S+, property \d+\) was recorded while the answer of snapshot #\d+ \(watermark \d+\) was held; the replay #\d+ from after_sequence \d+ read it, and its copy holds the new base_rate \d+/);
    // The superseded value was looked for between replay pages, not only after the replay.
    const noRegression = report.results.find((r) => r.id === 'receiver.no-regression')!;
    expect(noRegression.evidence.state.filter((s) => s.when.startsWith('before GET /events call')).length).toBeGreaterThan(1);
    // The duplicate was one the partner had answered 2xx, as the platform's delivery log shows.
    expect(report.results.find((r) => r.id === 'receiver.redelivery')!.summary).toMatch(/^Sequence \d+, which the platform's delivery log shows the partner answered 200 at \S+, re-sent as a duplicate: answered 200\.$/);
  });

  it('a partner that answers 500 to an event it already holds fails receiver.redelivery: the duplicate is one the platform\'s log shows it answered 2xx', async () => {
    const report = await certifyDouble('rejectDuplicates', 203, [], 'receiver-checks');
    expect(failed(report), explain(report)).toContain('receiver.redelivery');
    expect(report.results.find((r) => r.id === 'receiver.redelivery')!.summary).toMatch(/^Received: sequence \d+, which the platform's delivery log shows the partner answered 200 at \S+, re-sent as a duplicate and answered 500 \/ Documented: /);
    expect(report.verdict).toBe('not-certified');
  });

  // Issue 38: a partner on a slow machine is waited for. Each of its calls goes out 9 s late, more than the 8 s a step
  // used to give a partner to act: the lost-answer drill then ended before order 2 was placed, and the break was not
  // seen. The run waits for the partner's calls (a minute each, at most), so the break is found however slow it is.
  it('a partner whose every call goes out 9 s late still has its planted break found (newKeyPerRetry)', async () => {
    const lines: string[] = [];
    const report = await certifyDouble('newKeyPerRetry', 204, lines, 'drill.lost-answer', 9_000);
    expect(failed(report), `${explain(report)}\n${lines.join('\n')}`).toEqual(['usage.retry-same-key']);
    expect(report.drills.find((d) => d.id === 'drill.lost-answer')!.did).toMatch(/withheld; retries: .*NEW key/);
  });

  it.each<[Breakage, string, string | ((e: JournalEntry) => boolean)]>([
    ['skipSignature', 'receiver.refuses-bad-signature', 'drill.raw-body'],
    ['newKeyPerRetry', 'usage.retry-same-key', 'drill.rate-limit'],
    ['pollMeEverySecond', 'usage.me-interval', ((n) => (e: JournalEntry) => e.operation === 'getMe' && ++n >= 4)(0)],
    ['ignoreRetryAfter', 'usage.retry-after', 'drill.rate-limit'],
    ['applySuperseded', 'receiver.no-regression', 'older-event'],
    ['applySupersededInOrder', 'receiver.no-regression', 'older-event'],
    ['reserialisedSignature', 'receiver.raw-body-signature', 'drill.raw-body'],
  ])('a partner that breaks %s fails exactly %s', async (breakage, requirement, lastStep) => {
    const report = await certifyDouble(breakage, 202, [], lastStep);
    expect(failed(report), explain(report)).toEqual([requirement]);
    expect(report.verdict).toBe('not-certified');
    const result = report.results.find((r) => r.id === requirement)!;
    expect(result.summary).toMatch(/^Received: .* \/ Documented: /);
    expect(result.evidence.calls.length + result.evidence.deliveries.length + result.evidence.state.length).toBeGreaterThan(0);
  });
});
