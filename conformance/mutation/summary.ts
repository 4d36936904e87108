/**
 * The short summary of a Stryker run (`npm run mutation` writes it after
 * Stryker): the score overall and per source file, what each conformance
 * check killed, the clauses a killing failure named, and every mutant that
 * lived. Read from Stryker's JSON report (mutation-testing-report-schema);
 * returns data, the CLI (run.ts) writes it.
 */
import type { CheckDefinition } from '../check.ts';
import { limitOf, staleAnchors } from './limit-lines.ts';
import { checkIdOf } from './settings.ts';

/** The parts of Stryker's JSON report (mutation-testing-report-schema 3) read here. */
export interface StrykerReport {
  files: Record<string, { mutants: StrykerMutant[]; source?: string }>;
  testFiles?: Record<string, { tests: { id: string; name: string }[] }>;
  config?: { mutate?: string[] };
}

export interface StrykerMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';
  statusReason?: string;
  killedBy?: string[];
  coveredBy?: string[];
  static?: boolean;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

/**
 * A mutant a triage recorded, from conformance/mutation/equivalent-mutants.yaml: equivalent (a check reaches it and no
 * behaviour the document rules on tells it apart) or not reached (no check reaches its code: never "equivalent").
 * Named by its place (file, line, column: Stryker's 1-based start), mutator and replacement, never by text alone;
 * `original` is the code it replaces, checked to be still there (and telling apart two mutants that start at one place).
 */
export interface Equivalent {
  file: string;
  line: number;
  column: number;
  mutator: string;
  original: string;
  replacement: string;
  category: 'equivalent' | 'not-reached';
  reason: string;
}

export interface Counts {
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Left out with a reason (Stryker disable comments, the ignorer). */
  ignored: number;
  /** Survived or not reached, and recorded equivalent with a reason: out of the score. */
  equivalent: number;
  /** Not reached and recorded so (category `not-reached`), with a reason: a part of noCoverage, still in the score. */
  notReached: number;
  /** Mutants that did not run as code (runtime or compile errors): not in the score. */
  errors: number;
  /** Detected (killed or timed out) over detected + survived + not covered, in per cent; null when nothing counted. */
  score: number | null;
  /** The same over covered mutants only. */
  scoreCovered: number | null;
}

export interface MutantLine {
  file: string;
  line: number;
  column: number;
  mutator: string;
  /** The code the mutant replaces (what a recorded equivalent names). */
  original: string;
  replacement: string;
  status: Judged['status'];
  /** The checks whose run reached it (for a survivor: those that should have failed). */
  coveredBy: string[];
  static: boolean;
  /** For a mutant recorded not reached: the triage's reason. */
  reason?: string;
}

export interface MutationSummary {
  /** The `mutate` patterns of the run (a partial run names fewer than stryker.config.mjs). */
  mutate: string[];
  totals: Counts;
  files: ({ file: string } & Counts)[];
  /** Per check: mutants it killed (the first check to fail a mutant is credited; Stryker stops there) and mutants its run reached. */
  checks: { id: string; clauses: string[]; killed: number; covered: number }[];
  /** Per clause named by a killing failure: how many mutants, and which checks. */
  clauses: { id: string; killed: number; checks: string[] }[];
  survivors: MutantLine[];
  noCoverage: MutantLine[];
  /** Detected by a time-out: a mutant that hangs a check, or (on a loaded machine) a slow survivor; listed for triage. */
  timedOut: MutantLine[];
  /** Mutants recorded equivalent, with the reason. */
  equivalent: (MutantLine & { reason: string })[];
  /** Recorded entries that match no mutant of the run's files any more (the code changed: look again). */
  stale: Equivalent[];
  /** What is wrong with the recorded entries (entryErrors): `npm run mutation` fails on any. */
  entryErrors: string[];
  /**
   * The lines that implement a §8 limit, a §4 default or a duration (limit-lines.ts): per row of the
   * document, its counts and the mutants of those lines that lived. Issue 25 asks 100% there.
   */
  limits: { totals: Counts; rows: ({ what: string } & Counts & { lived: MutantLine[] })[]; staleAnchors: { file: string; anchor: string }[] };
}

