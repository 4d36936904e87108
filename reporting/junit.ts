/**
 * junit.xml for CI dashboards (Jenkins, GitLab, GitHub test reporters): one
 * <testsuite> per suite, one <testcase> per check. Every attribute and text is
 * escaped, characters XML 1.0 forbids are stripped, and long texts go in CDATA
 * sections whose `]]>` is split so the section cannot be closed early.
 */
import type { CheckResult, Exchange, MergedReport, RunReport } from '../conformance/types.ts';
import { catalogueChecks, partialOf, verdictDetail, verdictLabel } from '../conformance/verdict.ts';
import { countOutcomes, groupBySuite, seconds, truncate, verdict, type OutcomeCounts } from './format.ts';
import { likeness, LIKENESS_TO_MARK, wordDiff, wordDiffText } from './word-diff.ts';
import { deploymentReport } from './merge.ts';

/** Request and response bodies longer than this are cut in <system-out>; report.json keeps them whole. */
const BODY_LIMIT = 4000;
/** A failure message attribute longer than this is cut (dashboards show it on one line). */
const MESSAGE_LIMIT = 500;

/** JUnit XML of the run. */
export function renderJunit(report: RunReport): string {
  return document(`Partner API ${report.apiVersion} conformance`, report.results, report.summary.ms, report.startedAt, testsuites(report, 0));
}

/**
 * JUnit XML of a merged report: each deployment's suites in turn, named
 * `<label> / <suite>`, each test case's name ending in `[<label>]` so the
 * same check on two deployments stays two tests in a dashboard.
 */
export function renderMergedJunit(merged: MergedReport): string {
  const lines: string[] = [];
  const all: CheckResult[] = [];
  let nextId = 0;
  for (const d of merged.deployments) {
    const report = deploymentReport(merged, d.label);
    all.push(...report.results);
    lines.push(...testsuites(report, nextId, d.label));
    nextId += groupBySuite(report.results).length;
  }
  return document(`Partner API ${merged.apiVersion} conformance, ${merged.deployments.length} deployment(s)`, all, merged.summary.ms, merged.startedAt, lines);
}

