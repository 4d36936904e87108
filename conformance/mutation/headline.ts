/**
 * The honest headline (issue 40 item 3): not one percentage but, per area of
 * scope.mjs, how many mutants it holds, how many a run scored and killed,
 * how many are recorded equivalent or not reached, how many are ignored and
 * why, how many no run has tested yet; then what is left out and why, and
 * the contract mutants per keyword. Data in, data and a page out.
 */
import { posix } from 'node:path';
import type { CensusMutant } from './census.ts';
import type { ContractRun } from './contract-mutation.ts';
import { contractScores } from './contract-mutation.ts';
import { judgeContract, type ContractEquivalent, type JudgedContractResult } from './contract-equivalents.ts';
import { AREAS, OUTSIDE, placeOf, type Area } from './scope.mjs';
import { counts, judgeAll, type Equivalent, type StrykerReport } from './summary.ts';

/** Where a run's figures come from (run.json of its report, or the committed summary's). */
export interface Provenance {
  command: string;
  when: string;
  minutes?: number;
  /** What the minutes do not say (the contract's results taken from its cache, measured by an earlier run of the same sources). */
  note?: string;
  /** A whole run made of slices (`--area`): the run that last measured each area. */
  areas?: Record<string, Provenance>;
  /** The own tests' score made of runs of single files (`--own-tests --mutate FILE`): the run that last measured each file. */
  files?: Record<string, Provenance>;
}

export interface AreaRow {
  area: string;
  killer: Area['killer'];
  note?: string;
  /** Mutants Stryker makes in the area (census), and of them ignored by a disable comment or the ignorer. */
  mutants: number;
  ignored: number;
  files: number;
  /** Files a run of its killer has results for. */
  measuredFiles: number;
  scored: number;
  detected: number;
  survived: number;
  noCoverage: number;
  equivalent: number;
  notReached: number;
  /** Mutants (not ignored) of files no run has measured yet, or whose code changed since their run. */
  notRun: number;
  score: number | null;
  /** Files a run measured whose code has changed since: their results no longer describe the code (out of the row), to run again. */
  changed?: string[];
}

/**
 * A mutant of the own tests' files that lived: survived, or no test reached it (recorded not reached or not), and not
 * recorded equivalent. Each is a missing test of the store or an equivalent to record with its reason.
 */
export interface LivedMutant {
  file: string;
  line: number;
  column: number;
  mutator: string;
  replacement: string;
  status: 'Survived' | 'NoCoverage';
  /** How many tests reached it, and their files: the tests that should have failed. */
  tests: number;
  testFiles: string[];
  /** For a mutant recorded not reached: the triage's reason. */
  reason?: string;
}

export interface Headline {
  areas: AreaRow[];
  /** What lived in the files the own tests measured (absent in a summary written before it was kept). */
  ownTestsLived?: LivedMutant[];
  ignoredReasons: { area: string; reason: string; mutants: number }[];
  outside: { files: string; reason: string; mutants: number | null }[];
  contract: { run: ContractRun; scores: ReturnType<typeof contractScores>; judged: JudgedContractResult[]; entryErrors: string[] } | null;
  provenance: { suite: Provenance | null; ownTests: Provenance | null; contract: Provenance | null };
}

export interface HeadlineInput {
  census: CensusMutant[];
  suite?: { report: StrykerReport; provenance: Provenance };
  /**
   * `changed`: files of the report whose code is no longer what the run mutated (changedSince): out of the figures, named
   * in the row as to run again (so is a file whose results hold fewer mutants than the census makes there today).
   * The own tests' report is one incremental file that runs of single files add to.
   */
  ownTests?: { report: StrykerReport; provenance: Provenance; changed?: string[] };
  /** The contract run, the mutants recorded equivalent (contract-equivalents.yaml) and every mutant id of the document. */
  contract?: { run: ContractRun; provenance: Provenance; equivalents?: ContractEquivalent[]; ids?: string[] };
  equivalents: Equivalent[];
}

