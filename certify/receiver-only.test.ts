/**
 * Issue 41 items 7 and 8: `--receiver-only` grades the receiver alone and
 * ends on events (no partner timer is waited for), not-observed requirements
 * come under their one cause, and a receiver that never answers is a setup
 * problem (exit 2, no certificate), not a grade. Each receiver requirement a
 * receiver-only run grades is shown to fail against the partner double
 * broken that one way.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../build/node-command.ts';
import { PartnerDouble, type Breakage } from './partner-double.ts';
import { RECEIVER_ONLY_STEPS } from './plan.ts';
import { REQUIREMENTS } from './requirements.ts';
import { runCertification } from './run.ts';
import { NOTHING_LISTENING_MS } from './nothing-listening.ts';
import { CertifySetupError } from './setup-error.ts';
import { freePort } from './test-support.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'certify-receiver-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A cap far above the need (issue 38): a receiver-only run ends when its last step is done. */
const CAP_SECONDS = 1_800;

async function receiverOnlyRun(name: string, breakage: Breakage | null) {
  const port = await freePort();
  const lines: string[] = [];
  let double: PartnerDouble | null = null;
  try {
    const result = await runCertification({
      webhookUrl: `http://127.0.0.1:${port}/webhook`,
      stateUrl: `http://127.0.0.1:${port}/state`,
      receiverOnly: true,
      durationSeconds: CAP_SECONDS,
      readyTimeoutSeconds: 600,
      seed: 41,
      reportDir: null,
      credentialsOut: join(dir, `${name}.json`),
      log: (l) => lines.push(l),
      onCredentials: async (path) => void (double = await PartnerDouble.start({ credentialsPath: path, port, breakage })),
    });
    return { ...result, lines };
  } finally {
    await (double as PartnerDouble | null)?.stop();
  }
}

describe('certify --receiver-only', () => {
  it('a correct receiver: every receiver requirement passes, usage and recovery are not observed under one cause, the plan says its scope', async () => {
    const { report, lines } = await receiverOnlyRun('clean', null);
    const log = lines.join('\n');
    const outcomes = Object.fromEntries(report.results.map((r) => [r.id, r.outcome]));
    // The double also calls the API on its own timers: what it showed is graded (evidence is evidence); nothing else is exercised.
    for (const r of REQUIREMENTS) expect(outcomes[r.id], `${r.id}\n${log}`).toMatch(r.group === 'receiver' ? /^pass$/ : /^(pass|not_observed)$/);
    expect(report.plan.scope).toBe('receiver-only');
    expect(report.plan.steps.map((s) => s.id)).toEqual([...RECEIVER_ONLY_STEPS]);
    expect(report.verdict).toBe('certified-with-gaps');
    console.log(`a receiver-only run took ${(report.summary.ms / 1000).toFixed(1)} s`);
    // One line for the cause, then the ids it covers: not twelve summaries of missing calls.
    const others = report.results.filter((r) => r.group !== 'receiver' && r.outcome === 'not_observed').length;
    expect(others).toBeGreaterThan(1);
    expect(log).toContain(`not observed, ${others} requirements: not exercised: a --receiver-only run grades your receiver alone`);
    expect(log).toMatch(/^receiver: 7 pass, 0 fail, 0 not observed of 7 requirements \(--receiver-only\)$/m);
    // The first lines say where the signature scheme is written down; progress is said between steps.
    expect(log).toContain('docs/verify-webhook-signatures.md');
    expect(log).toMatch(/^ {2}\(1 of 5\) Platform deliveries$/m);
  }, (CAP_SECONDS + 600) * 1000);

  it.each([
    ['skipSignature', 'receiver.refuses-bad-signature'],
    ['reserialisedSignature', 'receiver.raw-body-signature'],
    ['rejectDuplicates', 'receiver.redelivery'],
  ] as Array<[Breakage, string]>)('bites: a receiver broken by %s fails %s', async (breakage, requirement) => {
    const { report, lines } = await receiverOnlyRun(breakage, breakage);
    const failed = report.results.filter((r) => r.outcome === 'fail').map((r) => r.id);
    expect(failed, lines.join('\n')).toContain(requirement);
    expect(report.verdict).toBe('not-certified');
  }, (CAP_SECONDS + 600) * 1000);
});

