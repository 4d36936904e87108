import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult, RunReport } from '../conformance/types.ts';
import { summarise } from '../conformance/runner.ts';
import { HTML_BODY_LIMIT, reindentJson, renderHtml } from './html.ts';
import { renderJson } from './json.ts';
import { cdata, escapeXmlAttribute, renderJunit, xmlSafe } from './junit.ts';
import { CONTROL_CHARS, SAMPLE_SECRETS, SCRIPT_PAYLOAD, sampleReport } from './sample-report.ts';
import { containsSecret, redactSecrets, writeReports } from './write.ts';

/** The patterns of the redaction guard, written out again so the test does not trust the code under test. */
const SECRET_PATTERNS = [/dlk_[0-9a-f]{16,}/i, /stf_[0-9a-f]{16,}/i, /whsec_[0-9a-f]{16,}/i];
/** Characters XML 1.0 forbids, and the C0 controls an HTML page must not carry raw. */
const ILLEGAL_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

// ------------------------------------------------------------------ JUnit

interface Property { '@_name': string; '@_value': string }
interface TestCase {
  '@_classname': string; '@_name': string; '@_time': string;
  properties: { property: Property[] };
  failure?: { '@_type': string; '@_message': string; '#text': string };
  error?: { '@_type': string; '@_message': string; '#text': string };
  skipped?: { '@_message': string };
  'system-out'?: string;
}
interface TestSuite { properties: { property: Property[] }; '@_name': string; '@_tests': string; '@_failures': string; '@_errors': string; '@_skipped': string; '@_time': string; testcase: TestCase[] }
interface TestSuites { '@_name': string; '@_tests': string; '@_failures': string; '@_errors': string; '@_skipped': string; '@_time': string; '@_timestamp': string; testsuite: TestSuite[] }

function parseJunit(xml: string): TestSuites {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    // character references (&#10;) are XML 1.0; this parser decodes them only with this option
    htmlEntities: true,
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  });
  return (parser.parse(xml) as { testsuites: TestSuites }).testsuites;
}

function testcaseOf(suites: TestSuites, checkId: string): TestCase {
  const found = suites.testsuite.flatMap((s) => s.testcase).find((t) => t['@_name'].startsWith(`${checkId}: `));
  if (!found) throw new Error(`no testcase for ${checkId}`);
  return found;
}

function resultOf(report: RunReport, outcome: CheckResult['outcome']): CheckResult {
  const found = report.results.find((r) => r.outcome === outcome);
  if (!found) throw new Error(`the sample report has no ${outcome} result`);
  return found;
}