const areaOf = (file: string, line: number): Area | undefined => {
  const p = placeOf(file, line);
  return p && 'area' in p ? p.area : undefined;
};

/**
 * The files of a report whose code today (`read`: undefined when the file is gone) is not the code the run mutated:
 * their results are about code that no longer exists. Line endings aside, as Stryker's own diff.
 */
export function changedSince(report: StrykerReport, read: (file: string) => string | undefined): string[] {
  const plain = (text: string) => text.replace(/\r\n/g, '\n');
  return Object.entries(report.files)
    .filter(([file, f]) => { const now = read(file); return now !== undefined && f.source !== undefined && plain(now) !== plain(f.source); })
    .map(([file]) => file).sort();
}

/**
 * The files an own-tests run measured: with no --mutate, every file of its report; else those its --mutate names
 * (`FILE`, `FILE:FROM-TO`, or a glob matched against the report's files; `!…` excludes nothing here).
 */
export function filesRun(report: StrykerReport, mutate?: string): string[] {
  const files = Object.keys(report.files);
  if (mutate === undefined) return files.sort();
  const patterns = mutate.split(',').map((p) => p.trim().replace(/:\d+(:\d+)?-\d+(:\d+)?$/, '')).filter((p) => p !== '' && !p.startsWith('!'));
  // A named file needs no glob (path.matchesGlob is still experimental in Node 20 and warns).
  return files.filter((f) => patterns.some((p) => p === f || (/[*?[{]/.test(p) && posix.matchesGlob(f, p)))).sort();
}

/**
 * The own tests' provenance after a run (`now`) that measured `files`: the last run's record of every other file kept.
 * A record from before the per-file one (a `--mutate FILE` run with no `files`) counts for the file it names.
 */
export function ownTestsRun(before: Provenance | null, now: Provenance, files: string[]): Provenance {
  const named = before && !before.files ? /--own-tests --mutate (\S+)$/.exec(before.command)?.[1] : undefined;
  const kept = before?.files ?? (named && !/[*?[{:,]/.test(named) ? { [named]: { command: before!.command, when: before!.when, ...(before!.minutes !== undefined ? { minutes: before!.minutes } : {}) } } : {});
  return { ...now, files: { ...kept, ...Object.fromEntries(files.map((f) => [f, now])) } };
}

export function headline(input: HeadlineInput): Headline {
  // A file is to run again when its code changed since its run, or when its results hold fewer mutants than the census
  // makes there today: a later run of another file carried them over Stryker's diff of the changed code, which drops
  // the mutants of the lines that changed (and the new lines have none).
  const census = new Map<string, number>();
  for (const m of input.census) if (m.ignored === null) census.set(m.file, (census.get(m.file) ?? 0) + 1);
  const short = Object.entries(input.ownTests?.report.files ?? {})
    .filter(([file, f]) => f.mutants.filter((m) => m.status !== 'Ignored').length < (census.get(file) ?? 0)).map(([file]) => file);
  const changed = new Set([...(input.ownTests?.changed ?? []), ...short]);
  const current = (killer: Area['killer']): StrykerReport | undefined => {
    if (killer === 'suite') return input.suite?.report;
    const report = input.ownTests?.report;
    return report && { ...report, files: Object.fromEntries(Object.entries(report.files).filter(([file]) => !changed.has(file))) };
  };
  const judged = (killer: Area['killer']) => {
    const report = current(killer);
    return report ? judgeAll(report, input.equivalents) : [];
  };
  const byKiller = { suite: judged('suite'), 'own-tests': judged('own-tests') };
  const testFileOf = new Map(Object.entries(input.ownTests?.report.testFiles ?? {}).flatMap(([file, f]) => f.tests.map((t) => [t.id, file] as const)));
  const ownTestsLived = byKiller['own-tests'].filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').map((m): LivedMutant => ({
    file: m.file, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName, replacement: m.replacement ?? '',
    status: m.status as LivedMutant['status'], tests: m.coveredBy?.length ?? 0,
    testFiles: [...new Set((m.coveredBy ?? []).map((id) => testFileOf.get(id) ?? id))].sort(),
    ...(m.reason !== undefined ? { reason: m.reason } : {}),
  })).sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  const measured = (killer: Area['killer']) => new Set(Object.keys(current(killer)?.files ?? {}));
  const areas = AREAS.map((area): AreaRow => {
    const inArea = input.census.filter((m) => areaOf(m.file, m.line) === area);
    const files = new Set(inArea.map((m) => m.file));
    const ran = measured(area.killer);
    const results = byKiller[area.killer].filter((m) => areaOf(m.file, m.location.start.line) === area);
    const c = counts(results);
    return {
      area: area.area, killer: area.killer, ...(area.note ? { note: area.note } : {}),
      mutants: inArea.length, ignored: inArea.filter((m) => m.ignored !== null).length,
      files: files.size, measuredFiles: [...files].filter((f) => ran.has(f)).length,
      scored: c.killed + c.timeout + c.survived + c.noCoverage, detected: c.killed + c.timeout, survived: c.survived, noCoverage: c.noCoverage,
      equivalent: c.equivalent, notReached: c.notReached,
      notRun: inArea.filter((m) => m.ignored === null && !ran.has(m.file)).length,
      score: c.score,
      ...(area.killer === 'own-tests' && [...files].some((f) => changed.has(f)) ? { changed: [...files].filter((f) => changed.has(f)).sort() } : {}),
    };
  });
  const reasons = new Map<string, number>();
  for (const m of input.census) {
    const area = areaOf(m.file, m.line);
    if (!area || m.ignored === null) continue;
    const key = `${area.area}\u0000${m.ignored}`;
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  const ignoredReasons = [...reasons].map(([k, mutants]) => ({ area: k.split('\u0000')[0]!, reason: k.split('\u0000')[1]!, mutants }))
    .sort((a, b) => a.area.localeCompare(b.area) || b.mutants - a.mutants);
  const outside = OUTSIDE.map((o) => ({
    files: o.files, reason: o.reason,
    // Tests are not counted: the census reads the sources only.
    mutants: o.files === '**/*.test.ts' ? null : input.census.filter((m) => { const p = placeOf(m.file, m.line); return p !== undefined && 'outside' in p && p.outside === o; }).length,
  }));
  return {
    areas, ...(input.ownTests ? { ownTestsLived } : {}), ignoredReasons, outside,
    contract: input.contract ? contractPart(input.contract) : null,
    provenance: { suite: input.suite?.provenance ?? null, ownTests: input.ownTests?.provenance ?? null, contract: input.contract?.provenance ?? null },
  };
}

/**
 * The own tests' rows of a headline made with no report of theirs, from the committed one (`last`): what that run
 * measured, over today's census (a clone runs the suite's slices, not the store's hours, and must not erase its score).
 */
export function withCommittedOwnTests(h: Headline, last: Headline): Headline {
  if (!last.provenance.ownTests) return h;
  return {
    ...h,
    areas: h.areas.map((row) => {
      const was = row.killer === 'own-tests' ? last.areas.find((a) => a.area === row.area) : undefined;
      if (!was || was.measuredFiles === 0) return row;
      const { measuredFiles, scored, detected, survived, noCoverage, equivalent, notReached, score } = was;
      return { ...row, measuredFiles, scored, detected, survived, noCoverage, equivalent, notReached, score, notRun: Math.max(0, row.mutants - row.ignored - scored - equivalent - notReached) };
    }),
    ...(last.ownTestsLived ? { ownTestsLived: last.ownTestsLived } : {}),
    provenance: { ...h.provenance, ownTests: last.provenance.ownTests },
  };
}

/** The contract run with its recorded equivalents judged (a survivor an entry names), scored per keyword. */
export function contractPart(c: NonNullable<HeadlineInput['contract']>): NonNullable<Headline['contract']> {
  const { results, errors } = judgeContract(c.run.results, c.equivalents ?? [], c.ids ?? c.run.results.map((r) => r.id));
  return { run: c.run, scores: contractScores(results), judged: results, entryErrors: errors };
}

const pct = (score: number | null) => (score === null ? 'n/a' : `${score.toFixed(2)}%`);
const about = (p: Provenance | null) => (p ? `\`${p.command}\` on ${p.when}${p.minutes !== undefined ? ` (${p.minutes} minutes${p.note ? `; ${p.note}` : ''})` : ''}` : 'not run');

/** Where the suite's run came in slices, which slice last measured each of its areas (an area none measured: not run). */
function measuredBy(h: Headline): string[] {
  const slices = h.provenance.suite?.areas;
  if (!slices) return [];
  const suiteAreas = h.areas.filter((a) => a.killer === 'suite').map((a) => a.area);
  return [`The suite's areas, each as last measured: ${suiteAreas.map((a) => `${a}: ${slices[a] ? about(slices[a]) : 'not run'}`).join('; ')}.`, ''];
}

/**
 * The own tests' score is made of runs of single files: which run last measured each file, and which files changed
 * since their run (out of the figures until run again).
 */
function ownTestsFiles(h: Headline): string[] {
  const files = h.provenance.ownTests?.files;
  const changed = h.areas.flatMap((a) => a.changed ?? []);
  return [
    ...(files ? [`The own tests' files, each as last measured: ${Object.keys(files).sort().map((f) => `\`${f}\`: ${about(files[f]!)}`).join('; ')}.`, ''] : []),
    ...(changed.length > 0 ? [`Changed since their run, so out of the figures until run again (\`npm run mutation -- --own-tests --mutate FILE\`): ${changed.map((f) => `\`${f}\``).join(', ')}.`, ''] : []),
  ];
}

/** What lived in the own tests' files, each with the tests that reached it (the suite's survivors have their own section). */
function ownTestsLivedLines(h: Headline): string[] {
  if (!h.ownTestsLived) return [];
  const survived = h.ownTestsLived.filter((m) => m.status === 'Survived').length;
  return [
    `### What lived in the store's own tests (${survived} survived, ${h.ownTestsLived.length - survived} not reached)`,
    '',
    'Each is a missing test of the store, or a mutant no outcome the store promises can tell apart, to record with its reason in conformance/mutation/equivalent-mutants.yaml.',
    '',
    ...(h.ownTestsLived.length === 0 ? ['None.'] : h.ownTestsLived.map((m) => `- ${m.file}:${m.line}:${m.column} ${m.mutator} → \`${m.replacement.split('\n')[0]!.replace(/`/g, "'").slice(0, 80)}\` (${m.tests === 0 ? 'reached by no test' : `reached by ${m.tests} test${m.tests === 1 ? '' : 's'} of ${m.testFiles.join(', ')}`})${m.reason ? `: recorded not reached: ${m.reason}` : ''}`)),
    '',
  ];
}

