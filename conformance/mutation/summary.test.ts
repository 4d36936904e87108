/**
 * The mutation summary reads Stryker's JSON report: score (detected over
 * detected, survived and not reached; ignored and invalid mutants apart),
 * per file, per check (its test's name carries a digest), per clause a
 * killing failure named, and every mutant that lived.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clauseOf, originalText, parseEquivalents, summarise, summaryMarkdown, type StrykerMutant, type StrykerReport } from './summary.ts';
import { checkIdOf, testName } from './settings.ts';
import { readEquivalents } from './recorded-equivalents.ts';

function mutant(id: string, status: StrykerMutant['status'], more: Partial<StrykerMutant> = {}): StrykerMutant {
  return { id, mutatorName: 'EqualityOperator', replacement: 'a <= b', status, location: { start: { line: Number(id) + 1, column: 3 }, end: { line: Number(id) + 1, column: 9 } }, ...more };
}

const report: StrykerReport = {
  config: { mutate: ['simulator/domain/a.ts', 'simulator/domain/b.ts'] },
  testFiles: {
    'conformance/mutation/catalogue.mutation.ts': {
      tests: [
        { id: 't1', name: `conformance check ${testName('pagination.per-page-limits', '0badc0de')}` },
        { id: 't2', name: `conformance check ${testName('booking.maximum-stay', '12345678')}` },
      ],
    },
  },
  files: {
    'simulator/domain/a.ts': {
      mutants: [
        mutant('0', 'Killed', { killedBy: ['t1'], coveredBy: ['t1', 't2'], statusReason: 'pagination.per-page-limits failed: UnexpectedStatus: received 201; documented 422 (8.L3)' }),
        mutant('1', 'Killed', { killedBy: ['t2'], coveredBy: ['t2'], statusReason: 'booking.maximum-stay errored: TypeError: x is undefined' }),
        mutant('2', 'Survived', { coveredBy: ['t1', 't2'] }),
        mutant('3', 'Ignored', { statusReason: 'deliberate-fault switch' }),
      ],
    },
    'simulator/domain/b.ts': {
      mutants: [
        mutant('4', 'Timeout', { coveredBy: ['t2'] }),
        mutant('5', 'NoCoverage', { static: true }),
        mutant('6', 'RuntimeError'),
      ],
    },
  },
};

const checks = [
  { id: 'pagination.per-page-limits', clauses: ['8.L3'] },
  { id: 'booking.maximum-stay', clauses: ['4.5.R9'] },
  { id: 'webhooks.signed', clauses: ['6.S1'] },
];

describe('the mutation summary', () => {
  const s = summarise(report, checks);

  it('scores detected (killed and timed out) over detected, survived and not reached; ignored and invalid mutants apart', () => {
    expect(s.totals).toEqual({ mutants: 7, killed: 2, timeout: 1, survived: 1, noCoverage: 1, ignored: 1, equivalent: 0, notReached: 0, errors: 1, score: 60, scoreCovered: 75 });
    expect(s.files.map((f) => [f.file, f.score])).toEqual([['simulator/domain/a.ts', 66.67], ['simulator/domain/b.ts', 50]]);
  });

  it('credits each kill to the check that failed the mutant, and counts what each check reached; a check with none shows 0', () => {
    expect(s.checks).toEqual([
      { id: 'pagination.per-page-limits', clauses: ['8.L3'], killed: 1, covered: 2 },
      { id: 'booking.maximum-stay', clauses: ['4.5.R9'], killed: 1, covered: 4 },
      { id: 'webhooks.signed', clauses: ['6.S1'], killed: 0, covered: 0 },
    ]);
  });

  it('credits a clause only when a killing failure named it (an error names none)', () => {
    expect(s.clauses).toEqual([{ id: '8.L3', killed: 1, checks: ['pagination.per-page-limits'] }]);
  });

  it('lists every survivor and unreached mutant with its place and the checks that reached it', () => {
    expect(s.survivors).toEqual([{ file: 'simulator/domain/a.ts', line: 3, column: 3, mutator: 'EqualityOperator', original: '', replacement: 'a <= b', status: 'Survived', coveredBy: ['pagination.per-page-limits', 'booking.maximum-stay'], static: false }]);
    expect(s.noCoverage.map((m) => `${m.file}:${m.line} static=${m.static}`)).toEqual(['simulator/domain/b.ts:6 static=true']);
    expect(s.timedOut.map((m) => `${m.file}:${m.line}`)).toEqual(['simulator/domain/b.ts:5']);
    const page = summaryMarkdown(s, { when: '2026-11-26', minutes: 3, command: 'npm run mutation' });
    expect(page).toContain('**Score: 60.00%**');
    expect(page).toContain('- simulator/domain/a.ts:3:3 EqualityOperator → `a <= b` (reached by pagination.per-page-limits, booking.maximum-stay)');
  });

  it.each([
    ['a failure names its clause last', 'x failed: K: received 1; documented 2 (4.5.R10a)', '4.5.R10a'],
    ['an error names none', 'x errored: TypeError: boom', null],
    ['no reason', undefined, null],
  ])('clauseOf: %s', (_, reason, want) => {
    expect(clauseOf(reason)).toBe(want);
  });

  it('a test name gives back its check id, with or without the describe name', () => {
    expect(checkIdOf(`conformance check ${testName('sync.monthly-chunks', 'abcdef01')}`)).toBe('sync.monthly-chunks');
    expect(checkIdOf(testName('sync.monthly-chunks', 'abcdef01'))).toBe('sync.monthly-chunks');
  });

  it('lines that implement a limit, a default or a duration are counted apart, per row of the document, with what lived there; an anchor on no line is stale', () => {
    const source = 'other();\nexport const IDEMPOTENCY_KEY_LENGTH = { min: 8, max: 128 } as const;\nother();\n';
    const s = summarise({
      files: {
        'protocol/idempotency-key.ts': {
          source,
          mutants: [
            mutant('1', 'Survived', { replacement: '129', location: { start: { line: 2, column: 55 }, end: { line: 2, column: 58 } } }),
            mutant('2', 'Killed', { killedBy: ['t1'], location: { start: { line: 2, column: 39 }, end: { line: 2, column: 59 } } }),
            mutant('3', 'Survived', { location: { start: { line: 3, column: 1 }, end: { line: 3, column: 8 } } }),
          ],
        },
        // A file whose limit lines are gone: its anchors are reported stale.
        'simulator/domain/idempotency.ts': { source: 'other();\n', mutants: [] },
      },
      testFiles: report.testFiles,
    }, checks);
    expect(s.limits.totals).toMatchObject({ killed: 1, survived: 1, score: 50 });
    expect(s.limits.rows.map((r) => [r.what, r.killed, r.survived, r.lived.map((m) => m.line)])).toEqual([['§8 idempotency key length: 8 to 128 characters', 1, 1, [2]]]);
    expect(s.limits.staleAnchors.map((a) => a.anchor)).toContain('KEY_MEMORY_MS = 24 * 3_600_000');
    expect(summaryMarkdown(s, { when: 'today', command: 'npm run mutation' })).toMatch(/\*\*Exact limits, defaults and durations: 50\.00%\*\* of 2 mutants/);
  });

  describe('recorded equivalents', () => {
    const source = 'const a = 1;\nif (n < limit) go();\n';
    const withSource: StrykerReport = {
      files: {
        'simulator/domain/c.ts': {
          source,
          mutants: [
            mutant('1', 'Survived', { mutatorName: 'EqualityOperator', replacement: 'n <= limit', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 14 } } }),
            mutant('2', 'Survived', { mutatorName: 'EqualityOperator', replacement: 'n >= limit', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 14 } } }),
          ],
        },
      },
    };
    const entry = { file: 'simulator/domain/c.ts', line: 2, column: 5, mutator: 'EqualityOperator', original: 'n < limit', replacement: 'n <= limit', category: 'equivalent' as const, reason: 'limit is never reached' };
    const gone = { ...entry, line: 3 };

    it('a survivor matching file, line, column, mutator and replacement (its code still there) is out of the score, listed with its reason', () => {
      const e = summarise(withSource, checks, [entry]);
      expect(e.totals).toMatchObject({ survived: 1, equivalent: 1, score: 0 });
      expect(e.equivalent.map((m) => `${m.line}:${m.column} ${m.original} → ${m.replacement}: ${m.reason}`)).toEqual(['2:5 n < limit → n <= limit: limit is never reached']);
      expect(e.survivors.map((m) => m.replacement)).toEqual(['n >= limit']);
      expect(e.entryErrors).toEqual([]);
    });

    it('the same text elsewhere is another mutant: an entry never absorbs it (matched by place, not by text)', () => {
      const twice = { ...withSource, files: { 'simulator/domain/c.ts': { source: 'const limit = 1;\nif (n < limit) a();\nif (n < limit) b();\n', mutants: [
        mutant('1', 'Survived', { mutatorName: 'EqualityOperator', replacement: 'n <= limit', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 14 } } }),
        mutant('2', 'Survived', { mutatorName: 'EqualityOperator', replacement: 'n <= limit', location: { start: { line: 3, column: 5 }, end: { line: 3, column: 14 } } }),
      ] } } };
      const e = summarise(twice, checks, [entry]);
      expect(e.totals).toMatchObject({ survived: 1, equivalent: 1 });
      expect(e.survivors.map((m) => m.line)).toEqual([3]);
    });

    it('an entry that matches no mutant of a file in the run is stale and an error; one for a file not in the run is not judged', () => {
      const e = summarise(withSource, checks, [entry, gone]);
      expect(e.stale).toEqual([gone]);
      expect(e.entryErrors).toEqual(['simulator/domain/c.ts:3:5 EqualityOperator → "n <= limit": matches no mutant (the code moved or changed: look again)']);
      expect(summarise(withSource, checks, [{ ...gone, file: 'simulator/domain/other.ts' }]).entryErrors).toEqual([]);
    });

    it('an entry whose place holds other code is an error', () => {
      expect(summarise(withSource, checks, [{ ...entry, original: 'n < max' }]).entryErrors).toEqual(['simulator/domain/c.ts:2:5 EqualityOperator → "n <= limit": the code there is "n < limit", not "n < max"']);
    });

    it('an entry that matches more than one mutant is an error', () => {
      const doubled = { ...withSource, files: { 'simulator/domain/c.ts': { ...withSource.files['simulator/domain/c.ts']!, mutants: [...withSource.files['simulator/domain/c.ts']!.mutants, mutant('3', 'Survived', { mutatorName: 'EqualityOperator', replacement: 'n <= limit', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 14 } } })] } } };
      expect(summarise(doubled, checks, [entry]).entryErrors).toEqual(['simulator/domain/c.ts:2:5 EqualityOperator → "n <= limit": matches 2 mutants; an entry names one']);
    });

    it('a mutant no check reaches is never equivalent: it stays not reached, in the score, with its reason; calling it equivalent is an error', () => {
      const unreached = { ...withSource, files: { 'simulator/domain/c.ts': { ...withSource.files['simulator/domain/c.ts']!, mutants: [mutant('1', 'NoCoverage', { mutatorName: 'EqualityOperator', replacement: 'n <= limit', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 14 } } })] } } };
      const asEquivalent = summarise(unreached, checks, [entry]);
      expect(asEquivalent.totals).toMatchObject({ noCoverage: 1, equivalent: 0, score: 0 });
      expect(asEquivalent.entryErrors).toEqual(['simulator/domain/c.ts:2:5 EqualityOperator → "n <= limit": no check reaches it, so it is not equivalent: record it as not-reached (or reach it)']);
      const recorded = summarise(unreached, checks, [{ ...entry, category: 'not-reached' }]);
      expect(recorded.entryErrors).toEqual([]);
      expect(recorded.totals).toMatchObject({ noCoverage: 1, equivalent: 0 });
      expect(recorded.noCoverage.map((m) => m.reason)).toEqual(['limit is never reached']);
      expect(summaryMarkdown(recorded, { when: 'today', command: 'npm run mutation' })).toContain('recorded not reached: limit is never reached');
    });

    it('an entry recorded not reached that a check now reaches is an error (say whether it is equivalent, or kill it)', () => {
      expect(summarise(withSource, checks, [{ ...entry, category: 'not-reached' }]).entryErrors).toHaveLength(1);
    });

    it('originalText reads the 1-based range, across lines too', () => {
      expect(originalText(source, { start: { line: 2, column: 5 }, end: { line: 2, column: 14 } })).toBe('n < limit');
      expect(originalText(source, { start: { line: 1, column: 11 }, end: { line: 2, column: 3 } })).toBe('1;\nif');
    });

    it.each([
      ['a list without a reason', [{ ...entry, reason: '' }], /entry 1 needs reason/],
      ['a reason on two lines', [{ ...entry, reason: 'a\nb' }], /one line/],
      ['an entry by text alone (no line)', [{ ...entry, line: undefined }], /needs line/],
      ['an entry without a column', [{ ...entry, column: 0 }], /needs column/],
      ['another category', [{ ...entry, category: 'maybe' }], /category is equivalent or not-reached/],
      ['not a list', { a: 1 }, /a list/],
    ])('parseEquivalents refuses %s', (_, list, message) => {
      expect(() => parseEquivalents(list, 'x.yaml')).toThrow(message);
    });
  });

  it('the committed conformance/mutation/equivalent-mutants.yaml parses, and each entry\'s code is at its place in its file', () => {
    // Read as npm run mutation reads it (one function): a duplicate key fails here, not only in a run.
    const entries = readEquivalents();
    expect(entries.length).toBeGreaterThan(0);
    const moved = entries.filter((e) => {
      const line = readFileSync(new URL(`../../${e.file}`, import.meta.url), 'utf8').split('\n').slice(e.line - 1).join('\n');
      return !line.slice(e.column - 1).startsWith(e.original);
    }).map((e) => `${e.file}:${e.line}:${e.column}: ${e.original.slice(0, 60)}`);
    expect(moved, 'entries whose code moved or changed: move them, and look again').toEqual([]);
    const twice = entries.filter((e, i) => entries.findIndex((o) => o.file === e.file && o.line === e.line && o.column === e.column && o.mutator === e.mutator && o.replacement === e.replacement && o.original === e.original) !== i);
    expect(twice.map((e) => `${e.file}:${e.line}:${e.column}`), 'one entry per mutant').toEqual([]);
    // Issue 40 item 3: an equivalent is equivalent only if no rule of the document can see it; its reason names the
    // document's clause (§) that leaves the mutant unobservable, or whose behaviour it leaves unchanged.
    const unsourced = entries.filter((e) => e.category === 'equivalent' && !/§\d/.test(e.reason)).map((e) => `${e.file}:${e.line}:${e.column}`);
    expect(unsourced, 'recorded equivalents whose reason names no clause of the document').toEqual([]);
  });
});