describe('renderJunit', () => {
  const report = sampleReport();
  let xml: string;
  let suites: TestSuites;
  beforeAll(() => {
    xml = renderJunit(report);
    suites = parseJunit(xml);
  });

  it('is well-formed XML with an XML declaration', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
  });

  it('counts tests, failures, errors and skipped (not applicable + skipped) on <testsuites> as the summary does', () => {
    const s = report.summary;
    expect(suites['@_tests']).toBe(String(s.total));
    expect(suites['@_failures']).toBe(String(s.failed));
    expect(suites['@_errors']).toBe(String(s.errored));
    expect(suites['@_skipped']).toBe(String(s.not_applicable + s.skipped));
    expect(suites['@_time']).toBe('17.482');
    expect(suites['@_timestamp']).toBe(report.startedAt);
    expect(suites['@_name']).toContain('2026-09');
  });

  it('has one <testsuite> per suite, in order of first appearance, with its own counts and summed time', () => {
    const suiteNames = [...new Set(report.results.map((r) => r.suite))];
    expect(suites.testsuite.map((s) => s['@_name'])).toEqual(suiteNames);
    for (const ts of suites.testsuite) {
      const mine = report.results.filter((r) => r.suite === ts['@_name']);
      expect(ts['@_tests']).toBe(String(mine.length));
      expect(ts['@_failures']).toBe(String(mine.filter((r) => r.outcome === 'failed').length));
      expect(ts['@_errors']).toBe(String(mine.filter((r) => r.outcome === 'errored').length));
      expect(ts['@_skipped']).toBe(String(mine.filter((r) => r.outcome === 'not_applicable' || r.outcome === 'skipped').length));
      expect(ts['@_time']).toBe((mine.reduce((sum, r) => sum + r.ms, 0) / 1000).toFixed(3));
      expect(ts.testcase).toHaveLength(mine.length);
    }
  });

  it('has one <testcase classname="conformance.<suite>" name="<id>: <title>"> per result, time in seconds', () => {
    const cases = suites.testsuite.flatMap((s) => s.testcase);
    expect(cases).toHaveLength(report.results.length);
    for (const r of report.results) {
      const tc = testcaseOf(suites, r.id);
      expect(tc['@_classname']).toBe(`conformance.${r.suite}`);
      expect(tc['@_name']).toBe(`${r.id}: ${r.title}`);
      expect(tc['@_time']).toBe((r.ms / 1000).toFixed(3));
    }
  });

  it('leads every <testsuite>\'s properties with the verdict and how much was proven; "passed, partial" for a clean run that proved less than the catalogue', () => {
    const lead = (x: TestSuites) => x.testsuite.map((t) => t.properties.property.slice(0, 4).map((p) => [p['@_name'], p['@_value']]));
    const s = report.summary;
    const failedLead = [['verdict', 'failed'], ['verdict.detail', `failed (2 failed, 1 errored): 10 of 12 checks applicable, ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven`], ['proved.checks', '10 of 12'], ['proved.clauses', `${s.clauses_proven} of ${s.clauses_testable}`]];
    expect(lead(suites)).toEqual(suites.testsuite.map(() => failedLead));
    const thin = sampleReport();
    thin.results = thin.results.filter((r) => r.outcome === 'passed' || r.outcome === 'not_applicable');
    thin.summary = summarise(thin.results, thin.coverage, { ms: 1000, bookingsCreated: 0, failOnNotApplicable: false, catalogueChecks: 82 });
    const t = thin.summary;
    expect(lead(parseJunit(renderJunit(thin)))[0]).toEqual([
      ['verdict', 'passed, partial'],
      ['verdict.detail', `passed, partial: 7 of 82 checks applicable, ${t.clauses_proven} of ${t.clauses_testable} testable clauses proven`],
      ['proved.checks', '7 of 82'],
      ['proved.clauses', `${t.clauses_proven} of ${t.clauses_testable}`],
    ]);
    expect(thin.summary.verdict_detail).toBe(`passed, partial: 7 of 82 checks applicable, ${t.clauses_proven} of ${t.clauses_testable} testable clauses proven`);
  });

  it('gives every testcase its clause ids, level and outcome as properties', () => {
    for (const r of report.results) {
      const props = Object.fromEntries(testcaseOf(suites, r.id).properties.property.map((p) => [p['@_name'], p['@_value']]));
      expect(props).toMatchObject({ check: r.id, clauses: r.clauses.join(','), level: r.level, outcome: r.outcome });
    }
  });

  it('turns a failed check into <failure type="<kind>"> saying Received, Documented, clause, replay command, seed and path', () => {
    const failed = report.results.find((r) => r.outcome === 'failed' && r.property);
    if (!failed?.failure || !failed.property) throw new Error('the sample report needs a failed property');
    const tc = testcaseOf(suites, failed.id);
    expect(tc.failure?.['@_type']).toBe(failed.failure.kind);
    expect(tc.failure?.['@_message']).toBe(`Received: ${failed.failure.received} / Documented: ${failed.failure.documented} (${failed.failure.clause})`);
    const body = tc.failure?.['#text'] ?? '';
    expect(body).toContain(`Received:   ${failed.failure.received}`);
    expect(body).toContain(`Documented: ${failed.failure.documented}`);
    expect(body).toContain(`Clause:     ${failed.failure.clause}`);
    expect(body).toContain(`Replay:     ${failed.replay}`);
    expect(body).toContain(`Seed:       ${failed.property.seed}  path: ${failed.property.path}`);
    expect(body).toContain(failed.property.counterexample);
    expect(tc.error).toBeUndefined();
    expect(tc.skipped).toBeUndefined();
  });

  it('turns an errored check into <error> with the error text and replay command', () => {
    const errored = resultOf(report, 'errored');
    const tc = testcaseOf(suites, errored.id);
    expect(tc.error?.['@_type']).toBe('TypeError');
    expect(tc.error?.['@_message']).toContain("Cannot read properties of undefined (reading 'sequence')");
    expect(tc.error?.['#text']).toContain('at watermarkCheck (conformance/checks/snapshots.ts:88:31)');
    expect(tc.error?.['#text']).toContain(`Replay:     ${errored.replay}`);
    expect(tc.failure).toBeUndefined();
  });

  it('turns not_applicable and skipped checks into <skipped message="<reason>"/>', () => {
    for (const outcome of ['not_applicable', 'skipped'] as const) {
      const r = resultOf(report, outcome);
      const tc = testcaseOf(suites, r.id);
      expect(tc.skipped?.['@_message']).toBe(r.reason);
      expect(tc.failure).toBeUndefined();
      expect(tc.error).toBeUndefined();
    }
  });

  it('leaves a passed check with no failure, error or skipped element', () => {
    const tc = testcaseOf(suites, resultOf(report, 'passed').id);
    expect(tc.failure).toBeUndefined();
    expect(tc.error).toBeUndefined();
    expect(tc.skipped).toBeUndefined();
  });

  it('puts the exchanges of a failing run in <system-out>, markup kept as text and `]]>` intact through CDATA', () => {
    const out = testcaseOf(suites, resultOf(report, 'errored').id)['system-out'] ?? '';
    expect(out).toContain('#1 GET https://sandbox.partner.example.test/api/integrations/v1/properties/3101/availability');
    expect(out).toContain(SCRIPT_PAYLOAD);
    expect(out).toContain(' ]]> token=');
  });

  it('strips the control characters XML 1.0 forbids from every text and attribute', () => {
    expect(ILLEGAL_IN_XML.test(xml)).toBe(false);
    const out = testcaseOf(suites, resultOf(report, 'errored').id)['system-out'] ?? '';
    expect(out).toContain('upstream said: [31m ]]>');
  });

  it('round-trips quotes, ampersands, angle brackets, tabs and newlines in attributes', () => {
    const tricky = sampleReport();
    const r = tricky.results[0] as CheckResult;
    r.title = `a "b" & <c> 'd'\tand\nmore\u0000`;
    r.suite = 'odd & <suite>';
    const parsed = parseJunit(renderJunit(tricky));
    expect(XMLValidator.validate(renderJunit(tricky))).toBe(true);
    const tc = testcaseOf(parsed, r.id);
    expect(tc['@_name']).toBe(`${r.id}: a "b" & <c> 'd'\tand\nmore`);
    expect(tc['@_classname']).toBe('conformance.odd & <suite>');
  });

  it('stays well-formed for an empty run', () => {
    const empty = { ...sampleReport(), results: [], coverage: [] };
    const xml2 = renderJunit(empty);
    expect(XMLValidator.validate(xml2)).toBe(true);
    expect(xml2).toContain('tests="0" failures="0" errors="0" skipped="0"');
  });
});