describe('--duration counts from the receiver\'s first 2xx (issue 38)', () => {
  it('a receiver that first answers after longer than --duration still has the run\'s steps graded: the wait before it is --ready-timeout\'s alone', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const durationSeconds = 60;
    let double: PartnerDouble | null = null;
    let late: ReturnType<typeof setTimeout> | undefined;
    try {
      const { report } = await runCertification({
        webhookUrl: `http://127.0.0.1:${port}/webhook`,
        stateUrl: `http://127.0.0.1:${port}/state`,
        receiverOnly: true,
        durationSeconds,
        readyTimeoutSeconds: 1_800,
        seed: 38,
        reportDir: null,
        credentialsOut: join(dir, 'late-receiver.json'),
        log: (l) => lines.push(l),
        // Started by hand in a second terminal, after longer than the whole --duration: nothing listens meanwhile.
        onCredentials: (path) => void (late = setTimeout(() => void PartnerDouble.start({ credentialsPath: path, port, breakage: null }).then((d) => (double = d)), (durationSeconds + 5) * 1000)),
      });
      const log = lines.join('\n');
      // The whole duration is still ahead at the first 2xx, whatever the wait before it and the machine's speed.
      const ahead = Number(/^ {2}grading for up to (\d+) s from now \(--duration counts from the receiver's first 2xx\)$/m.exec(log)?.[1]);
      expect(ahead, log).toBeGreaterThan(durationSeconds - 5);
      expect(ahead, log).toBeLessThanOrEqual(durationSeconds);
      expect(log, log).toMatch(/^ {2}\(1 of 5\) Platform deliveries$/m);
      expect(report.warnings.join('\n')).not.toMatch(/--duration ran out before step platform-events/);
      expect(report.results.find((r) => r.id === 'receiver.accepts-valid')?.outcome, log).not.toBe('not_observed');
    } finally {
      clearTimeout(late);
      await (double as PartnerDouble | null)?.stop();
    }
  }, 3_600_000);
});

describe('a receiver that never answers is a setup problem, not a grade', () => {
  it('runCertification throws CertifySetupError naming the cause; the certification file says finished', async () => {
    const port = await freePort();
    const path = join(dir, 'closed.json');
    const run = runCertification({ webhookUrl: `http://127.0.0.1:${port}/webhook`, receiverOnly: true, readyTimeoutSeconds: 1, seed: 8, reportDir: null, credentialsOut: path });
    await expect(run).rejects.toBeInstanceOf(CertifySetupError);
    await expect(run).rejects.toThrow(`never answered a signed ping with a 2xx (last: ECONNREFUSED 127.0.0.1:${port})`);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ finished: true });
  });

  it('npm run certify with default settings against a closed webhook port exits 2 once nothing listened for NOTHING_LISTENING_MS, not after the ready wait; no certificate, no report, nothing graded', async () => {
    const port = await freePort();
    const reports = join(dir, 'closed-reports');
    // Default settings (no --duration, no --ready-timeout): the ready wait would be 60 s; a refused port ends it at 10 s.
    const child = spawn(process.execPath, [...nodeArgs('certify/cli.ts'), '--webhook-url', `http://127.0.0.1:${port}/webhook`, '--report-dir', reports], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (out += d.toString()));
    const started = performance.now();
    const code = await new Promise<number>((ok) => child.once('close', (c) => ok(c ?? -1)));
    const seconds = (performance.now() - started) / 1000;
    expect(code, out).toBe(2);
    expect(out).toMatch(/^waiting up to 60 s \(--ready-timeout\) for your receiver to answer a signed ping 2xx; a port that refuses every connection for 10 s ends the run/m);
    expect(out).toMatch(/^error: the partner's receiver at http:\/\/127\.0\.0\.1:\d+\/webhook never answered a signed ping with a 2xx \(last: ECONNREFUSED/m);
    // Ended by the refusals (the event), not by the 60 s cap: the message says which, and what gives a later receiver time.
    expect(out).toContain(`nothing listens there: every connection was refused for ${NOTHING_LISTENING_MS / 1000} s`);
    expect(out).toContain('gets longer with --ready-timeout S');
    expect(out).toContain('(a setup problem: nothing was graded, no report or certificate written)');
    // A progress line may come first on a loaded machine (it is printed every 10 s, as the refusals' span is): not a verdict.
    expect(out).not.toMatch(/^step |^verdict:/m);
    expect(existsSync(join(reports, 'certify', 'latest', 'certificate.json'))).toBe(false);
    expect(existsSync(join(reports, 'certify', 'latest', 'report.json'))).toBe(false);
    // Said, not judged: how long the setup problem took to find (the refused window and a simulator's start).
    console.log(`certify against a closed port exited 2 after ${seconds.toFixed(1)} s`);
  });

  it('with --ready-timeout given, a refused port is waited for the whole time (a receiver started by hand later gets its time)', async () => {
    const port = await freePort();
    const lines: string[] = [];
    // 1 s, below the refused window: the ready wait's own cap ends it, and the message is the plain one.
    const run = runCertification({ webhookUrl: `http://127.0.0.1:${port}/webhook`, receiverOnly: true, readyTimeoutSeconds: 1, seed: 9, reportDir: null, credentialsOut: join(dir, 'explicit.json'), log: (l) => lines.push(l) });
    const error = await run.then(() => null, (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(CertifySetupError);
    expect(error!.message).not.toContain('nothing listens there');
    expect(lines.join('\n')).not.toContain('refuses every connection');
  });
});
