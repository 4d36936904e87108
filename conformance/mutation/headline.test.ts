/**
 * The headline's page (issue 40 item 6): a whole run made of slices
 * (`npm run mutation -- --area`) says which slice last measured each area;
 * the own tests' score is made of runs of single files that add up, and a
 * file whose code changed since its run is out of it, to run again.
 */
import { describe, expect, it } from 'vitest';
import { changedSince, filesRun, headline, headlineMarkdown, ownTestsRun, withCommittedOwnTests, type AreaRow, type Headline } from './headline.ts';
import type { StrykerMutant, StrykerReport } from './summary.ts';

const row = (area: string, killer: AreaRow['killer']): AreaRow => ({
  area, killer, mutants: 10, ignored: 0, files: 1, measuredFiles: 1, scored: 10, detected: 10, survived: 0, noCoverage: 0, equivalent: 0, notReached: 0, notRun: 0, score: 100,
});
const page = (suite: Headline['provenance']['suite']) => headlineMarkdown({
  areas: [row('domain rules', 'suite'), row('protocol', 'suite'), row('wiring', 'suite'), row('store', 'own-tests')],
  ignoredReasons: [], outside: [], contract: null, provenance: { suite, ownTests: null, contract: null },
}).join('\n');

describe('the headline', () => {
  it('a run in slices names, per area the suite kills, the slice that last measured it, and "not run" where none did', () => {
    const text = page({
      command: 'npm run mutation -- --area "protocol"', when: '2026-12-03', minutes: 12,
      areas: {
        'domain rules': { command: 'npm run mutation', when: '2026-11-27', minutes: 44.1 },
        protocol: { command: 'npm run mutation -- --area "protocol"', when: '2026-12-03', minutes: 12 },
      },
    });
    expect(text).toContain('The suite\'s areas, each as last measured: domain rules: `npm run mutation` on 2026-11-27 (44.1 minutes); protocol: `npm run mutation -- --area "protocol"` on 2026-12-03 (12 minutes); wiring: not run.');
    expect(text).not.toMatch(/store: not run/);
  });

  it('a whole run measured every area at once: no line per area', () => {
    expect(page({ command: 'npm run mutation', when: '2026-11-27', minutes: 44.1 })).not.toContain('each as last measured');
  });

  it('made with no report of the own tests, it keeps what the committed run measured of the store, over today\'s census, and names that run', () => {
    const fresh: Headline = { areas: [row('domain rules', 'suite'), { ...row('store', 'own-tests'), mutants: 2293, files: 13, measuredFiles: 0, scored: 0, detected: 0, score: null, notRun: 2293 }], ignoredReasons: [], outside: [], contract: null, provenance: { suite: { command: 'npm run mutation', when: '2026-12-03' }, ownTests: null, contract: null } };
    const measured = { command: 'npm run mutation -- --own-tests --mutate simulator/store/manifest.ts', when: '2026-12-02', minutes: 28 };
    const last: Headline = { ...fresh, areas: [row('domain rules', 'suite'), { ...row('store', 'own-tests'), mutants: 2234, files: 13, measuredFiles: 1, scored: 43, detected: 22, survived: 14, noCoverage: 7, score: 51.16, notRun: 2191 }], provenance: { suite: null, ownTests: measured, contract: null } };
    const kept = withCommittedOwnTests(fresh, last);
    expect(kept.areas[1]).toMatchObject({ area: 'store', mutants: 2293, measuredFiles: 1, scored: 43, detected: 22, survived: 14, noCoverage: 7, score: 51.16, notRun: 2250 });
    expect(kept.areas[0]).toBe(fresh.areas[0]);
    expect(kept.provenance).toEqual({ suite: fresh.provenance.suite, ownTests: measured, contract: null });
    // A committed summary that never measured the store leaves the row as it is.
    expect(withCommittedOwnTests(fresh, { ...last, provenance: { ...last.provenance, ownTests: null } })).toBe(fresh);
  });
});