describe('XML escaping helpers', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['markup and quotes in an attribute', { given: `<a href="x">&'`, want: '&lt;a href=&quot;x&quot;&gt;&amp;&apos;' }],
    ['whitespace kept as character references', { given: 'a\tb\nc\rd', want: 'a&#9;b&#10;c&#13;d' }],
    ['forbidden control characters stripped', { given: 'a\u0000b\u001bc\uFFFEd', want: 'abcd' }],
    ['astral characters kept', { given: 'stay 🏨', want: 'stay 🏨' }],
  ];
  it.each(cases)('escapeXmlAttribute: %s', (_, { given, want }) => {
    expect(escapeXmlAttribute(given)).toBe(want);
  });

  it('xmlSafe drops lone surrogates but keeps pairs', () => {
    expect(xmlSafe('a\uD800b\uDC00c\uD83C\uDFE8')).toBe('abc\uD83C\uDFE8');
  });

  it('cdata splits `]]>` so the section cannot close early, and parses back to the original text', () => {
    const text = 'x ]]> y ]]]]> z';
    const section = cdata(text);
    expect(section).toBe('<![CDATA[x ]]]]><![CDATA[> y ]]]]]]><![CDATA[> z]]>');
    const xml = `<r>${section}</r>`;
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ parseTagValue: false, trimValues: false }).parse(xml) as { r: string };
    expect(parsed.r).toBe(text);
  });
});

