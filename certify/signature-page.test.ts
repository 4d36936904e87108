/**
 * Issue 41 item 7: a receiver written from docs/verify-webhook-signatures.md
 * alone passes certify's receiver requirements. The page's Python and Node
 * blocks are extracted as they stand, each started by certify
 * (--partner-command, its certification file in CERTIFY_CREDENTIALS) in a
 * --receiver-only run with the state probe the page's receivers answer
 * (--state-url), and every receiver requirement passes, seven of seven. The
 * same Python block with one mistake the page warns about fails its
 * requirement: the HMAC over re-serialised JSON fails
 * receiver.raw-body-signature, and applying an older event over a newer one
 * (no apply-if-newer, §6.4) fails receiver.no-regression.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks } from '../docs/doc-page.ts';
import { REQUIREMENTS } from './requirements.ts';
import { runCertification } from './run.ts';
import { freePort } from './test-support.ts';

const PAGE = new URL('../docs/verify-webhook-signatures.md', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'certify-signature-page-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A cap far above the need (issue 38): the run ends when its last step is done. */
const CAP_SECONDS = 1_800;

function pageBlock(lang: string): string {
  const block = codeBlocks(readFileSync(PAGE, 'utf8')).find((b) => b.lang === lang);
  if (!block) throw new Error(`docs/verify-webhook-signatures.md has no ${lang} block`);
  return `${block.body}\n`;
}

/** A --receiver-only run of the receiver in `file`, started by `start` (its port in PORT), with its state probe. */
async function certifyReceiver(name: string, file: string, source: string, start: (file: string) => string) {
  writeFileSync(file, source);
  const port = await freePort();
  const lines: string[] = [];
  const { report } = await runCertification({
    webhookUrl: `http://127.0.0.1:${port}/webhook`,
    stateUrl: `http://127.0.0.1:${port}/state`,
    receiverOnly: true,
    partnerCommand: `PORT=${port} exec ${start(file)}`,
    durationSeconds: CAP_SECONDS,
    readyTimeoutSeconds: 600,
    seed: 7,
    reportDir: null,
    credentialsOut: join(dir, `${name}.json`),
    log: (l) => lines.push(l),
  });
  return { report, log: lines.join('\n') };
}

const certifyPython = (name: string, source: string) => certifyReceiver(name, join(dir, `${name}.py`), source, (f) => `python3 "${f}"`);

/** Every receiver requirement passed, and the run's summary line says seven of seven. */
function expectEveryReceiverRequirementPassed(report: Awaited<ReturnType<typeof certifyReceiver>>['report'], log: string): void {
  const outcomes = Object.fromEntries(report.results.map((r) => [r.id, r.outcome]));
  const receiver = REQUIREMENTS.filter((x) => x.group === 'receiver');
  expect(receiver).toHaveLength(7);
  for (const r of receiver) expect(outcomes[r.id], `${r.id}\n${log}`).toBe('pass');
  expect(report.results.filter((r) => r.outcome === 'fail').map((r) => r.id), log).toEqual([]);
  expect(log).toMatch(/^receiver: 7 pass, 0 fail, 0 not observed of 7 requirements \(--receiver-only\)$/m);
}

const hasPython = (() => {
  try {
    execFileSync('python3', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(hasPython)('the Python receiver of docs/verify-webhook-signatures.md', () => {
  it('as the page gives it, with its state probe: every receiver requirement passes, seven of seven', async () => {
    const { report, log } = await certifyPython('page', pageBlock('python'));
    expectEveryReceiverRequirementPassed(report, log);
  }, (CAP_SECONDS + 600) * 1000);

  it('bites: the same receiver hashing re-serialised JSON fails receiver.raw-body-signature', async () => {
    const page = pageBlock('python');
    const raw = 'signed = str(t).encode() + b"." + raw_body';
    expect(page).toContain(raw);
    const broken = page.replace(raw, 'signed = str(t).encode() + b"." + json.dumps(json.loads(raw_body), separators=(",", ":"), ensure_ascii=False).encode()');
    const { report, log } = await certifyPython('reserialised', broken);
    expect(report.results.find((r) => r.id === 'receiver.raw-body-signature')!.outcome, log).toBe('fail');
  }, (CAP_SECONDS + 600) * 1000);

  it('bites: the same receiver applying every event, older ones too, fails receiver.no-regression', async () => {
    const page = pageBlock('python');
    const newer = 'if key not in HELD or HELD[key][0] < event["sequence"]:';
    expect(page).toContain(newer);
    const { report, log } = await certifyPython('not-if-newer', page.replace(newer, 'if True:'));
    expect(report.results.find((r) => r.id === 'receiver.no-regression')!.outcome, log).toBe('fail');
  }, (CAP_SECONDS + 600) * 1000);
});

describe('the Node receiver of docs/verify-webhook-signatures.md', () => {
  it('as the page gives it, with its state probe: every receiver requirement passes, seven of seven', async () => {
    const { report, log } = await certifyReceiver('page-node', join(dir, 'receiver.mjs'), pageBlock('js'), (f) => `"${process.execPath}" "${f}"`);
    expectEveryReceiverRequirementPassed(report, log);
  }, (CAP_SECONDS + 600) * 1000);
});