/** The page's first section: the table the docs quote. */
export function headlineMarkdown(h: Headline): string[] {
  const total = (k: keyof AreaRow) => h.areas.reduce((n, a) => n + (a[k] as number), 0);
  const outsideTotal = h.outside.reduce((n, o) => n + (o.mutants ?? 0), 0);
  return [
    '## What the score covers',
    '',
    `Per area of \`conformance/mutation/scope.mjs\`: the mutants StrykerJS makes there (counted by its instrumenter, nothing run), those a run scored and detected, and those out of the score, each with its reason. The suite's bite: ${about(h.provenance.suite)}. The simulator's own tests (the store): ${about(h.provenance.ownTests)}. The contract: ${about(h.provenance.contract)}.`,
    '',
    '| area | killed by | mutants | ignored | files run | scored | detected | survived | not reached | equivalent | recorded not reached | not run yet | score |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...h.areas.map((a) => `| ${a.area} | ${a.killer === 'suite' ? 'the suite' : 'own tests'} | ${a.mutants} | ${a.ignored} | ${a.measuredFiles}/${a.files} | ${a.scored} | ${a.detected} | ${a.survived} | ${a.noCoverage} | ${a.equivalent} | ${a.notReached} | ${a.notRun} | ${a.measuredFiles === 0 ? 'not measured' : a.measuredFiles < a.files ? `${pct(a.score)} of the files run` : pct(a.score)} |`),
    `| **all areas** | | ${total('mutants')} | ${total('ignored')} | ${total('measuredFiles')}/${total('files')} | ${total('scored')} | ${total('detected')} | ${total('survived')} | ${total('noCoverage')} | ${total('equivalent')} | ${total('notReached')} | ${total('notRun')} | |`,
    `| left out (below) | | ${outsideTotal} | | | | | | | | | | |`,
    '',
    ...measuredBy(h),
    ...ownTestsFiles(h),
    'A score is detected over detected, survived and not reached; it stands for the files a run measured, never for the area when "files run" is short of all. Notes: ' + h.areas.filter((a) => a.note).map((a) => `${a.area}: ${a.note}`).join('; ') + '.',
    '',
    ...ownTestsLivedLines(h),
    '### Ignored, by reason',
    '',
    '| area | mutants | reason |',
    '|---|---:|---|',
    ...h.ignoredReasons.map((r) => `| ${r.area} | ${r.mutants} | ${r.reason.replace(/\|/g, '\\|')} |`),
    '',
    '### Left out of both runs, by reason',
    '',
    '| files | mutants | reason |',
    '|---|---:|---|',
    ...h.outside.map((o) => `| \`${o.files}\` | ${o.mutants ?? 'not counted'} | ${o.reason.replace(/\|/g, '\\|')} |`),
    '',
    '### The contract (spec/openapi.yaml), per keyword',
    '',
    ...(h.contract === null ? ['Not run: `npm run mutation -- --contract`.'] : contractMarkdown(h.contract)),
    '',
  ];
}