const mutant = (line: number, status: StrykerMutant['status']): StrykerMutant => ({ id: `${line}`, mutatorName: 'BooleanLiteral', replacement: 'false', status, location: { start: { line, column: 1 }, end: { line, column: 5 } } });
// Two store files in one incremental file: lock.ts from one run, errors.ts from another.
const store: StrykerReport = {
  files: {
    'simulator/store/lock.ts': { source: 'a\nb\n', mutants: [mutant(1, 'Killed'), mutant(2, 'Survived')] },
    'simulator/store/errors.ts': { source: 'c\r\nd\r\n', mutants: [mutant(1, 'Killed'), mutant(2, 'NoCoverage')] },
  },
};
// The census: the two mutants of each file run, three of a file not run yet.
const census = [
  ...[1, 2].flatMap((line) => ['simulator/store/lock.ts', 'simulator/store/errors.ts'].map((file) => ({ file, line, ignored: null }))),
  ...[1, 2, 3].map((line) => ({ file: 'simulator/store/journal.ts', line, ignored: null })),
];
const lockRun = { command: 'npm run mutation -- --own-tests --mutate simulator/store/lock.ts', when: '2026-12-03', minutes: 4 };
const errorsRun = { command: 'npm run mutation -- --own-tests --mutate simulator/store/errors.ts', when: '2026-12-03', minutes: 2 };

