/**
 * Issue 27 item 5, on a real failing run (the in-process simulator with a
 * deliberate breach, simulator/faults.ts): the HTML report puts the first
 * failure's difference and its curl right after the summary, before the
 * clause grid, and junit.xml and report.json carry the same curl.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/runner.ts';
import type { CheckResult, RunReport } from '../conformance/types.ts';
import { writeReports } from './write.ts';

const dir = mkdtempSync(join(tmpdir(), 'failures-first-'));
let html: string;
let junit: string;
let report: RunReport;
let failed: CheckResult;

beforeAll(async () => {
  // `unauthenticated-403` answers 403 where §5 documents 401 UNAUTHENTICATED; one passing check beside it.
  const run = await runConformance({ target: 'in-process', checks: ['auth.missing-key-is-401', 'auth.staff-token-is-403'], fault: 'unauthenticated-403', seed: 3, runs: 3 });
  const written = writeReports(run, dir);
  html = readFileSync(written.files.html, 'utf8');
  junit = readFileSync(written.files.junit, 'utf8');
  report = JSON.parse(readFileSync(written.files.json, 'utf8')) as RunReport;
  failed = report.results.find((r) => r.outcome === 'failed')!;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a failing run\'s reports put the failure first', () => {
  it('the run failed the check the fault breaks, and recorded the call it judged', () => {
    expect(failed.id).toBe('auth.missing-key-is-401');
    expect(failed.failure!.exchange).toBe(failed.exchanges.at(-1)!.n);
  });

  it('index.html: summary, then the first failure\'s difference and its curl, then the clause grid', () => {
    const summaryEnd = html.indexOf('</section>', html.indexOf('<section id="summary"'));
    const failures = html.indexOf('<section id="failures"');
    const diff = html.indexOf('<div class="diff"', failures);
    const marked = html.indexOf('<del>401</del>', diff);
    const curl = html.indexOf(`<pre id="check-auth-missing-key-is-401-curl"><code>curl -sS -i `, diff);
    const grid = html.indexOf('<section id="coverage"');
    const firstTile = html.indexOf('<li class="tile');
    expect(summaryEnd).toBeGreaterThan(0);
    expect([summaryEnd, failures, diff, marked, curl, grid, firstTile].every((at, i, all) => at > 0 && (i === 0 || at > all[i - 1]!))).toBe(true);
    // Right after the summary: only the section heading and the failure's own header come between.
    expect(html.slice(summaryEnd, diff).replace(/\s+/g, ' ')).toMatch(/^<\/section> <section id="failures" aria-labelledby="failures-h"> <h2 id="failures-h">Failures and errors<\/h2> <article class="failure o-failed" id="check-auth-missing-key-is-401"> <header class="f-head">[\s\S]*<\/header> $/);
    // The difference marks the status the fault changed, nothing else.
    expect(html.slice(diff, curl)).toContain('<span class="txt"><del>401</del> UNAUTHENTICATED for GET /me without Authorization</span>');
    expect(html.slice(diff, curl)).toContain('<span class="txt"><ins>403</ins> UNAUTHENTICATED for GET /me without Authorization</span>');
  });

  it('the curl is the failing request: no Authorization (the check sends none), the URL it called', () => {
    const judged = failed.exchanges.find((e) => e.n === failed.failure!.exchange)!;
    expect(failed.curl).toBe(`curl -sS -i '${judged.url}' \\\n  -H 'Accept: application/json'`);
    const escaped = failed.curl!.replace(/&/g, '&amp;').replace(/'/g, '&#39;');
    expect(html).toContain(escaped);
  });

  it('junit.xml carries the diff and the curl in the failure text, report.json the curl in results[].curl', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) });
    const suites = (parser.parse(junit) as { testsuites: { testsuite: Array<{ testcase: Array<{ '@_name': string; failure?: { '#text': string } }> }> } }).testsuites;
    const text = suites.testsuite.flatMap((s) => s.testcase).find((t) => t['@_name'].startsWith('auth.missing-key-is-401:'))!.failure!['#text'];
    expect(text).toContain('Diff:       [-401-]{+403+} UNAUTHENTICATED for GET /me without Authorization');
    expect(text).toContain(`Request (call #${failed.failure!.exchange}), as curl:\n  ${failed.curl!.split('\n').join('\n  ')}`);
    expect(report.results.find((r) => r.outcome === 'passed')!.curl).toBeUndefined();
  });
});
