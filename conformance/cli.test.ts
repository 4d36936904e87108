/** `npm run conformance`: options, exit codes, progress lines and report files. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleReport } from '../reporting/sample-report.ts';
import { writeReports } from '../reporting/write.ts';
import { nodeArgs } from '../build/node-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

function run(...args: string[]) {
  const res = spawnSync(process.execPath, [...nodeArgs('conformance/cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe('npm run conformance', () => {
  it('exits 0 when every applicable check passed, with a line per check, a summary and the report files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conf-cli-'));
    const { code, out } = run('--suite', 'auth', '--runs', '5', '--report-dir', dir);
    expect(code, out).toBe(0);
    expect(out).toMatch(/✓ pass {2}auth\.missing-key-is-401/);
    expect(out).toMatch(/\d+ passed, 0 failed, 0 errored/);
    // One suite of the catalogue passed: the verdict says so, with how much it proved, and still exits 0 (no gate asked).
    // How much it proved, then the reports, and last the verdict that rests on it.
    expect(out).toMatch(/\nproved: (\d+) of (\d+) checks of the catalogue applicable \(\d+ not applicable, \d+ skipped, \d+ not selected\); [^\n]*\nreports: [^\n]*\n[^\n]*\n[^\n]*\nverdict: PASSED, PARTIAL — \1 of \2 checks applicable, \d+ of \d+ testable clauses proven; no gate asked for more[^\n]*\n$/);
    for (const f of ['index.html', 'junit.xml', 'report.json']) expect(existsSync(join(dir, 'latest', f))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8'));
    expect(report.results.every((r: { suite: string }) => r.suite === 'auth')).toBe(true);
  });

  it('exits 1 on a failure and prints what was received, what is documented and the replay command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conf-cli-'));
    const { code, out } = run('--check', 'auth.missing-key-is-401', '--fault', 'unauthenticated-403', '--enable-faults', '--seed', '3', '--report-dir', dir);
    expect(code).toBe(1);
    expect(out).toContain('✗ FAIL  auth.missing-key-is-401');
    expect(out).toMatch(/Received: +403 UNAUTHENTICATED/);
    expect(out).toMatch(/Documented: 401 UNAUTHENTICATED .*\(5\.R5b\)/);
    expect(out).toContain('Replay:     npm run conformance -- --fault unauthenticated-403 --enable-faults --check auth.missing-key-is-401 --seed=3');
    // The failing request as a person can paste it (no credential here: the check sends none).
    expect(out).toMatch(/\n {8}Request: {4}curl -sS -i 'http:\/\/127\.0\.0\.1:\d+\/api\/integrations\/v1\/me' \\\n {22}-H 'Accept: application\/json'\n/);
    // The run ends with the failure again (check, clause, replay) and a verdict naming the failed check (issue 41 item 4).
    expect(out.trimEnd().split('\n').slice(-4)).toEqual([
      'failures (1), each replayed by its command:',
      '  ✗ auth.missing-key-is-401  §5.R5b UnexpectedStatus',
      '      npm run conformance -- --fault unauthenticated-403 --enable-faults --check auth.missing-key-is-401 --seed=3',
      expect.stringMatching(/^verdict: FAILED — 1 failed, 0 errored \(auth\.missing-key-is-401\); /),
    ]);
  });

  it.each([
    [['--runs', 'many'], '--runs must be an integer'],
    [['--nope'], 'unknown option --nope'],
    [['--fault', 'bad-body-500'], 'add --enable-faults'],
    [['--fault', 'no-such-fault', '--enable-faults'], 'unknown --fault "no-such-fault"'],
    [['--target', 'http://127.0.0.1:1/api/integrations/v1'], '--target needs --api-key'],
    [['--target', 'http://127.0.0.1:1/api/integrations/v1', '--api-key', 'k', '--allow-writes'], 'needs at least one --property'],
    [['--suite', 'nope'], 'unknown suite "nope"'],
  ])('refuses %j with exit code 2 and a message naming the option', (args, message) => {
    const { code, err } = run(...args);
    expect(err).toContain(message);
    expect(code).toBe(2);
  });

  it('--list shows every check with its suite, level, needs and clauses', () => {
    const { code, out } = run('--list');
    expect(code).toBe(0);
    expect(out).toMatch(/idempotency\.replay-byte-for-byte +idempotency +normative +write +4\.5\.R1/);
  });
});

describe('npm run conformance -- --merge', () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  /** Two deployments' report directories as runs leave them: one failed (the sample), one passed. */
  function twoRuns() {
    const root = mkdtempSync(join(tmpdir(), 'conf-merge-'));
    roots.push(root);
    const failed = sampleReport();
    failed.target.label = 'staging-eu';
    writeReports(failed, join(root, 'eu'));
    const passed = sampleReport();
    passed.runId = '20260914T110000-aaaaaa';
    passed.target = { kind: 'live', baseUrl: 'https://staging.us.example/api/integrations/v1', capabilities: ['read'] };
    passed.results = passed.results.filter((r) => r.outcome === 'passed');
    passed.summary = { ...passed.summary, failed: 0, errored: 0, verdict: 'passed', gate: [] };
    const us = writeReports(passed, join(root, 'us'));
    return { root, usRun: us.dir };
  }

  it('writes one report.json, junit.xml and index.html with a column per deployment, exit 1 when a run failed', () => {
    const { root, usRun } = twoRuns();
    const out = join(root, 'merged');
    const { code, out: stdout, err } = run('--merge', join(root, 'eu'), usRun, '--report-dir', out);
    expect(err).toBe('');
    expect(code).toBe(1);
    expect(stdout).toMatch(/Merged 2 run\(s\) of API 2026-09:\n {2}staging-eu +FAILED/);
    expect(stdout).toMatch(/\n {2}staging\.us\.example +PASSED/);
    expect(stdout).toContain('verdict: FAILED');
    const merged = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8'));
    expect(merged.kind).toBe('merged');
    expect(merged.deployments.map((d: { label: string }) => d.label)).toEqual(['staging-eu', 'staging.us.example']);
    expect(merged.summary.verdict).toBe('failed');
    for (const f of ['index.html', 'junit.xml']) expect(readFileSync(join(out, 'latest', f), 'utf8')).toContain('staging.us.example');
  });

  it('exits 0 when every run passed', () => {
    const { root, usRun } = twoRuns();
    const { code, out } = run('--merge', usRun, '--report-dir', join(root, 'm1'));
    expect(code, out).toBe(0);
    expect(out).toContain('verdict: PASSED');
  });

  it('takes the DIRs as repeated flags too (--merge a --merge b)', () => {
    const { root, usRun } = twoRuns();
    const { out } = run('--merge', join(root, 'eu'), '--report-dir', join(root, 'm2'), '--merge', usRun);
    const merged = JSON.parse(readFileSync(join(root, 'm2', 'latest', 'report.json'), 'utf8'));
    expect(merged.deployments.map((d: { label: string }) => d.label), out).toEqual(['staging-eu', 'staging.us.example']);
  });

  it.each([
    ['a DIR without report.json', (root: string) => ['--merge', root, '--report-dir', join(root, 'out')], /error: --merge .*: no report\.json/],
    ['a DIR that does not exist', (root: string) => ['--merge', join(root, 'nope'), '--report-dir', join(root, 'out')], /error: --merge .*nope: no such directory/],
    ['--merge with a run flag', (root: string) => ['--merge', join(root, 'eu'), '--target', 'http://x', '--allow-writes', '--report-dir', join(root, 'out')], /error: --merge combines finished runs and takes only --report-dir; drop --target, --allow-writes/],
    ['--merge with no DIR', () => ['--merge'], /error: --merge needs a value\n/],
    ['--merge without --report-dir', (root: string) => ['--merge', join(root, 'eu')], /error: --merge needs --report-dir OUT/],
    ['--report-dir that is one of the DIRs', (root: string) => ['--merge', join(root, 'eu'), '--report-dir', join(root, 'eu')], /error: --report-dir .* is also a directory to merge/],
    ['runs of different API versions', (root: string) => {
      const other = sampleReport();
      other.apiVersion = '2027-01';
      other.target.label = 'next';
      writeReports(other, join(root, 'next'));
      return ['--merge', join(root, 'eu'), join(root, 'next'), '--report-dir', join(root, 'out')];
    }, /error: --merge: the runs test different API versions/],
    ['two runs of one deployment', (root: string) => ['--merge', join(root, 'eu'), join(root, 'eu', 'latest'), '--report-dir', join(root, 'out')], /error: --merge: .* both name the deployment "staging-eu" \(the same run given twice\)/],
    ['a word without --merge', () => ['reports/latest'], /error: unexpected argument "reports\/latest"/],
    ['an empty --label', () => ['--label', ' '], /error: --label is empty/],
    ['an empty --target (an unset CI variable)', () => ['--target', ''], /error: --target is empty \(an unset variable\?\)/],
  ])('refuses %s with exit code 2 and a message naming the flag', (_name, args, message) => {
    const { root } = twoRuns();
    const { code, err } = run(...args(root));
    expect(err).toMatch(message);
    expect(code).toBe(2);
  });

  it('--label is recorded in report.json as target.label', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conf-cli-'));
    const { code } = run('--check', 'auth.missing-key-is-401', '--runs', '1', '--label', 'sim-a', '--report-dir', dir);
    expect(code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')).target.label).toBe('sim-a');
  });
});
