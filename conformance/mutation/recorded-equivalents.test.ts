/**
 * A whole run starts from the recorded equivalents only: the seed keeps the
 * last results of the mutants equivalent-mutants.yaml names (survived or not
 * reached), and nothing else, so every other mutant is tested afresh; and it
 * names today's versions of the checks that reached them as the ones that
 * did, so Stryker reruns one when its own code changed or a check written
 * since reaches it, not when a check that reached it changed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EQUIVALENTS_FILE, equivalentSeed, ownTestsSeed, readEquivalents } from './recorded-equivalents.ts';
import { summarise, summaryMarkdown, type Equivalent, type StrykerMutant, type StrykerReport } from './summary.ts';

const FILE = 'simulator/domain/x.ts';
const SOURCE = "if (a === 'p') go();\nif (b === 'q') stop();\n";

function m(id: string, status: StrykerMutant['status'], line: number, replacement: string): StrykerMutant {
  return { id, status, mutatorName: 'EqualityOperator', replacement, location: { start: { line, column: 5 }, end: { line, column: 14 } } };
}

const recorded: Equivalent[] = [
  { file: FILE, line: 1, column: 5, mutator: 'EqualityOperator', original: "a === 'p'", replacement: "a !== 'p'", category: 'equivalent', reason: 'a is always p' },
  { file: FILE, line: 2, column: 5, mutator: 'EqualityOperator', original: "b === 'q'", replacement: "b !== 'q'", category: 'equivalent', reason: 'b is always q' },
  { file: FILE, line: 2, column: 5, mutator: 'EqualityOperator', original: "b === 'q'", replacement: 'true', category: 'not-reached', reason: 'nothing reaches b' },
];

const now = { file: 'conformance/mutation/catalogue.mutation.ts', names: ['conformance check a [11111111]', 'conformance check b [22222222]'] };

const last: StrykerReport & { schemaVersion: string } = {
  schemaVersion: '2',
  testFiles: { 'conformance/mutation/catalogue.mutation.ts': { tests: [{ id: '0', name: 'conformance check a [00000000]' }] } },
  files: {
    [FILE]: { source: SOURCE, mutants: [m('1', 'Survived', 1, "a !== 'p'"), m('2', 'Killed', 2, "b !== 'q'"), m('3', 'Survived', 2, 'true')] },
    'simulator/domain/y.ts': { source: 'x', mutants: [m('4', 'Survived', 1, 'false')] },
  },
};

describe('recorded-equivalents: the seed of a whole run', () => {
  it('keeps only the survivors and unreached mutants the equivalents file names, with the rest of the report', () => {
    const { seed, seeded } = equivalentSeed(last, recorded, now);
    expect(seeded).toBe(1);
    expect(seed.files[FILE]!.mutants.map((x) => x.id)).toEqual(['1']);
    expect(seed.files['simulator/domain/y.ts']!.mutants).toEqual([]);
    expect(seed.files[FILE]!.source).toBe(SOURCE);
    expect(seed.schemaVersion).toBe('2');
  });

  it('names today\'s checks (their test names, with digests) as the tests that reached a seeded mutant the last run recorded no coverage of, so a changed check reruns none', () => {
    const { seed } = equivalentSeed(last, recorded, now);
    const tests = seed.testFiles![now.file]!.tests;
    expect(tests.map((t) => t.name)).toEqual(now.names);
    expect(seed.files[FILE]!.mutants[0]!.coveredBy).toEqual(tests.map((t) => t.id));
    expect(seed.files[FILE]!.mutants[0]!.killedBy).toEqual([]);
  });

  it('names only today\'s versions of the checks that reached a seeded mutant last time: a check written since that reaches it is one Stryker sees added, and runs it again', () => {
    const covered = { ...last, files: { [FILE]: { source: SOURCE, mutants: [{ ...m('1', 'Survived', 1, "a !== 'p'"), coveredBy: ['0'] }] } } };
    const { seed, seeded } = equivalentSeed(covered, recorded, now);
    expect(seeded).toBe(1);
    // Check a reached it then (its digest changed since: the same check); check b is new.
    expect(seed.files[FILE]!.mutants[0]!.coveredBy).toEqual(['now-0']);
    expect(seed.testFiles![now.file]!.tests.find((t) => t.id === 'now-0')!.name).toBe('conformance check a [11111111]');
  });

  it('a mutant recorded not reached is not seeded: only a recorded equivalent keeps its result', () => {
    const report = { ...last, files: { [FILE]: { source: SOURCE, mutants: [m('5', 'NoCoverage', 2, 'true')] } } };
    expect(equivalentSeed(report, recorded, now).seeded).toBe(0);
  });

  it('a recorded mutant that was killed is not seeded: it runs again (the entry is wrong, or the check got better)', () => {
    expect(equivalentSeed(last, recorded, now).seed.files[FILE]!.mutants.some((x) => x.id === '2')).toBe(false);
  });

  it('an incremental run starts from everything: the other results as they were, with the tests that reached them then', () => {
    const { seed, seeded } = equivalentSeed(last, recorded, now, 'all');
    expect(seeded).toBe(1);
    expect(seed.files[FILE]!.mutants.map((x) => x.id)).toEqual(['1', '2', '3']);
    expect(seed.files[FILE]!.mutants[1]).toEqual(last.files[FILE]!.mutants[1]);
    expect(seed.files['simulator/domain/y.ts']!.mutants).toEqual(last.files['simulator/domain/y.ts']!.mutants);
    expect(seed.testFiles![now.file]!.tests.map((t) => t.name)).toEqual(['conformance check a [00000000]', ...now.names]);
    expect(seed.files[FILE]!.mutants[0]!.coveredBy).toEqual(['now-0', 'now-1']);
  });

  it('a static mutant that survived, unless recorded, runs again: every check reaches it and the report names none, so a check written since would go unseen', () => {
    const report = { ...last, files: { 'simulator/domain/y.ts': { source: 'x', mutants: [{ ...m('6', 'Survived', 1, 'false'), static: true }, { ...m('7', 'Killed', 1, 'true'), static: true }, { ...m('8', 'NoCoverage', 1, '!x'), static: true }] } } };
    expect(equivalentSeed(report, recorded, now, 'all').seed.files['simulator/domain/y.ts']!.mutants.map((x) => x.id)).toEqual(['7']);
    // A slice that does not mutate the file keeps its results as they are.
    expect(equivalentSeed(report, recorded, now, 'all', (file) => file !== 'simulator/domain/y.ts').seed.files['simulator/domain/y.ts']!.mutants.map((x) => x.id)).toEqual(['6', '7', '8']);
  });

  it('with no equivalents file entry nothing is seeded', () => {
    expect(equivalentSeed(last, [], now).seeded).toBe(0);
  });

  it('the summary page says the run started from them, and how to rerun them', () => {
    const page = summaryMarkdown(summarise(last, [], recorded), { when: 'today', command: 'npm run mutation', seeded: 1 });
    expect(page).toContain('The 1 mutants recorded equivalent kept their last result, not run again, where their code was unchanged and no check written since reached them');
    expect(page).toContain('npm run mutation -- --with-equivalents');
    expect(summaryMarkdown(summarise(last, [], recorded), { when: 'today', command: 'npm run mutation -- --with-equivalents' })).not.toContain('recorded equivalent kept');
  });
});

describe('recorded-equivalents: the seed of the own tests\' run', () => {
  const report: StrykerReport = {
    testFiles: { 'simulator/store/a.test.ts': { tests: [{ id: '0', name: 'a test' }] } },
    files: {
      [FILE]: { source: SOURCE, mutants: [{ ...m('1', 'Survived', 1, "a !== 'p'"), static: true }, { ...m('2', 'Survived', 2, "b === 'r'"), static: true }, { ...m('3', 'NoCoverage', 2, 'true'), static: true }, { ...m('4', 'Killed', 2, 'false'), static: true }, m('5', 'Survived', 2, '!b')] },
      'simulator/domain/y.ts': { source: 'x', mutants: [{ ...m('6', 'Survived', 1, 'false'), static: true }] },
    },
  };

  it('a survivor or unreached mutant of a file the run mutates runs again, static or not (the store\'s coverage per test misses tests written since); a recorded equivalent and every other result are kept', () => {
    const { seed, again } = ownTestsSeed(report, recorded, (file) => file === FILE);
    // 1 is recorded equivalent; 2, 3 and 5 run again; 4 was killed.
    expect(seed.files[FILE]!.mutants.map((x) => x.id)).toEqual(['1', '4']);
    expect(again).toBe(3);
    // A file the run does not mutate keeps its results as they are; the tests are the report's.
    expect(seed.files['simulator/domain/y.ts']).toEqual(report.files['simulator/domain/y.ts']);
    expect(seed.testFiles).toEqual(report.testFiles);
  });
});

describe('readEquivalents: the one reader of equivalent-mutants.yaml (npm run mutation and the tests alike)', () => {
  const entry = (reasons: string[]) => `- file: ${FILE}\n  line: 1\n  column: 5\n  mutator: EqualityOperator\n  replacement: "a !== 'p'"\n  original: "a === 'p'"\n  category: equivalent\n${reasons.map((r) => `  reason: "${r}"\n`).join('')}`;
  const written = (text: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'equivalents-')), 'equivalent-mutants.yaml');
    writeFileSync(file, text);
    return pathToFileURL(file);
  };

  it('reads an entry', () => {
    expect(readEquivalents(written(entry(['§1 a is always p'])))).toEqual([recorded[0]!].map((e) => ({ ...e, reason: '§1 a is always p' })));
  });

  it('refuses a duplicate key (a three-way merge left two reasons in one entry), as strictly as a run does', () => {
    expect(() => readEquivalents(written(entry(['§1 a is always p', '§1 a is p'])))).toThrow(/unique/i);
  });

  it('reads the committed file by default (summary.test.ts holds each entry to its code)', () => {
    expect(readEquivalents()).toEqual(readEquivalents(EQUIVALENTS_FILE));
  });
});
