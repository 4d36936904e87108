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
import { nodeArgs } from '../build/node-command.ts';
import { whenStarted } from '../conformance/child-started.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'first-live-run-'));
let simulator: ChildProcess;
let printed: string;

/** The lines whose figures a page states: what was proven, the verdict, and the bite of what the run proved. */
const STATED = /^(proved|verdict|bite): /;

/** Those lines of a page's sample output of the run. */
function sampleLines(page: string): string[] {
  const block = codeBlocks(readFileSync(join(ROOT, page), 'utf8')).find((b) => b.lang === 'text' && /^verdict: /m.test(b.body));
  if (!block) throw new Error(`${page} shows no sample of a run's verdict`);
  return block.body.split('\n').filter((l) => STATED.test(l));
}

beforeAll(async () => {
  const fixtures = join(dir, 'fixtures.json');
  simulator = spawn(process.execPath, [...nodeArgs('simulator/cli.ts'), '--memory', '--port', '0', '--fixtures-out', fixtures], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  simulator.stdout!.on('data', (s) => (out += s));
  if (!(await whenStarted(simulator, () => out, /base URL/))) throw new Error(`the simulator did not start: ${out}`);
  const f = JSON.parse(readFileSync(fixtures, 'utf8')) as { baseUrl: string; integrations: { apiKey: string }[] };
  // The README's command: the base URL and the first demo key, nothing allowed.
  printed = await new Promise<string>((done, fail) => {
    execFile(process.execPath, [...nodeArgs('conformance/cli.ts'), '--target', f.baseUrl, '--api-key', f.integrations[0]!.apiKey, '--report-dir', join(dir, 'reports')], { cwd: ROOT }, (error, stdout, stderr) => {
      if (error && error.code !== 0) fail(new Error(`the run failed: ${stderr}${stdout}`));
      else done(stdout);
    });
  });
});

afterAll(() => {
  simulator?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('the first live run, as the pages show it', () => {
  it.each(['README.md', 'docs/conformance.md'])('%s shows the proved and verdict lines (and the bite line, where it shows one) the run prints', (page) => {
    const lines = printed.split('\n').filter((l) => STATED.test(l));
    expect(lines.filter((l) => /^(proved|verdict): /.test(l))).toHaveLength(2);
    const shown = sampleLines(page);
    expect(shown.filter((l) => /^(proved|verdict): /.test(l))).toHaveLength(2);
    expect(shown).toEqual(lines.filter((l) => shown.some((s) => s.split(':')[0] === l.split(':')[0])));
  });

  it('docs/conformance.md: the run\'s first line has the counts the run prints (time and seed are the sample\'s)', () => {
    const counts = (text: string) => /^(\d+ passed, \d+ failed, \d+ errored, \d+ not applicable, \d+ skipped) in /m.exec(text)?.[1];
    const block = codeBlocks(readFileSync(join(ROOT, 'docs/conformance.md'), 'utf8')).find((b) => b.lang === 'text' && /^verdict: /m.test(b.body))!;
    expect(counts(block.body)).toBe(counts(printed));
  });

  it('README.md: the gated command\'s comment names the figure the run proved', () => {
    const proved = /^proved: (\d+) of (\d+) checks/m.exec(printed)!;
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`--require-applicable 0.9   # ${proved[1]} of ${proved[2]} is too little: INSUFFICIENT → exit 1`);
  });

  it('fits in 40 lines and ends with what to add to the run, each group with its count, then the verdict (issue 41 item 3)', () => {
    const lines = printed.trimEnd().split('\n');
    expect(lines.length, printed).toBeLessThanOrEqual(40);
    expect(lines.at(-1)).toMatch(/^verdict: PASSED, PARTIAL — /);
    const heading = lines.findIndex((l) => /^not applicable: what to add to the run to make them applicable \(\d+ in all\):$/.test(l));
    expect(heading, printed).toBeGreaterThan(0);
    const groups = lines.slice(heading + 1, -1);
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(g).toMatch(/^ {2}\+ *\d+ {2}\S/);
    // The counts add up to the checks not applicable, and no check has a line of its own saying so.
    const notApplicable = Number(/ (\d+) not applicable,/.exec(printed)![1]);
    expect(groups.reduce((n, g) => n + Number(/\+ *(\d+)/.exec(g)![1]), 0)).toBe(notApplicable);
    expect(printed).not.toMatch(/^- n\/a/m);
    expect(groups[0]).toMatch(/^ {2}\+ *\d+ {2}--allow-writes --property ID$/);
    // Nothing was left out by --normative-only: no word of an assumption left out.
    expect(printed).not.toContain('assumption this run left out');
  });
});
