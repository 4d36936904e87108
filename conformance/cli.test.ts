/** `npm run conformance`: options, exit codes, progress lines and report files. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

function run(...args: string[]) {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe('npm run conformance', () => {
  it('exits 0 when every applicable check passed, with a line per check, a summary and the report files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conf-cli-'));
    const { code, out } = run('--suite', 'auth', '--runs', '5', '--report-dir', dir);
    expect(code, out).toBe(0);
    expect(out).toMatch(/✓ pass {2}auth\.missing-key-is-401/);
    expect(out).toMatch(/\d+ passed, 0 failed, 0 errored/);
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
  });

  it.each([
    [['--runs', 'many'], '--runs must be an integer'],
    [['--nope'], "Unknown option '--nope'"],
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