/** The code a mutant replaces (the report's locations are 1-based, the end exclusive). */
export function originalText(source: string, location: StrykerMutant['location']): string {
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1]?.slice(start.column - 1, end.column - 1) ?? '';
  return [lines[start.line - 1]?.slice(start.column - 1) ?? '', ...lines.slice(start.line, end.line - 1), lines[end.line - 1]?.slice(0, end.column - 1) ?? ''].join('\n');
}

/** The entry a mutant matches: by file, line, column, mutator and replacement (and the code it replaces, still there). */
export function recordedEntry(equivalents: Equivalent[], file: string, original: string, m: Pick<StrykerMutant, 'mutatorName' | 'replacement' | 'location'>): Equivalent | undefined {
  return equivalents.find((e) => e.file === file && e.line === m.location.start.line && e.column === m.location.start.column
    && e.mutator === m.mutatorName && e.replacement === (m.replacement ?? '') && e.original === original);
}

/**
 * What is wrong with the entries against a run's report, for the files it mutated: an entry that matches no mutant
 * (its code moved or changed: look again) or more than one; one recorded equivalent that no check reached (not reached
 * is its own category); one recorded not reached that a check reached. Empty when every entry names one mutant.
 */
export function entryErrors(report: StrykerReport, equivalents: Equivalent[]): string[] {
  const errors: string[] = [];
  for (const e of equivalents) {
    const f = report.files[e.file];
    if (!f) continue;
    const where = `${e.file}:${e.line}:${e.column} ${e.mutator} → ${JSON.stringify(e.replacement.slice(0, 60))}`;
    const here = f.mutants.filter((m) => m.location.start.line === e.line && m.location.start.column === e.column && m.mutatorName === e.mutator && (m.replacement ?? '') === e.replacement);
    // Two mutants may start at one place with one replacement (`a || b` and `a` → false): the code each replaces tells them apart.
    const at = f.source === undefined || here.length <= 1 ? here : here.filter((m) => originalText(f.source!, m.location) === e.original);
    if (at.length === 0) {
      errors.push(`${where}: ${here.length === 0 ? 'matches no mutant (the code moved or changed: look again)' : `the code there is ${JSON.stringify(originalText(f.source!, here[0]!.location).slice(0, 60))}, not ${JSON.stringify(e.original.slice(0, 60))}`}`);
      continue;
    }
    if (at.length > 1) {
      errors.push(`${where}: matches ${at.length} mutants; an entry names one`);
      continue;
    }
    const m = at[0]!;
    if (f.source !== undefined && originalText(f.source, m.location) !== e.original) errors.push(`${where}: the code there is ${JSON.stringify(originalText(f.source, m.location).slice(0, 60))}, not ${JSON.stringify(e.original.slice(0, 60))}`);
    else if (m.status === 'NoCoverage' && e.category === 'equivalent') errors.push(`${where}: no check reaches it, so it is not equivalent: record it as not-reached (or reach it)`);
    else if (m.status === 'Survived' && e.category === 'not-reached') errors.push(`${where}: a check reaches it now: record it as equivalent with a true reason, or kill it`);
  }
  return errors;
}

export type Judged = Omit<StrykerMutant, 'status'> & { status: StrykerMutant['status'] | 'Equivalent' };

export function counts(mutants: (Pick<Judged, 'status'> & { reason?: string })[]): Counts {
  const n = (s: Judged['status']) => mutants.filter((m) => m.status === s).length;
  // A mutant no check reaches stays not reached (in the score) even where a triage recorded why (issue 40).
  const notReached = mutants.filter((m) => m.status === 'NoCoverage' && m.reason !== undefined).length;
  const killed = n('Killed');
  const timeout = n('Timeout');
  const survived = n('Survived');
  const noCoverage = n('NoCoverage');
  const detected = killed + timeout;
  const pct = (num: number, den: number) => (den === 0 ? null : Math.round((num / den) * 10000) / 100);
  return {
    mutants: mutants.length, killed, timeout, survived, noCoverage,
    ignored: n('Ignored'),
    equivalent: n('Equivalent'),
    notReached,
    errors: n('RuntimeError') + n('CompileError'),
    score: pct(detected, detected + survived + noCoverage),
    scoreCovered: pct(detected, detected + survived),
  };
}

/** The clause a check's failure names: the runner's test error ends `(4.5.R1)`. */
export function clauseOf(statusReason: string | undefined): string | null {
  const m = /\(([0-9A-Za-z][\w.-]*)\)\s*$/.exec(statusReason?.split('\n')[0] ?? '');
  return m ? m[1]! : null;
}

