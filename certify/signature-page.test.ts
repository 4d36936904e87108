/**
 * Issue 41 item 7: a receiver written from docs/verify-webhook-signatures.md
 * alone passes certify's receiver requirements. The page's Python block is
 * extracted as it stands, started by certify (--partner-command, its
 * certification file in CERTIFY_CREDENTIALS) in a --receiver-only run, and
 * every receiver requirement it can show passes. The same block with one
 * mistake the page warns about (the HMAC over re-serialised JSON) fails
 * receiver.raw-body-signature: the run bites.
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

function pythonReceiver(): string {
  const block = codeBlocks(readFileSync(PAGE, 'utf8')).find((b) => b.lang === 'python');
  if (!block) throw new Error('docs/verify-webhook-signatures.md has no python block');
  return `${block.body}\n`;
}

async function certifyPython(name: string, source: string) {
  const file = join(dir, `${name}.py`);
  writeFileSync(file, source);
  const port = await freePort();
  const lines: string[] = [];
  const { report } = await runCertification({
    webhookUrl: `http://127.0.0.1:${port}/webhook`,
    receiverOnly: true,
    partnerCommand: `PORT=${port} exec python3 "${file}"`,
    durationSeconds: CAP_SECONDS,
    readyTimeoutSeconds: 600,
    seed: 7,
    reportDir: null,
    credentialsOut: join(dir, `${name}.json`),
    log: (l) => lines.push(l),
  });
  return { report, log: lines.join('\n') };
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
  it('as the page gives it: every receiver requirement passes but no-regression, not observed without a state probe; nothing fails', async () => {
    const { report, log } = await certifyPython('page', pythonReceiver());
    const outcomes = Object.fromEntries(report.results.map((r) => [r.id, r.outcome]));
    for (const r of REQUIREMENTS.filter((x) => x.group === 'receiver')) {
      expect(outcomes[r.id], `${r.id}\n${log}`).toBe(r.id === 'receiver.no-regression' ? 'not_observed' : 'pass');
    }
    expect(report.results.filter((r) => r.outcome === 'fail').map((r) => r.id), log).toEqual([]);
  }, (CAP_SECONDS + 600) * 1000);

  it('bites: the same receiver hashing re-serialised JSON fails receiver.raw-body-signature', async () => {
    const page = pythonReceiver();
    const raw = 'signed = str(t).encode() + b"." + raw_body';
    expect(page).toContain(raw);
    const broken = page.replace(raw, 'signed = str(t).encode() + b"." + json.dumps(json.loads(raw_body), separators=(",", ":"), ensure_ascii=False).encode()');
    const { report, log } = await certifyPython('reserialised', broken);
    expect(report.results.find((r) => r.id === 'receiver.raw-body-signature')!.outcome, log).toBe('fail');
  }, (CAP_SECONDS + 600) * 1000);
});
