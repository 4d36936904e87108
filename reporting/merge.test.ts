/** `conformance --merge`: several deployments' runs as one report, a column per deployment. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { summarise } from '../conformance/runner.ts';
import type { CheckResult, ClauseCoverage, Outcome, RunReport } from '../conformance/types.ts';
import { renderMergedJson } from './json.ts';
import { renderMergedJunit } from './junit.ts';
import { deploymentLabel, deploymentReport, MergeError, mergeReports, type MergeInput } from './merge.ts';
import { locateReport, readMergeInputs } from './merge-sources.ts';
import { renderMergedHtml } from './merged-html.ts';
import { sampleReport } from './sample-report.ts';
import { writeReports } from './write.ts';

const CHECKS = [
  { id: 'auth.missing-key-is-401', suite: 'auth', clauses: ['5.R5b'] },
  { id: 'idempotency.replay-byte-for-byte', suite: 'idempotency', clauses: ['4.5.R1'] },
  { id: 'pagination.totals-and-order', suite: 'pagination', clauses: ['4.4.R1'] },
] as const;

/** A small run: the outcome of each of CHECKS, coverage derived as the runner does. */
function run(o: { label?: string; baseUrl?: string; outcomes: Outcome[]; apiVersion?: string; specDigest?: string; requireApplicable?: number }): RunReport {
  const results: CheckResult[] = CHECKS.map((c, i) => ({
    id: c.id, title: `title of ${c.id}`, suite: c.suite, clauses: [...c.clauses], level: 'normative',
    outcome: o.outcomes[i]!,
    ...(o.outcomes[i] === 'not_applicable' ? { reason: 'needs write (--allow-writes)' } : {}),
    ...(o.outcomes[i] === 'failed' ? { failure: { kind: 'WrongStatus', received: '403', documented: '401', clause: c.clauses[0] } } : {}),
    exchanges: [], replay: `npm run conformance -- --check ${c.id}`, ms: 10 * (i + 1),
  }));
  const coverage: ClauseCoverage[] = [
    ...CHECKS.map((c, i): ClauseCoverage => ({
      id: c.clauses[0], title: `clause ${c.clauses[0]}`, section: c.clauses[0].replace(/\.R.*$/, ''), checks: [c.id],
      status: o.outcomes[i] === 'passed' ? 'passed' : o.outcomes[i] === 'failed' || o.outcomes[i] === 'errored' ? 'failed' : 'not_run',
    })),
    { id: '6.R2', title: 'one at a time', section: '6', checks: [], status: 'untestable', why: 'a partner cannot see the queue' },
  ];
  return {
    runId: `20260914T10220${o.outcomes.length}-${(o.label ?? 'x').length.toString(16).padStart(6, '0')}`,
    startedAt: '2026-09-14T10:22:05.000Z', finishedAt: '2026-09-14T10:22:09.000Z',
    target: { kind: 'live', baseUrl: o.baseUrl ?? 'https://staging.example/api/integrations/v1', capabilities: ['read'], ...(o.label ? { label: o.label } : {}) },
    options: { suites: [], checks: [], runs: 25, seed: 7, normativeOnly: false, allowWrites: false },
    apiVersion: o.apiVersion ?? '2026-09', specDigest: o.specDigest ?? 'abc123',
    results, coverage,
    summary: summarise(results, coverage, { ms: 4000, bookingsCreated: 2, failOnNotApplicable: false, requireApplicable: o.requireApplicable }),
  };
}

const input = (report: RunReport): MergeInput => ({ report, source: `${report.target.label}/report.json` });