/** The contract's section: per keyword, then what lived, then the recorded equivalents with their reasons. */
function contractMarkdown(c: NonNullable<Headline['contract']>): string[] {
  const lived = c.judged.filter((r) => r.status === 'Survived' || r.status === 'NoCoverage');
  const equivalent = c.judged.filter((r) => r.status === 'Equivalent');
  return [
    `${c.run.chosen} of the document's ${c.run.mutants} mutants run${c.run.filter ? ` (${c.run.filter})` : ''}${c.run.chosen < c.run.mutants ? '; the rest not run yet' : ''}. Each is a one-step change of a keyword the simulator enforces (conformance/mutation/contract-mutants.ts), killed when a check that sends its operation fails. A score is killed over killed, survived and not reached; a mutant no rule of the document can see is recorded equivalent (conformance/mutation/contract-equivalents.yaml, each with its reason) and out of the score, a mutant no check reaches stays in it.`,
    '',
    '| keyword | mutants | killed | survived | not reached | equivalent | score |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...c.scores.map((s) => `| ${s.keyword === 'all' ? '**all run**' : s.keyword === 'limits and defaults' ? '*limits and defaults*' : s.keyword} | ${s.mutants} | ${s.killed} | ${s.survived} | ${s.noCoverage} | ${s.equivalent} | ${pct(s.score)} |`),
    '',
    'Lived:',
    '',
    ...(lived.length > 0 ? lived.map((r) => `- ${r.status === 'Survived' ? `survived ${r.checksRun.length} checks` : 'no check sends its operation'}: \`${r.id}\` (${r.operations.join(', ')})`) : ['None.']),
    '',
    `Recorded equivalent (${equivalent.length}):`,
    '',
    ...(equivalent.length > 0 ? equivalent.map((r) => `- \`${r.id}\` (${r.operations.join(', ')}): ${r.equivalentReason}`) : ['None.']),
    ...(c.entryErrors.length === 0 ? [] : ['', `**${c.entryErrors.length} error(s) in conformance/mutation/contract-equivalents.yaml:**`, '', ...c.entryErrors.map((e) => `- ${e}`)]),
  ];
}