/** Every mutant of the report with its file, a recorded equivalent (or not-reached) judged so, with its reason; `used` collects the entries that matched. */
export function judgeAll(report: StrykerReport, equivalents: Equivalent[], used = new Set<Equivalent>()): (Judged & { file: string; reason?: string })[] {
  const judge = (file: string, source: string | undefined, m: StrykerMutant): Judged & { file: string; reason?: string } => {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') return { ...m, file };
    const match = source === undefined ? undefined : recordedEntry(equivalents, file, originalText(source, m.location), m);
    if (!match) return { ...m, file };
    used.add(match);
    // A mutant no check reaches is never equivalent: it stays not reached (in the score), with its recorded reason.
    if (m.status === 'NoCoverage' || match.category === 'not-reached') return { ...m, file, reason: match.reason };
    return { ...m, file, status: 'Equivalent', reason: match.reason };
  };
  return Object.entries(report.files).flatMap(([file, f]) => f.mutants.map((m) => judge(file, f.source, m)));
}

export function summarise(report: StrykerReport, checks: Pick<CheckDefinition, 'id' | 'clauses'>[], equivalents: Equivalent[] = []): MutationSummary {
  const testNames = new Map<string, string>();
  for (const file of Object.values(report.testFiles ?? {})) for (const t of file.tests) testNames.set(t.id, checkIdOf(t.name));
  const checkOf = (testId: string) => testNames.get(testId) ?? testId;
  const used = new Set<Equivalent>();
  const all = judgeAll(report, equivalents, used);
  const killedByCheck = new Map<string, number>();
  const coveredByCheck = new Map<string, number>();
  const clauseKills = new Map<string, { killed: number; checks: Set<string> }>();
  for (const m of all) {
    for (const t of m.coveredBy ?? []) coveredByCheck.set(checkOf(t), (coveredByCheck.get(checkOf(t)) ?? 0) + 1);
    if (m.status !== 'Killed') continue;
    for (const t of m.killedBy ?? []) killedByCheck.set(checkOf(t), (killedByCheck.get(checkOf(t)) ?? 0) + 1);
    const clause = clauseOf(m.statusReason);
    if (clause) {
      const entry = clauseKills.get(clause) ?? { killed: 0, checks: new Set<string>() };
      entry.killed += 1;
      for (const t of m.killedBy ?? []) entry.checks.add(checkOf(t));
      clauseKills.set(clause, entry);
    }
  }
  const line = (m: Judged & { file: string }): MutantLine => ({
    file: m.file, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName,
    original: originalText(report.files[m.file]!.source ?? '', m.location), replacement: m.replacement ?? '',
    status: m.status, coveredBy: [...new Set((m.coveredBy ?? []).map(checkOf))], static: m.static ?? false,
    ...('reason' in m && m.reason !== undefined && m.status === 'NoCoverage' ? { reason: m.reason as string } : {}),
  });
  const byPlace = (a: MutantLine, b: MutantLine) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
  // Each file's lines split once, not once per mutant.
  const linesOf = new Map(Object.entries(report.files).map(([f, v]) => [f, v.source?.split('\n') ?? []]));
  const limitWhat = (m: Judged & { file: string }) => limitOf(m.file, linesOf.get(m.file)![m.location.start.line - 1] ?? '')?.what;
  const onLimits = all.filter((m) => limitWhat(m) !== undefined);
  const rows = [...new Set(onLimits.map(limitWhat))].map((what) => {
    const ms = onLimits.filter((m) => limitWhat(m) === what);
    return { what: what!, ...counts(ms), lived: ms.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').map(line).sort(byPlace) };
  });
  return {
    mutate: report.config?.mutate ?? [],
    totals: counts(all),
    files: Object.keys(report.files).sort().map((file) => ({ file, ...counts(all.filter((m) => m.file === file)) })),
    checks: checks.map((c) => ({ id: c.id, clauses: c.clauses, killed: killedByCheck.get(c.id) ?? 0, covered: coveredByCheck.get(c.id) ?? 0 })),
    clauses: [...clauseKills].map(([id, e]) => ({ id, killed: e.killed, checks: [...e.checks].sort() })).sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true })),
    survivors: all.filter((m) => m.status === 'Survived').map(line).sort(byPlace),
    noCoverage: all.filter((m) => m.status === 'NoCoverage').map(line).sort(byPlace),
    timedOut: all.filter((m) => m.status === 'Timeout').map(line).sort(byPlace),
    equivalent: all.filter((m) => m.status === 'Equivalent').map((m) => ({ ...line(m), reason: m.reason! })).sort(byPlace),
    stale: equivalents.filter((e) => !used.has(e) && e.file in report.files),
    entryErrors: entryErrors(report, equivalents),
    limits: { totals: counts(onLimits), rows, staleAnchors: staleAnchors(Object.fromEntries(Object.entries(report.files).map(([f, v]) => [f, v.source]))) },
  };
}