describe('mergeReports', () => {
  it.each([
    ['every run passed', ['passed', 'passed'], 'passed'],
    ['one run failed', ['passed', 'failed'], 'failed'],
    ['one run insufficient, none failed', ['passed', 'insufficient'], 'insufficient'],
    ['failed beats insufficient', ['insufficient', 'failed'], 'failed'],
  ] as const)('the verdict when %s', (_name, verdicts, want) => {
    const reports = verdicts.map((v, i) => run({
      label: `dep-${i}`,
      outcomes: v === 'failed' ? ['failed', 'passed', 'passed'] : ['passed', 'passed', 'passed'],
      requireApplicable: v === 'insufficient' ? 4 : undefined,
    }));
    expect(reports.map((r) => r.summary.verdict)).toEqual(verdicts);
    const merged = mergeReports(reports.map(input), 'merged-1');
    expect(merged.summary.verdict).toBe(want);
    if (want === 'insufficient') expect(merged.summary.gate[0]).toMatch(/^dep-1: only 3 of 3 checks were applicable/);
  });

  it('a clause is passed only when every deployment proved it, failed when any failed, and not_run says where it was proven', () => {
    const a = run({ label: 'eu', outcomes: ['passed', 'passed', 'passed'] });
    const b = run({ label: 'us', outcomes: ['failed', 'not_applicable', 'passed'] });
    const merged = mergeReports([input(a), input(b)], 'merged-1');
    const clause = (id: string) => merged.coverage.find((c) => c.id === id)!;
    expect(clause('5.R5b')).toMatchObject({ status: 'failed', deployments: { eu: 'passed', us: 'failed' } });
    expect(clause('4.5.R1')).toMatchObject({ status: 'not_run', why: 'proven on eu only; not on us', deployments: { eu: 'passed', us: 'not_run' } });
    expect(clause('4.4.R1')).toMatchObject({ status: 'passed', deployments: { eu: 'passed', us: 'passed' } });
    expect(clause('6.R2')).toMatchObject({ status: 'untestable', why: 'a partner cannot see the queue' });
    expect(merged.summary).toMatchObject({ clauses_proven: 1, clauses_total: 4, clauses_testable: 3 });
  });

  it('counts add up over deployments, and a check shows the worst outcome where it ran', () => {
    const a = run({ label: 'eu', outcomes: ['passed', 'not_applicable', 'passed'] });
    const b = run({ label: 'us', outcomes: ['errored', 'not_applicable', 'passed'] });
    const merged = mergeReports([input(a), input(b)], 'merged-1');
    expect(merged.summary).toMatchObject({ total: 6, passed: 3, errored: 1, not_applicable: 2, applicable: 4, bookings_created: 4, ms: 8000, verdict: 'failed' });
    expect(merged.results.map((r) => r.outcome)).toEqual(['errored', 'not_applicable', 'passed']);
    expect(merged.deployments.map((d) => d.label)).toEqual(['eu', 'us']);
  });

  it('keeps each run whole: a deployment read back out of the merged report is the run that went in', () => {
    const a = sampleReport();
    a.target.label = 'sandbox';
    const b = run({ label: 'eu', outcomes: ['passed', 'failed', 'passed'], specDigest: a.specDigest });
    const merged = mergeReports([{ report: a, source: 'a' }, { report: b, source: 'b' }], 'merged-1');
    for (const original of [a, b]) {
      const back = deploymentReport(merged, original.target.label!);
      expect(back.results).toEqual(original.results);
      expect(back.summary).toEqual(original.summary);
      // In the order of the first run's catalogue (one suite version has one catalogue; these two differ on purpose).
      const pairs = (cs: ClauseCoverage[]) => cs.map((c) => `${c.id} ${c.status}`).sort();
      expect(pairs(back.coverage)).toEqual(pairs(original.coverage));
    }
  });

  it('names a deployment by its --label, else by its URL without scheme and API root', () => {
    expect(deploymentLabel(run({ label: 'staging-eu', outcomes: [] }))).toBe('staging-eu');
    expect(deploymentLabel(run({ baseUrl: 'https://api.eu.example/api/integrations/v1', outcomes: [] }))).toBe('api.eu.example');
    expect(deploymentLabel(run({ baseUrl: 'http://127.0.0.1:4010/v2/api/integrations/v1/', outcomes: [] }))).toBe('127.0.0.1:4010/v2');
    expect(deploymentLabel({ ...sampleReport(), target: { kind: 'in-process', baseUrl: 'http://127.0.0.1:<ephemeral>/api/integrations/v1', capabilities: [] } })).toBe('in-process');
  });

  it.each([
    ['no runs', [], /needs at least one run directory/],
    ['different API versions', [run({ label: 'a', outcomes: [] }), run({ label: 'b', outcomes: [], apiVersion: '2027-01' })], /different API versions \(a\/report.json: 2026-09, b\/report.json: 2027-01\)/],
    ['different suite versions', [run({ label: 'a', outcomes: [] }), run({ label: 'b', outcomes: [], specDigest: 'def456' })], /different versions of the suite/],
    ['two runs of one deployment', [run({ label: 'a', outcomes: ['passed'] }), run({ label: 'a', outcomes: ['failed'] })], /both name the deployment "a".*--label/],
  ] as const)('refuses %s', (_name, reports, message) => {
    expect(() => mergeReports(reports.map(input), 'merged-1')).toThrow(MergeError);
    expect(() => mergeReports(reports.map(input), 'merged-1')).toThrow(message);
  });
});