describe('the own tests\' score, made of runs of single files', () => {
  it('counts every file the incremental file holds, each named with the run that last measured it', () => {
    const h = headline({ census, ownTests: { report: store, provenance: ownTestsRun(ownTestsRun(null, lockRun, ['simulator/store/lock.ts']), errorsRun, ['simulator/store/errors.ts']), changed: [] }, equivalents: [] });
    expect(h.areas.find((a) => a.area === 'store')).toMatchObject({ files: 3, measuredFiles: 2, scored: 4, detected: 2, survived: 1, noCoverage: 1, notRun: 3, score: 50 });
    expect(h.areas.find((a) => a.area === 'store')!.changed).toBeUndefined();
    const text = headlineMarkdown(h).join('\n');
    expect(text).toContain(`The own tests' files, each as last measured: \`simulator/store/errors.ts\`: \`${errorsRun.command}\` on 2026-12-03 (2 minutes); \`simulator/store/lock.ts\`: \`${lockRun.command}\` on 2026-12-03 (4 minutes).`);
    expect(text).not.toContain('Changed since their run');
  });

  it('leaves a file whose code changed since its run out of the figures and names it, to run again', () => {
    const changed = changedSince(store, (file) => ({ 'simulator/store/lock.ts': 'a\nB\n', 'simulator/store/errors.ts': 'c\nd\n' })[file]);
    // Line endings apart, errors.ts is the code its run mutated.
    expect(changed).toEqual(['simulator/store/lock.ts']);
    const h = headline({ census, ownTests: { report: store, provenance: lockRun, changed }, equivalents: [] });
    expect(h.areas.find((a) => a.area === 'store')).toMatchObject({ measuredFiles: 1, scored: 2, detected: 1, survived: 0, noCoverage: 1, notRun: 5, changed: ['simulator/store/lock.ts'] });
    expect(headlineMarkdown(h).join('\n')).toContain('Changed since their run, so out of the figures until run again (`npm run mutation -- --own-tests --mutate FILE`): `simulator/store/lock.ts`.');
  });

  it('a file whose results hold fewer mutants than the census makes there today is to run again too (carried over a diff of changed code)', () => {
    const more = [...census, { file: 'simulator/store/errors.ts', line: 4, ignored: null }, { file: 'simulator/store/errors.ts', line: 5, ignored: 'wording' }];
    const h = headline({ census: more, ownTests: { report: store, provenance: lockRun, changed: [] }, equivalents: [] });
    expect(h.areas.find((a) => a.area === 'store')).toMatchObject({ measuredFiles: 1, scored: 2, detected: 1, survived: 1, noCoverage: 0, notRun: 3 + 3, changed: ['simulator/store/errors.ts'] });
  });

  it('lists what lived in the files measured, with the tests that reached it; a recorded equivalent and a changed file are not listed', () => {
    const reached: StrykerReport = {
      ...store,
      files: { ...store.files, 'simulator/store/lock.ts': { source: 'a\nb\n', mutants: [mutant(1, 'Survived'), { ...mutant(2, 'Survived'), coveredBy: ['0', '1', '2'] }] } },
      testFiles: { 'simulator/store/lock.test.ts': { tests: [{ id: '0', name: 'a' }, { id: '1', name: 'b' }] }, 'simulator/store/crash.test.ts': { tests: [{ id: '2', name: 'c' }] } },
    };
    const equivalent = { file: 'simulator/store/lock.ts', line: 1, column: 1, mutator: 'BooleanLiteral', original: 'a', replacement: 'false', category: 'equivalent' as const, reason: '§2.1 why' };
    const h = headline({ census, ownTests: { report: reached, provenance: lockRun, changed: [] }, equivalents: [equivalent] });
    expect(h.ownTestsLived).toEqual([
      { file: 'simulator/store/errors.ts', line: 2, column: 1, mutator: 'BooleanLiteral', replacement: 'false', status: 'NoCoverage', tests: 0, testFiles: [] },
      { file: 'simulator/store/lock.ts', line: 2, column: 1, mutator: 'BooleanLiteral', replacement: 'false', status: 'Survived', tests: 3, testFiles: ['simulator/store/crash.test.ts', 'simulator/store/lock.test.ts'] },
    ]);
    const text = headlineMarkdown(h).join('\n');
    expect(text).toContain("### What lived in the store's own tests (1 survived, 1 not reached)");
    expect(text).toContain('- simulator/store/lock.ts:2:1 BooleanLiteral → `false` (reached by 3 tests of simulator/store/crash.test.ts, simulator/store/lock.test.ts)');
    expect(text).toContain('- simulator/store/errors.ts:2:1 BooleanLiteral → `false` (reached by no test)');
    // A file changed since its run says nothing about today's code.
    expect(headline({ census, ownTests: { report: reached, provenance: lockRun, changed: ['simulator/store/lock.ts'] }, equivalents: [] }).ownTestsLived!.map((m) => m.file)).toEqual(['simulator/store/errors.ts']);
    // Kept from the committed summary when no report of the own tests is here.
    const fresh = headline({ census, equivalents: [] });
    expect(fresh.ownTestsLived).toBeUndefined();
    expect(withCommittedOwnTests(fresh, h).ownTestsLived).toEqual(h.ownTestsLived);
  });

  it('a file that is gone is not "changed": the census no longer counts it', () => {
    expect(changedSince(store, () => undefined)).toEqual([]);
  });

  it('a run measured the files its --mutate names (a file, a range of one, a glob), or all of them with none', () => {
    expect(filesRun(store)).toEqual(['simulator/store/errors.ts', 'simulator/store/lock.ts']);
    expect(filesRun(store, 'simulator/store/lock.ts')).toEqual(['simulator/store/lock.ts']);
    expect(filesRun(store, 'simulator/store/lock.ts:1-20, simulator/store/journal.ts')).toEqual(['simulator/store/lock.ts']);
    expect(filesRun(store, 'simulator/store/e*.ts')).toEqual(['simulator/store/errors.ts']);
  });

  it('each run adds its files to the record and keeps the others\'; the record before per-file runs counts for the file it named', () => {
    const legacy = { command: 'npm run mutation -- --own-tests --mutate simulator/store/manifest.ts', when: '2026-12-02', minutes: 28 };
    const after = ownTestsRun(legacy, lockRun, ['simulator/store/lock.ts']);
    expect(after).toEqual({ ...lockRun, files: { 'simulator/store/manifest.ts': legacy, 'simulator/store/lock.ts': lockRun } });
    const again = ownTestsRun(after, { ...lockRun, minutes: 3 }, ['simulator/store/lock.ts']);
    expect(again.files).toEqual({ 'simulator/store/manifest.ts': legacy, 'simulator/store/lock.ts': { ...lockRun, minutes: 3 } });
    expect(ownTestsRun({ command: 'npm run mutation -- --own-tests', when: '2026-12-01' }, lockRun, ['simulator/store/lock.ts']).files).toEqual({ 'simulator/store/lock.ts': lockRun });
  });
});
