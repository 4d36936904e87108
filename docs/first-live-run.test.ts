/**
 * The figures of the README's first live run (and the same run on
 * docs/conformance.md) are what that run prints: the quick start's
 * read-only run against `npm start`, its `proved:` and `verdict:` lines
 * compared word for word (issue 27 items 4 and 7: the first thing a new user
 * reads about a verdict must be true).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './doc-page.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'first-live-run-'));
let simulator: ChildProcess;
let printed: string;

/** The `proved:` and `verdict:` lines of a page's sample output of the run. */
function sampleLines(page: string): string[] {
  const block = codeBlocks(readFileSync(join(ROOT, page), 'utf8')).find((b) => b.lang === 'text' && /^verdict: /m.test(b.body));
  if (!block) throw new Error(`${page} shows no sample of a run's verdict`);
  return block.body.split('\n').filter((l) => /^(proved|verdict): /.test(l));
}

beforeAll(async () => {
  const fixtures = join(dir, 'fixtures.json');
  simulator = spawn(process.execPath, ['--import', 'tsx', 'simulator/cli.ts', '--memory', '--port', '0', '--fixtures-out', fixtures], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  simulator.stdout!.on('data', (s) => (out += s));
  for (let i = 0; i < 300 && !/base URL/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  const f = JSON.parse(readFileSync(fixtures, 'utf8')) as { baseUrl: string; integrations: { apiKey: string }[] };
  // The README's command: the base URL and the first demo key, nothing allowed.
  printed = await new Promise<string>((done, fail) => {
    execFile(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', '--target', f.baseUrl, '--api-key', f.integrations[0]!.apiKey, '--report-dir', join(dir, 'reports')], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error && error.code !== 0) fail(new Error(`the run failed: ${stderr}${stdout}`));
      else done(stdout);
    });
  });
}, 150_000);

afterAll(() => {
  simulator?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('the first live run, as the pages show it', () => {
  it.each(['README.md', 'docs/conformance.md'])('%s shows the proved and verdict lines the run prints', (page) => {
    const lines = printed.split('\n').filter((l) => /^(proved|verdict): /.test(l));
    expect(lines).toHaveLength(2);
    expect(sampleLines(page)).toEqual(lines);
  });

  it('README.md: the gated command\'s comment names the figure the run proved', () => {
    const proved = /^proved: (\d+) of (\d+) checks/m.exec(printed)!;
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`--require-applicable 0.9   # ${proved[1]} of ${proved[2]} is too little: INSUFFICIENT → exit 1`);
  });
});