function document(name: string, results: readonly CheckResult[], ms: number, timestamp: string, suites: string[]): string {
  const all = countOutcomes(results);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({
      name,
      tests: results.length,
      failures: all.failed,
      errors: all.errored,
      skipped: skippedCount(all),
      time: seconds(ms),
      timestamp,
    })}>`,
    ...suites,
    '</testsuites>',
  ];
  return `${lines.join('\n')}\n`;
}

/** A <testsuite> per suite of the run, numbered from `firstId`; with a label, named and tagged for its deployment. */
function testsuites(report: RunReport, firstId: number, label?: string): string[] {
  const lines: string[] = [];
  groupBySuite(report.results).forEach(({ suite, results }, index) => {
    const counts = countOutcomes(results);
    lines.push(`  <testsuite${attrs({
      name: label === undefined ? suite : `${label} / ${suite}`,
      id: firstId + index,
      tests: results.length,
      failures: counts.failed,
      errors: counts.errored,
      skipped: skippedCount(counts),
      time: seconds(results.reduce((sum, r) => sum + r.ms, 0)),
      timestamp: report.startedAt,
    })}>`);
    lines.push('    <properties>');
    const props = runProperties(report);
    if (label !== undefined) props.unshift(['deployment', label]);
    for (const [name, value] of props) lines.push(`      <property${attrs({ name, value })}/>`);
    lines.push('    </properties>');
    for (const result of results) lines.push(...testcase(result, label));
    lines.push('  </testsuite>');
  });
  return lines;
}

function skippedCount(counts: OutcomeCounts): number {
  return counts.not_applicable + counts.skipped;
}

/**
 * What every suite of the run shares: first the verdict and how much the run
 * proved (a dashboard shows the first properties; issue 27 item 4), then the
 * target and the options that reproduce it.
 */
function runProperties(report: RunReport): Array<[string, string]> {
  const o = report.options;
  const s = report.summary;
  // As the page does: the results decide failed, a report.json from before `partial` is partial when it ran less than it selected.
  const shown = { ...s, verdict: verdict(report), partial: partialOf(s) };
  return [
    ['verdict', verdictLabel(shown)],
    ['verdict.detail', verdictDetail(shown)],
    ['proved.checks', `${s.applicable} of ${catalogueChecks(s)}`],
    ['proved.clauses', `${s.clauses_proven} of ${s.clauses_testable}`],
    ['run.id', report.runId],
    ['api.version', report.apiVersion],
    ['spec.digest', report.specDigest],
    ['target.kind', report.target.kind],
    ['target.baseUrl', report.target.baseUrl],
    ['target.capabilities', report.target.capabilities.join(',')],
    ...(report.target.label !== undefined ? [['target.label', report.target.label] as [string, string]] : []),
    ['options.runs', String(o.runs)],
    ['options.seed', o.seed === null ? 'random' : String(o.seed)],
    ['options.normativeOnly', String(o.normativeOnly)],
    ['options.allowWrites', String(o.allowWrites)],
  ];
}

function testcase(r: CheckResult, label?: string): string[] {
  const open = `    <testcase${attrs({ classname: `conformance.${r.suite}`, name: `${r.id}: ${r.title}${label === undefined ? '' : ` [${label}]`}`, time: seconds(r.ms) })}>`;
  const out = [open, '      <properties>'];
  const props: Array<[string, string]> = [
    ['check', r.id],
    ['clauses', r.clauses.join(',')],
    ['level', r.level],
    ['outcome', r.outcome],
  ];
  if (r.property) {
    props.push(['seed', String(r.property.seed)], ['numRuns', String(r.property.numRuns)]);
    if (r.property.path !== undefined) props.push(['path', r.property.path]);
  }
  for (const [name, value] of props) out.push(`        <property${attrs({ name, value })}/>`);
  out.push('      </properties>');

  switch (r.outcome) {
    case 'failed': {
      const kind = r.failure?.kind ?? 'Failure';
      const message = r.failure
        ? `Received: ${r.failure.received} / Documented: ${r.failure.documented} (${r.failure.clause})`
        : 'failed without a recorded failure';
      out.push(`      <failure${attrs({ type: kind, message: oneLine(message) })}>${cdata(failureText(r))}</failure>`);
      break;
    }
    case 'errored': {
      const error = r.error ?? 'errored without a recorded error';
      out.push(`      <error${attrs({ type: errorType(error), message: oneLine(error.split('\n')[0] ?? '') })}>${cdata(errorText(r, error))}</error>`);
      break;
    }
    case 'not_applicable':
      out.push(`      <skipped${attrs({ message: r.reason ?? 'not applicable' })}/>`);
      break;
    case 'skipped':
      out.push(`      <skipped${attrs({ message: r.reason ?? 'skipped' })}/>`);
      break;
    case 'passed':
      break;
  }
  if ((r.outcome === 'failed' || r.outcome === 'errored') && r.exchanges.length > 0) {
    out.push(`      <system-out>${cdata(exchangesText(r.exchanges))}</system-out>`);
  }
  out.push('    </testcase>');
  return out;
}

/** The failure body: what was received, what the document says, and how to replay it. */
function failureText(r: CheckResult): string {
  const lines: string[] = [];
  if (r.failure) {
    lines.push(
      `${r.failure.kind}`,
      `Received:   ${r.failure.received}`,
      `Documented: ${r.failure.documented}`,
      ...diffLines(r.failure.documented, r.failure.received),
      `Clause:     ${r.failure.clause} (${r.level}; check proves ${r.clauses.join(', ')})`,
      ...(r.failure.note ? [`Note:       ${r.failure.note}`] : []),
    );
  } else {
    lines.push(`Clauses:    ${r.clauses.join(', ')} (${r.level})`);
  }
  lines.push(...propertyLines(r), `Replay:     ${r.replay}`, ...curlLines(r));
  if (r.exchanges.length > 0) lines.push(`Exchanges:  ${r.exchanges.length} HTTP call(s) of the failing run in system-out`);
  return lines.join('\n');
}

function errorText(r: CheckResult, error: string): string {
  return [error, '', `Clauses:    ${r.clauses.join(', ')} (${r.level})`, ...propertyLines(r), `Replay:     ${r.replay}`, ...curlLines(r)].join('\n');
}

/** Documented against received in git's word-diff style, when the two have enough in common to mark. */
function diffLines(documented: string, received: string): string[] {
  const parts = wordDiff(documented, received);
  return likeness(parts) >= LIKENESS_TO_MARK ? [`Diff:       ${wordDiffText(parts)}`] : [];
}

/** The failing request as a curl command (conformance/curl.ts), credentials as shell variables. */
function curlLines(r: CheckResult): string[] {
  if (r.curl === undefined) return [];
  const call = r.failure?.exchange !== undefined ? ` (call #${r.failure.exchange})` : '';
  return [`Request${call}, as curl:`, indent(r.curl)];
}