const pct = (score: number | null) => (score === null ? 'n/a' : `${score.toFixed(2)}%`);

/** The summary as a page: headline, files, checks, clauses, then every mutant that lived. */
export function summaryMarkdown(s: MutationSummary, about: { when: string; minutes?: number; command: string; seeded?: number }, headline: string[] = []): string {
  const t = s.totals;
  const out: string[] = [
    '# Mutation testing: last run',
    '',
    `Written by \`${about.command}\` on ${about.when}${about.minutes !== undefined ? ` (${about.minutes} minutes)` : ''}. Mutated: ${s.mutate.map((p) => `\`${p}\``).join(', ')}.`,
    ...(about.seeded === undefined ? [] : ['', `The ${about.seeded} mutants recorded equivalent kept their last result, not run again, where their code was unchanged and no check written since reached them (\`npm run mutation -- --with-equivalents\` runs them too, to confirm each still survives after a check changed).`]),
    'Only the conformance suite may kill a mutant (each check one vitest test, in-process); see docs/conformance.md, "Mutation testing with StrykerJS".',
    '',
    ...headline,
    '## The suite\'s bite over the files its last run mutated',
    '',
    `**Score: ${pct(t.score)}** of ${t.killed + t.timeout + t.survived + t.noCoverage} mutants detected (${t.killed} killed, ${t.timeout} timed out; ${t.survived} survived, ${t.noCoverage} not reached by any check); ${pct(t.scoreCovered)} of those a check reached. Out of the score: ${t.equivalent} recorded equivalent (conformance/mutation/equivalent-mutants.yaml), ${t.ignored} ignored with a reason, ${t.errors} not valid code.`,
    '',
    `**Exact limits, defaults and durations: ${pct(s.limits.totals.score)}** of ${s.limits.totals.killed + s.limits.totals.timeout + s.limits.totals.survived + s.limits.totals.noCoverage} mutants of the lines that implement a §8 limit, a §4 default or a duration (conformance/mutation/limit-lines.ts) detected.`,
    '',
    '## Exact limits, defaults and durations',
    '',
    'The lines of the mutated code that implement a row of §8, a default of a §4 table or a duration. The limits the simulator takes from spec/openapi.yaml (page sizes, string lengths, counts) are not mutated; the simulator\'s faults prove their checks (docs/conformance.md).',
    '',
    '| row | score | killed | timeout | survived | no coverage | equivalent | ignored |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...s.limits.rows.map((r) => `| ${r.what} | ${pct(r.score)} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.equivalent} | ${r.ignored} |`),
    ...(s.limits.rows.some((r) => r.lived.length > 0) ? ['', 'Lived on those lines:', '', ...mutantLines(s.limits.rows.flatMap((r) => r.lived))] : []),
    ...(s.limits.staleAnchors.length === 0 ? [] : ['', `**${s.limits.staleAnchors.length} anchor(s) of limit-lines.ts match no line any more** (the code changed; look again):`, '', ...s.limits.staleAnchors.map((a) => `- ${a.file}: \`${a.anchor}\``)]),
    '',
    '## Per source file',
    '',
    '| file | score | killed | timeout | survived | no coverage | equivalent | ignored |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...s.files.map((f) => `| ${f.file} | ${pct(f.score)} | ${f.killed} | ${f.timeout} | ${f.survived} | ${f.noCoverage} | ${f.equivalent} | ${f.ignored} |`),
    '',
    '## Per check',
    '',
    'Killed: the mutants this check was the first to fail (Stryker stops a mutant at its first failing check). Reached: the mutants its run executed.',
    '',
    '| check | killed | reached | clauses |',
    '|---|---:|---:|---|',
    ...[...s.checks].sort((a, b) => b.killed - a.killed || a.id.localeCompare(b.id)).map((c) => `| ${c.id} | ${c.killed} | ${c.covered} | ${c.clauses.join(', ')} |`),
    '',
    '## Per clause a killing failure named',
    '',
    '| clause | mutants killed | by checks |',
    '|---|---:|---|',
    ...s.clauses.map((c) => `| ${c.id} | ${c.killed} | ${c.checks.join(', ')} |`),
    '',
    `## Survivors (${s.survivors.length})`,
    '',
    'Each is a missing assertion or an equivalent mutant; triage records which.',
    '',
    ...mutantLines(s.survivors),
    '',
    `## Not reached by any check (${s.noCoverage.length})`,
    '',
    ...mutantLines(s.noCoverage),
    '',
    `## Timed out (${s.timedOut.length})`,
    '',
    'Counted detected: the mutant made a check hang or wait past its time. On a loaded machine a slow survivor can land here too; a rerun with `--concurrency 1` on a quiet machine tells them apart.',
    '',
    ...mutantLines(s.timedOut),
    '',
    `## Recorded equivalent (${s.equivalent.length})`,
    '',
    ...(s.equivalent.length === 0 ? ['None.'] : s.equivalent.map((m) => `- ${m.file}:${m.line}:${m.column} ${m.mutator} → \`${m.replacement.split('\n')[0]!.replace(/`/g, "'").slice(0, 80)}\`: ${m.reason}`)),
    ...(s.stale.length === 0 ? [] : ['', `**${s.stale.length} recorded entr(y/ies) match no mutant any more** (the code changed; look again and update conformance/mutation/equivalent-mutants.yaml):`, '', ...s.stale.map((e) => `- ${e.file}:${e.line}:${e.column} ${e.mutator} \`${e.original.slice(0, 60)}\` → \`${e.replacement.slice(0, 60)}\``)]),
    ...(s.entryErrors.length === 0 ? [] : ['', `**${s.entryErrors.length} error(s) in conformance/mutation/equivalent-mutants.yaml:**`, '', ...s.entryErrors.map((e) => `- ${e}`)]),
    '',
  ];
  return out.join('\n');
}