// ------------------------------------------------------------------ HTML

describe('renderHtml', () => {
  const report = sampleReport();
  let html: string;
  beforeAll(() => {
    html = renderHtml(report);
  });

  it('is one self-contained file: no src=, no external href, no <link>, no @import or url()', () => {
    expect(html).not.toMatch(/\ssrc\s*=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(/i);
    const hrefs = [...html.matchAll(/\shref\s*=\s*"([^"]*)"/gi)].map((m) => m[1] ?? '');
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^#[A-Za-z][\w-]*$/);
  });

  it('links only to anchors that exist in the page', () => {
    const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
    for (const [, target] of html.matchAll(/\shref="#([^"]+)"/g)) expect(ids.has(target)).toBe(true);
  });

  it('escapes markup from bodies and texts: the only <script> is its own', () => {
    expect(html).not.toContain(SCRIPT_PAYLOAD);
    expect(html).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;body&lt;/b&gt;');
    expect(html.match(/<script\b/gi)).toHaveLength(1);
    expect(html).toContain('&lt;API_KEY&gt;');
  });

  it('shows control characters by name instead of carrying them raw', () => {
    expect(ILLEGAL_IN_XML.test(html)).toBe(false);
    expect(html).toContain('<span class="ctl" title="control character U+001B">ESC</span>');
    expect(html).toContain('>NUL</span>');
  });

  it('has a header with run id, target, capabilities, API version, spec digest, options and duration', () => {
    const header = html.slice(html.indexOf('<header class="masthead">'), html.indexOf('</header>'));
    for (const want of [report.runId, report.target.baseUrl, '>read<', '>write<', report.apiVersion, report.specDigest, 'seed</span> 1849223017', 'runs</span> 25', '17.5 s']) {
      expect(header).toContain(want);
    }
  });

  it('has a summary with counts by outcome and a pass-rate bar', () => {
    const summary = section(html, 'summary');
    expect(summary).toContain('<div class="card o-passed"><div class="n">7</div><div class="l">Passed</div>');
    expect(summary).toContain('<div class="card o-failed"><div class="n">2</div>');
    expect(summary).toContain('<div class="card o-errored"><div class="n">1</div>');
    expect(summary).toContain('<div class="card o-not_applicable"><div class="n">1</div>');
    expect(summary).toContain('<div class="card o-skipped"><div class="n">1</div>');
    expect(summary).toContain('70%'); // 7 passed of the 10 that ran
    expect(summary).toMatch(/<div class="bar"[^>]*>(<span class="seg o-\w+" style="width:[\d.]+%"[^>]*><\/span>){5}<\/div>/);
  });

  it('has a coverage matrix with every clause, grouped by section, coloured by status, with its check ids', () => {
    const coverage = section(html, 'coverage');
    const statuses = new Set(report.coverage.map((c) => c.status));
    expect(statuses).toEqual(new Set(['passed', 'failed', 'not_run', 'uncovered', 'untestable']));
    for (const c of report.coverage) {
      const tile = new RegExp(`<li class="tile c-${c.status}"[^>]*><div class="tile-head"><span class="cid">${c.id.replace(/\./g, '\\.')}</span>`);
      expect(coverage).toMatch(tile);
      for (const check of c.checks) expect(coverage).toContain(check.replace(/_/g, '_<wbr>'));
    }
    const sections = [...coverage.matchAll(/<span class="sec">§([^<]+)<\/span>/g)].map((m) => m[1]);
    expect(sections).toEqual(['1', '3.1', '3.3', '4.2', '4.5', '4.6', '4.8', '5', '7', '8']);
  });

  it('has a results table with one row per check: suite, id, title, level badge, outcome, clauses, time', () => {
    const results = section(html, 'results');
    const rows = results.match(/<tr class="row o-/g) ?? [];
    expect(rows).toHaveLength(report.results.length);
    for (const r of report.results) {
      const row = results.slice(results.indexOf(`data-search="${r.suite} ${r.id}`));
      expect(row).toMatch(new RegExp(`^[^\\n]*\\n<td class="suite">${r.suite}</td><td class="cid">(<a [^>]+>)?<code>${r.id}</code>`));
      expect(row.slice(0, 1200)).toContain(`<span class="level ${r.level}"`);
    }
    expect(results).toContain('<span class="level assumption"');
  });

  it('gives each failure a section with clauses, the difference of Documented and Received, the property run and the exact replay command', () => {
    const failures = section(html, 'failures');
    const failed = report.results.find((r) => r.outcome === 'failed' && r.property);
    if (!failed?.failure || !failed.property) throw new Error('the sample report needs a failed property');
    const article = failures.slice(failures.indexOf(`<article class="failure o-failed" id="check-${failed.id}">`));
    // Two sentences with a word in common by chance are shown whole, not marked word by word.
    expect(article).toContain(`<span class="who">Received</span><span class="txt">${escapeForTest(failed.failure.received)}</span>`);
    expect(article).toContain(`<span class="who">Documented</span><span class="txt">${escapeForTest(failed.failure.documented)}</span>`);
    expect(article).toContain('<code>4.5.R1</code> <span class="muted">(Idempotent replay)</span>');
    expect(article).toContain(`<dt>Seed</dt><dd><code>${failed.property.seed}</code>`);
    expect(article).toContain(`<dt>Path</dt><dd><code>${failed.property.path}</code>`);
    expect(article).toContain('<dt>Runs</dt><dd>25</dd>');
    expect(article).toContain(`<pre>${escapeForTest(failed.property.counterexample ?? '')}</pre>`);
    expect(article).toContain(`<pre id="check-${failed.id}-replay"><code>${escapeForTest(failed.replay)}</code></pre>`);
    // the errored check has its own section with the error text
    expect(failures).toContain('<article class="failure o-errored" id="check-snapshot_watermark_precedes_payload">');
  });

  it('marks the words received differs in from what is documented (a difference, not two texts)', () => {
    const article = section(html, 'failures').split('<article ').find((a) => a.includes('id="check-other_integrations_booking_is_not_found"'))!;
    expect(article).toContain('<span class="who">Documented</span><span class="txt"><del>404 NOT_FOUND</del> for <del>another integration&#39;s </del>booking');
    expect(article).toContain('<span class="who">Received</span><span class="txt"><ins>403 FORBIDDEN</ins> for <ins>GET /bookings/88002 (</ins>booking');
  });

  it('shows exchanges as numbered HTTP calls with method, URL, headers, status and bodies in <pre>', () => {
    const failures = section(html, 'failures');
    expect(failures).toContain('<summary><span class="n">#2</span><span class="method">POST</span><code class="url">https://sandbox.partner.example.test/api/integrations/v1/bookings</code><span class="status s2">201</span>');
    expect(failures).toContain('<span class="hn">idempotency-key</span>: k-7f3a9c21');
    expect(failures).toContain('<span class="status s5">502</span>');
    expect(failures).toMatch(/<pre class="body">\{\n {2}&quot;external_booking_id&quot;: &quot;PX-10442&quot;,/);
  });

  it('cuts long bodies with a note and keeps short ones whole', () => {
    expect(html).toMatch(/truncated: showing the first 10,000 of [\d,]+ characters; report\.json has the whole body/);
    const longest = Math.max(...[...html.matchAll(/<pre class="body">([\s\S]*?)<\/pre>/g)].map((m) => (m[1] ?? '').replace(/&[a-z#0-9]+;/g, '_').length));
    expect(longest).toBeLessThanOrEqual(HTML_BODY_LIMIT);
  });

  it('lists not-applicable and skipped checks with their reasons', () => {
    expect(section(html, 'not-applicable')).toContain('needs staff; the live target has read, write');
    expect(section(html, 'skipped')).toContain('time budget of 120 s spent');
  });

  it('reads without JS: filters and copy buttons start hidden and the content is all in the markup', () => {
    expect(html.match(/<div class="filters"[^>]* hidden>/g)).toHaveLength(2);
    expect(html).toContain('[hidden]{display:none!important}'); // else `.filters{display:flex}` would show them
    expect(html).toMatch(/<button type="button" class="copy" data-copy="[^"]+" hidden>Copy<\/button>/);
    expect(html).not.toMatch(/<details(?! open)[^>]*>[\s\S]{0,40}<summary><span class="n">#[123]</);
  });

  it('says Passed and leaves out the failure sections for a clean run', () => {
    const clean = sampleReport();
    clean.results = clean.results.filter((r) => r.outcome === 'passed');
    const page = renderHtml(clean);
    expect(page).toContain('<div class="verdict v-passed" role="status">✓ Passed<span class="v-proof">');
    expect(page).not.toContain('id="failures"');
    expect(page).toContain('(100%)');
  });

  it('says Insufficient, never Passed, for a run that failed nothing but proved too little', () => {
    const thin = sampleReport();
    thin.results = thin.results.filter((r) => r.outcome === 'passed');
    thin.summary = { ...thin.summary, verdict: 'insufficient', gate: ['only 7 of 12 checks were applicable; --require-applicable asks for 10'] };
    const page = renderHtml(thin);
    expect(page).toContain('<div class="verdict v-insufficient" role="status">△ Insufficient<span class="v-proof">');
    expect(section(page, 'summary')).toContain('<b>Insufficient: the run proved too little.</b> only 7 of 12 checks were applicable; --require-applicable asks for 10.</p>');
  });

  it('says "Passed, partial" with how much was proven, ahead of the pass rate, for a clean run that proved less than the catalogue', () => {
    const thin = sampleReport();
    thin.results = thin.results.filter((r) => r.outcome === 'passed' || r.outcome === 'not_applicable');
    thin.summary = summarise(thin.results, thin.coverage, { ms: 1000, bookingsCreated: 0, failOnNotApplicable: false, catalogueChecks: 82 });
    const page = renderHtml(thin);
    const s = thin.summary;
    expect(s.partial).toBe(true);
    expect(page).toContain(`<title>Passed, partial · conformance run`);
    expect(page).toContain(`<div class="verdict v-partial" role="status">✓ Passed, partial<span class="v-proof">7 of 82 checks applicable · ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven</span></div>`);
    const summary = section(page, 'summary');
    const proof = summary.indexOf('<div class="big">7 <span class="of">of 82</span></div><div class="l">checks of the catalogue applicable</div>');
    const clauses = summary.indexOf(`<div class="big">${s.clauses_proven} <span class="of">of ${s.clauses_testable}</span></div><div class="l">testable clauses proven</div>`);
    const rate = summary.indexOf('Of the 7 checks that ran, 7 passed (100%).');
    expect(proof).toBeGreaterThan(0);
    expect(clauses).toBeGreaterThan(proof);
    expect(rate).toBeGreaterThan(clauses);
    expect(summary).toContain('<b>Passed, partial.</b> Every check that ran passed, but 75 of the 82 checks of the catalogue did not run here');
    // The whole catalogue proven: plain "Passed".
    const whole = { ...thin, summary: summarise(thin.results.filter((r) => r.outcome === 'passed'), thin.coverage, { ms: 1000, bookingsCreated: 0, failOnNotApplicable: false, catalogueChecks: 7 }) };
    expect(renderHtml(whole)).toContain('<div class="verdict v-passed" role="status">✓ Passed<span class="v-proof">7 of 7 checks applicable');
  });

  it('folds the clause grid into sections that open, a section with a failed clause open', () => {
    const coverage = section(html, 'coverage');
    const rows = [...coverage.matchAll(/<details class="cov-row" data-group( open)?>\n<summary class="cov-label"><span class="sec">§([^<]+)<\/span>/g)];
    expect(rows.map((m) => m[2])).toEqual(['1', '3.1', '3.3', '4.2', '4.5', '4.6', '4.8', '5', '7', '8']);
    const open = rows.filter((m) => m[1] === ' open').map((m) => m[2]);
    expect(open).toEqual([...new Set(report.coverage.filter((c) => c.status === 'failed').map((c) => c.section))].sort());
  });
});

describe('reindentJson', () => {
  it('re-indents without touching tokens: number literals and duplicate keys stay as received', () => {
    expect(reindentJson('{"a":1.50,"a":[],"b":{},"c":["x,y",{"d":"\\"}"}]}')).toBe(
      '{\n  "a": 1.50,\n  "a": [],\n  "b": {},\n  "c": [\n    "x,y",\n    {\n      "d": "\\"}"\n    }\n  ]\n}',
    );
  });
  it('leaves text that is not JSON alone', () => {
    expect(reindentJson('<html></html>', { 'content-type': 'text/html' })).toBeNull();
    expect(reindentJson('{not json', { 'Content-Type': 'application/json' })).toBeNull();
  });
});

// ------------------------------------------------------------------ JSON

describe('renderJson', () => {
  it('parses back to a report equal to the one rendered', () => {
    const report = sampleReport();
    expect(JSON.parse(renderJson(report))).toEqual(report);
  });

  it('is stable: the same report built in another key order renders byte for byte the same', () => {
    const report = sampleReport();
    const shuffled = JSON.parse(JSON.stringify(report, (_key, value: unknown) => (
      value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value
    ))) as RunReport;
    expect(Object.keys(shuffled)[0]).toBe('summary');
    expect(renderJson(shuffled)).toBe(renderJson(report));
  });

  it('is pretty-printed with two spaces, the runId first and a trailing newline', () => {
    const json = renderJson(sampleReport());
    expect(json.startsWith('{\n  "runId": "20260914T102205-3fa9c1",\n  "startedAt"')).toBe(true);
    expect(json.endsWith('}\n')).toBe(true);
  });
});

// ------------------------------------------------------------------ writing and redaction

describe('redactSecrets', () => {
  const key = SAMPLE_SECRETS.apiKey;
  const cases: Array<[string, { given: string; want: string }]> = [
    ['a bearer header value as a whole', { given: `authorization: Bearer ${key}`, want: 'authorization: <redacted>' }],
    ['a bare API key', { given: `key=${key}&x=1`, want: 'key=<redacted>&x=1' }],
    ['a staff token', { given: `"${SAMPLE_SECRETS.staffToken}"`, want: '"<redacted>"' }],
    ['a webhook secret', { given: `secret ${SAMPLE_SECRETS.webhookSecret}.`, want: 'secret <redacted>.' }],
    ['upper-case hex', { given: key.toUpperCase().replace('DLK_', 'dlk_'), want: '<redacted>' }],
    ['a short prefix-alike left alone', { given: 'dlk_abc and whsec_ and Bearer <API_KEY>', want: 'dlk_abc and whsec_ and Bearer <API_KEY>' }],
  ];
  it.each(cases)('redacts %s', (_, { given, want }) => {
    expect(redactSecrets(given)).toBe(want);
  });
});

describe('writeReports', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reports-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes report.json, junit.xml and index.html into <dir>/<runId>/ and copies them into a real latest/ directory', () => {
    const report = sampleReport();
    const written = writeReports(report, join(dir, 'nested', 'reports'));
    const runDir = join(dir, 'nested', 'reports', report.runId);
    expect(written).toEqual({
      dir: runDir,
      files: { json: join(runDir, 'report.json'), junit: join(runDir, 'junit.xml'), html: join(runDir, 'index.html') },
    });
    const latest = join(dir, 'nested', 'reports', 'latest');
    expect(lstatSync(latest).isDirectory()).toBe(true);
    expect(lstatSync(latest).isSymbolicLink()).toBe(false);
    for (const name of ['report.json', 'junit.xml', 'index.html']) {
      expect(readFileSync(join(latest, name), 'utf8')).toBe(readFileSync(join(runDir, name), 'utf8'));
    }
    expect(readdirSync(join(dir, 'nested', 'reports')).sort()).toEqual([report.runId, 'latest'].sort());
  });

  it('lets no secret survive in any written file, while the rendered report did hold them', () => {
    const report = sampleReport();
    const raw = renderJson(report) + renderJunit(report) + renderHtml(report);
    for (const secret of Object.values(SAMPLE_SECRETS)) expect(raw).toContain(secret);

    const written = writeReports(report, dir);
    const latest = join(dir, 'latest');
    const paths = [...Object.values(written.files), ...['report.json', 'junit.xml', 'index.html'].map((n) => join(latest, n))];
    for (const path of paths) {
      const content = readFileSync(path, 'utf8');
      for (const pattern of SECRET_PATTERNS) expect(content).not.toMatch(pattern);
      expect(content).not.toMatch(/Bearer\s+(dlk|stf|whsec)_/);
      expect(containsSecret(content)).toBe(false);
    }
  });

  it('keeps the redacted files valid: JSON parses, JUnit validates, HTML shows <redacted> as text', () => {
    const written = writeReports(sampleReport(), dir);
    const json = JSON.parse(readFileSync(written.files.json, 'utf8')) as RunReport;
    expect(json.results.find((r) => r.outcome === 'failed')?.exchanges[0]?.requestHeaders.authorization).toBe('<redacted>');
    const junit = readFileSync(written.files.junit, 'utf8');
    expect(XMLValidator.validate(junit)).toBe(true);
    const failed = parseJunit(junit).testsuite.flatMap((t) => t.testcase).find((t) => t.failure);
    expect(failed?.['system-out']).toContain('  > authorization: <redacted>');
    const html = readFileSync(written.files.html, 'utf8');
    expect(html).toContain('<span class="hn">authorization</span>: &lt;redacted&gt;');
    expect(html).not.toContain('<redacted>');
  });

  it('redacts a token that only forms once XML strips the control character inside it', () => {
    const report = sampleReport();
    const half = SAMPLE_SECRETS.apiKey.slice(0, 12);
    const rest = SAMPLE_SECRETS.apiKey.slice(12);
    (report.results[0] as CheckResult).title = `leaks ${half}\u0000${rest}`;
    const written = writeReports(report, dir);
    const junit = readFileSync(written.files.junit, 'utf8');
    expect(XMLValidator.validate(junit)).toBe(true);
    expect(junit).not.toContain(SAMPLE_SECRETS.apiKey);
    expect(junit).toContain('leaks &lt;redacted&gt;');
  });

  it('replaces latest/ on the next run, even when it was a symlink or held stale files', () => {
    const first = sampleReport();
    writeReports(first, dir);
    writeFileSync(join(dir, 'latest', 'stale.txt'), 'old');
    const second = { ...sampleReport(), runId: '20260915T080000-000001' };
    writeReports(second, dir);
    expect(readdirSync(join(dir, 'latest')).sort()).toEqual(['index.html', 'junit.xml', 'report.json']);
    expect((JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as RunReport).runId).toBe(second.runId);
    expect(existsSync(join(dir, first.runId, 'report.json'))).toBe(true);

    rmSync(join(dir, 'latest'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'latest'));
    writeReports(first, dir);
    expect(lstatSync(join(dir, 'latest')).isSymbolicLink()).toBe(false);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.startsWith('.latest-'))).toEqual([]);
  });

  it('keeps a runId with path characters inside <dir> and refuses one that cannot name a directory', () => {
    const written = writeReports({ ...sampleReport(), runId: '../../escape:run' }, dir);
    expect(written.dir).toBe(join(dir, '..-..-escape-run'));
    expect(() => writeReports({ ...sampleReport(), runId: '..' }, dir)).toThrow(/report\.runId "\.\." cannot name a report directory/);
    expect(() => writeReports({ ...sampleReport(), runId: 'latest' }, dir)).toThrow(/report\.runId/);
  });
});

// ------------------------------------------------------------------ helpers

/** The HTML of `<section id="<id>">` up to its end. */
function section(html: string, id: string): string {
  const start = html.indexOf(`<section id="${id}"`);
  if (start < 0) throw new Error(`no section #${id}`);
  return html.slice(start, html.indexOf('</section>', start));
}

function escapeForTest(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

describe('a failure note (issue 25: a breach kept after shrinking was cut short, a role credential that may also be wrong)', () => {
  it('is shown in the HTML failure and in the JUnit failure body', () => {
    const report = sampleReport();
    const failed = report.results.find((r) => r.outcome === 'failed' && r.failure)!;
    failed.failure = { ...failed.failure!, note: 'the credential given as disabledApiKey may also be wrong' };
    expect(renderHtml(report)).toContain('<b>Note:</b> the credential given as disabledApiKey may also be wrong');
    expect(renderJunit(report)).toContain('Note:       the credential given as disabledApiKey may also be wrong');
  });
});