function propertyLines(r: CheckResult): string[] {
  const p = r.property;
  if (!p) return [];
  const lines = [`Seed:       ${p.seed}${p.path !== undefined ? `  path: ${p.path}` : ''}  (${p.numRuns} runs)`];
  if (p.counterexample !== undefined) lines.push('Counterexample:', indent(p.counterexample));
  return lines;
}

/** The exchanges as numbered HTTP calls, bodies cut at BODY_LIMIT characters. */
function exchangesText(exchanges: readonly Exchange[]): string {
  return exchanges.map((e) => {
    const lines = [`#${e.n} ${e.method} ${e.url} -> ${e.status} (${e.ms} ms)`];
    for (const [k, v] of Object.entries(e.requestHeaders)) lines.push(`  > ${k}: ${v}`);
    if (e.requestBody !== undefined && e.requestBody !== '') lines.push(indent(body(e.requestBody), '  > '));
    for (const [k, v] of Object.entries(e.responseHeaders)) lines.push(`  < ${k}: ${v}`);
    if (e.responseBody !== '') lines.push(indent(body(e.responseBody), '  < '));
    return lines.join('\n');
  }).join('\n\n');
}

function body(text: string): string {
  const cut = truncate(text, BODY_LIMIT);
  return cut.omitted === 0 ? text : `${cut.text}\n[truncated: ${cut.omitted} of ${cut.total} characters left out; report.json has the whole body]`;
}

function indent(text: string, prefix = '  '): string {
  return text.split('\n').map((line) => prefix + line).join('\n');
}

/** `TypeError: x` → `TypeError`; anything else → `Error`. */
function errorType(error: string): string {
  return /^([A-Z][A-Za-z0-9_]*(?:Error|Exception))\b/.exec(error)?.[1] ?? 'Error';
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = truncate(flat, MESSAGE_LIMIT);
  return cut.omitted === 0 ? flat : `${cut.text}…`;
}

// ------------------------------------------------------------------ XML

/** Every character XML 1.0 does not allow: C0 controls but tab/LF/CR, lone surrogates, U+FFFE, U+FFFF. */
const ILLEGAL_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text with the characters XML 1.0 forbids removed (no escape can carry them). */
export function xmlSafe(text: string): string {
  return text.replace(ILLEGAL_XML, '');
}

/** An attribute value: quotes and markup escaped, tab/newline/CR as references so parsers keep them. */
export function escapeXmlAttribute(value: string): string {
  return xmlSafe(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** Text in a CDATA section; a `]]>` inside is split across two sections. Empty text gives an empty string. */
export function cdata(text: string): string {
  const safe = xmlSafe(text);
  return safe === '' ? '' : `<![CDATA[${safe.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values).map(([k, v]) => ` ${k}="${escapeXmlAttribute(String(v))}"`).join('');
}