function mutantLines(mutants: MutantLine[]): string[] {
  if (mutants.length === 0) return ['None.'];
  return mutants.map((m) => {
    const reached = m.coveredBy.length === 0 ? (m.static ? 'static (module load)' : 'no check') : m.coveredBy.length <= 3 ? m.coveredBy.join(', ') : `${m.coveredBy.length} checks`;
    return `- ${m.file}:${m.line}:${m.column} ${m.mutator} → \`${m.replacement.split('\n')[0]!.replace(/`/g, "'").slice(0, 80)}\` (reached by ${reached})${m.reason ? `: recorded not reached: ${m.reason}` : ''}`;
  });
}

/**
 * Reads conformance/mutation/equivalent-mutants.yaml's list; an entry without a field, without its place (line and
 * column), of another category, or with a reason of more than one line is refused.
 */
export function parseEquivalents(list: unknown, where: string): Equivalent[] {
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${where}: a list of equivalent mutants`);
  return list.map((e: Record<string, unknown>, i) => {
    for (const k of ['file', 'mutator', 'original', 'replacement', 'reason'] as const) {
      if (typeof e?.[k] !== 'string' || (k !== 'replacement' && (e[k] as string).trim() === '')) throw new Error(`${where}: entry ${i + 1} needs ${k} (a string)`);
    }
    for (const k of ['line', 'column'] as const) {
      if (!Number.isInteger(e[k]) || (e[k] as number) < 1) throw new Error(`${where}: entry ${i + 1} needs ${k} (a whole number ≥ 1): an entry names its mutant by place, never by text alone`);
    }
    if (e.category !== 'equivalent' && e.category !== 'not-reached') throw new Error(`${where}: entry ${i + 1}: category is equivalent or not-reached, got ${JSON.stringify(e.category)}`);
    if ((e.reason as string).includes('\n')) throw new Error(`${where}: entry ${i + 1}: the reason is one line`);
    return { file: e.file as string, line: e.line as number, column: e.column as number, mutator: e.mutator as string, original: e.original as string, replacement: e.replacement as string, category: e.category, reason: e.reason as string };
  });
}