describe('merged report writers', () => {
  const a = run({ label: 'eu <script>', outcomes: ['passed', 'failed', 'not_applicable'] });
  const b = run({ label: 'us', outcomes: ['passed', 'passed', 'passed'] });
  const merged = mergeReports([input(a), input(b)], 'merged-20260914T102205-abcdef');

  it('report.json parses back to the merged report, with summary and coverage[].status where a run has them', () => {
    const back = JSON.parse(renderMergedJson(merged));
    expect(back).toEqual(merged);
    expect(Object.keys(back)).toEqual(['kind', 'runId', 'startedAt', 'finishedAt', 'apiVersion', 'specDigest', 'deployments', 'results', 'coverage', 'summary']);
    expect(Object.keys(back.summary)).toEqual(Object.keys(a.summary));
  });

  it('junit.xml is valid XML with each deployment\'s suites and a test case per check and deployment', () => {
    const xml = renderMergedJunit(merged);
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml);
    const suites = doc.testsuites.testsuite as Array<{ '@_name': string; '@_id': string; testcase: Array<{ '@_name': string; failure?: unknown }> }>;
    expect(suites.map((s) => s['@_name'])).toEqual(['eu <script> / auth', 'eu <script> / idempotency', 'eu <script> / pagination', 'us / auth', 'us / idempotency', 'us / pagination']);
    expect(suites.map((s) => s['@_id'])).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(doc.testsuites['@_tests']).toBe('6');
    expect(doc.testsuites['@_failures']).toBe('1');
    expect(suites[1]!.testcase[0]!['@_name']).toBe('idempotency.replay-byte-for-byte: title of idempotency.replay-byte-for-byte [eu <script>]');
    expect(suites[1]!.testcase[0]!.failure).toBeDefined();
  });

  it('index.html has a column per deployment, escapes what the reports hold, and every link finds its anchor', () => {
    const html = renderMergedHtml(merged);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('eu <script>');
    expect(html).toContain('<th scope="col" class="depcol">eu &lt;script&gt;</th><th scope="col" class="depcol">us</th>');
    expect(html).toContain('✕ Failed');
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const links = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
    expect(links).toContain('d1-check-idempotency-replay-byte-for-byte');
    for (const link of links) expect(ids.has(link), link).toBe(true);
    // The failure article comes from the run page's renderer: received, documented and the replay command.
    expect(html).toContain('<span class="who">Received</span><span class="txt">403</span>');
    expect(html).toContain('npm run conformance -- --check idempotency.replay-byte-for-byte');
    expect(html).toContain('needs write (--allow-writes)');
  });
});

describe('finding the report.json of a --merge DIR', () => {
  const root = mkdtempSync(join(tmpdir(), 'merge-sources-'));
  const written = writeReports(run({ label: 'eu', outcomes: ['passed', 'passed', 'passed'] }), join(root, 'reports'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ['a run directory', () => written.dir, () => written.files.json],
    ['a report directory: its latest/', () => join(root, 'reports'), () => join(root, 'reports', 'latest', 'report.json')],
    ['a report directory without latest/ and one run', () => {
      const dir = join(root, 'artifact');
      mkdirSync(join(dir, 'run-1'), { recursive: true });
      writeFileSync(join(dir, 'run-1', 'report.json'), readFileSync(written.files.json));
      return dir;
    }, () => join(root, 'artifact', 'run-1', 'report.json')],
  ])('%s', (_name, dir, want) => {
    expect(locateReport(dir())).toBe(want());
    expect(readMergeInputs([dir()])[0]!.report.target.label).toBe('eu');
  });

  it.each([
    ['a missing directory', () => join(root, 'nope'), /--merge .*nope: no such directory/],
    ['a directory without report.json', () => { mkdirSync(join(root, 'empty'), { recursive: true }); return join(root, 'empty'); }, /--merge .*empty: no report.json/],
    ['several runs and no latest/', () => {
      for (const r of ['r1', 'r2']) {
        mkdirSync(join(root, 'two', r), { recursive: true });
        writeFileSync(join(root, 'two', r, 'report.json'), '{}');
      }
      return join(root, 'two');
    }, /holds 2 runs \(r1, r2\) and no latest\/; name the run directory/],
    ['a report.json that is not JSON', () => { mkdirSync(join(root, 'bad'), { recursive: true }); writeFileSync(join(root, 'bad', 'report.json'), '{'); return join(root, 'bad'); }, /not valid JSON/],
    ['a report.json that is not a run', () => { mkdirSync(join(root, 'other'), { recursive: true }); writeFileSync(join(root, 'other', 'report.json'), '{"runId":"x"}'); return join(root, 'other'); }, /not a conformance report \(no apiVersion, specDigest, target, results, coverage, summary\)/],
    ['a merged report', () => { mkdirSync(join(root, 'm'), { recursive: true }); writeFileSync(join(root, 'm', 'report.json'), '{"kind":"merged"}'); return join(root, 'm'); }, /a merged report; merge the runs it was made from/],
  ])('refuses %s', (_name, dir, message) => {
    const d = dir();
    expect(() => readMergeInputs([d])).toThrow(MergeError);
    expect(() => readMergeInputs([d])).toThrow(message);
  });
});
