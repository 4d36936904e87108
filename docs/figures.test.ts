/**
 * Every figure the pages state (README.md, ARCHITECTURE.md, docs/*.md) is
 * the code's, or is checked where it is measured:
 *
 * - Counts of checks, clauses and faults are compared with the catalogue
 *   (conformance/catalogue.ts), the clause list (spec/clauses.yaml, with the
 *   bite evidence of conformance/bite.ts) and the fault list
 *   (simulator/domain/faults.ts). A count a run measured (how many checks a
 *   given run found applicable, a sample's passed and not applicable) must
 *   add up and be out of the catalogue's total.
 * - A duration ("about 10 s", "about 2.5 minutes") is either on a command
 *   line docs/examples.test.ts runs in full, which holds it to the CPU time
 *   the command used (on two cores a command cannot take less than half its
 *   CPU time), or one of the MEASURED figures below, each with where it was
 *   measured and why no docs test runs it.
 *
 * A count or duration no rule claims fails the test: a new figure needs a
 * rule here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../conformance/catalogue.ts';
import { coverage } from '../conformance/runner.ts';
import { FAULT_NAMES } from '../simulator/faults.ts';
import { codeBlocks } from './doc-page.ts';
import { planPage } from './example-steps.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = ['README.md', 'ARCHITECTURE.md', ...readdirSync(`${ROOT}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

const CHECKS = catalogue();
const CLAUSES = coverage(CHECKS, []);
/** The code's figures, by the words the pages use for them. */
const CODE = {
  checks: CHECKS.length,
  clauses: CLAUSES.length,
  testable: CLAUSES.filter((c) => c.status !== 'untestable').length,
  untestable: CLAUSES.filter((c) => c.status === 'untestable').length,
  withChecks: CLAUSES.filter((c) => c.bite !== undefined).length,
  shownToBite: CLAUSES.filter((c) => c.bite === 'shown').length,
  cited: CLAUSES.filter((c) => c.bite === 'cited').length,
  faults: FAULT_NAMES.length,
};

/**
 * Durations measured outside `npm test`, each with where and why no docs
 * test holds it (the command is npm test itself, or takes minutes and runs
 * with --help in the examples). `says` is the figure as the page words it.
 */
const MEASURED: { page: string; says: string; how: string }[] = [
  { page: 'docs/benchmarks.md', says: 'about 12 minutes', how: 'npm test on a clean clone after npm ci, 2-core development VM, nothing else running, 2026-12-02: 12 min 7 s on 18.0 CPU-minutes (cd8e5cf); the page says so' },
  { page: 'docs/benchmarks.md', says: 'about 15 minutes', how: 'npm run bench, whole; the examples run it with --help' },
  { page: 'docs/benchmarks.md', says: 'about 4 minutes', how: 'npm run bench -- --quick; --help in the examples' },
  { page: 'docs/benchmarks.md', says: 'about 10 more minutes', how: 'the soak of npm run bench; --help in the examples' },
  { page: 'docs/certification.md', says: 'about 100 s', how: 'certify/end-to-end.test.ts: the outage replay shows once the reference partner\'s minute GET /me has come' },
  { page: 'docs/certification.md', says: 'about 120 s', how: 'certify/end-to-end.test.ts runs the reconciling partner with the default duration; --help in the examples' },
  { page: 'docs/certification.md', says: 'about 2.5 minutes', how: '`npx vitest run certify` alone on the development VM' },
  { page: 'docs/conformance.md', says: 'about 75 s', how: 'the whole catalogue live against the simulator, conformance/live.test.ts; --help in the examples' },
  { page: 'docs/conformance.md', says: 'about 10 seconds', how: 'the initial run of StrykerJS (npm run mutation), which npm test does not run' },
  { page: 'docs/conformance.md', says: 'about 120 minutes', how: 'npm run mutation, whole, two processes on the idle 2-core VM, 2026-12-04: 119.3 minutes (commit 5a07361\'s conformance/mutation/last-summary.md says it); the examples run it with --help' },
  { page: 'docs/watch.md', says: 'about 60 s', how: '`time taskset -c 0 node --import tsx bench/watch-faults.ts` on 2026-12-03 (133 faults): 34 s wall on one core of a busy 2-core machine, 11 s of CPU (16 faults shown, as the page says); npm test does not run the sweep' },
  { page: 'docs/watch.md', says: 'about 20 minutes', how: 'the same with --workload reference-partner (116 faults × 3 scenarios, beside a mutation run); npm test does not run it' },
];

function text(page: string): string {
  return readFileSync(`${ROOT}${page}`, 'utf8');
}

/** The page as prose: lines joined, so a figure broken over two lines is read whole. */
function prose(page: string): string {
  return text(page).replace(/\s+/g, ' ');
}

interface Figure {
  page: string;
  says: string;
}

/** Counts: a number with the thing it counts. */
const COUNT = /\b(\d[\d,]*)(?: of(?: the)? (\d[\d,]*))? (?:deliberate |testable )?(checks?|clauses?|faults?|breaches)\b/g;
/** Durations a run is said to take. */
const DURATION = /\babout (\d[\d.]*)(?: more)? (s|seconds|minutes?|min)\b/g;

const num = (s: string) => Number(s.replace(/,/g, ''));

describe('the figures the pages state', () => {
  it('the code\'s figures are what the rules below compare with', () => {
    expect(CODE.checks).toBeGreaterThan(0);
    expect(CODE.testable + CODE.untestable).toBe(CODE.clauses);
    expect(CODE.shownToBite + CODE.cited).toBe(CODE.withChecks);
  });

  it.each(PAGES)('%s: every count of checks, clauses and faults is the code\'s', (page) => {
    const body = prose(page);
    const wrong: string[] = [];
    const claim = (says: string, ok: boolean, want: string) => void (ok || wrong.push(`"${says}": ${want}`));
    for (const m of body.matchAll(COUNT)) {
      const [says, a, b, what] = m as unknown as [string, string, string | undefined, string];
      const before = body.slice(Math.max(0, m.index! - 40), m.index!);
      const after = body.slice(m.index! + says.length, m.index! + says.length + 60);
      if (/^(checks?|clauses?)$/.test(what) && /testable clauses/.test(says)) {
        claim(says, num(b ?? a) === CODE.testable && num(a) <= CODE.testable, `the clause list has ${CODE.testable} testable clauses`);
      } else if (/^checks?$/.test(what)) {
        // "N of M checks": M is the catalogue; "the catalogue holds N checks" too. "N checks applicable" is a run's, out of it.
        if (b !== undefined) claim(says, num(b) === CODE.checks && num(a) <= CODE.checks, `the catalogue holds ${CODE.checks} checks`);
        else if (/holds $/.test(before)) claim(says, num(a) === CODE.checks, `the catalogue holds ${CODE.checks} checks`);
        else claim(says, num(a) <= CODE.checks && /^ (applicable|are applicable)/.test(after), `a run's count of applicable checks, at most ${CODE.checks}`);
      } else if (/^clauses?$/.test(what)) {
        // The console's bite line: "N of the M clauses this run proved", a run's figure out of the testable clauses.
        if (/^ this run proved/.test(after)) claim(says, b !== undefined && num(a) <= num(b) && num(b) <= CODE.testable, `a run's proven clauses, at most the ${CODE.testable} testable`);
        else if (/^ with checks shown to bite/.test(after)) claim(says, num(a) === CODE.shownToBite && num(b ?? '-1') === CODE.withChecks, `${CODE.shownToBite} of ${CODE.withChecks} clauses with checks are shown to bite`);
        else wrong.push(`"${says}": no rule for this count of clauses`);
      } else {
        // faults or breaches: the fault list.
        claim(says, num(a) === CODE.faults && (b === undefined || num(b) === CODE.faults), `the simulator carries ${CODE.faults} deliberate faults`);
      }
    }
    for (const m of body.matchAll(/\((\d+) of the (\d+) cannot be observed/g)) claim(m[0], num(m[1]!) === CODE.untestable && num(m[2]!) === CODE.clauses, `${CODE.untestable} of the ${CODE.clauses} clauses are untestable`);
    for (const m of body.matchAll(/(\d+) cited, not shown to bite/g)) claim(m[0], num(m[1]!) === CODE.cited, `${CODE.cited} clauses are cited, not shown to bite`);
    for (const m of body.matchAll(/mutation score \((\d+)\/(\d+)\)/g)) claim(m[0], num(m[1]!) === CODE.faults && num(m[2]!) === CODE.faults, `${CODE.faults}/${CODE.faults}`);
    // A sample run's counts add up to the checks it ran, and its applicable ones are its passed, failed and errored.
    for (const m of body.matchAll(/(\d+) passed, (\d+) failed, (\d+) errored, (\d+) not applicable, (\d+) skipped[^\n]*?proved: (\d+) of (\d+) checks applicable/g)) {
      const [p, f, e, na, s, applicable, total] = m.slice(1).map(Number) as number[];
      claim(m[0].slice(0, 60), p! + f! + e! + na! + s! === total && p! + f! + e! === applicable, 'the counts of a run add up');
    }
    expect(wrong, page).toEqual([]);
  });

  it.each(PAGES)('%s: every duration is held by the examples or is a measured figure with its provenance', (page) => {
    // Pages the examples test does not run (ARCHITECTURE.md, the CI recipes' docs/ci.md) have no timed commands.
    const plan = ['ARCHITECTURE.md', 'docs/ci.md'].includes(page) ? { steps: [] } : planPage(codeBlocks(text(page)), new Map());
    const lines = text(page).split('\n');
    // Command lines the examples test runs in full (not with --help): it holds their "about N s" to their CPU time.
    const timed = new Set(plan.steps.filter((s) => !s.command.endsWith('--help') && s.shown === s.command).map((s) => lines[s.line - 1]!));
    const body = prose(page);
    const unclaimed: string[] = [];
    for (const m of body.matchAll(DURATION)) {
      const says = m[0];
      if ([...timed].some((line) => line.includes(says))) continue;
      if (MEASURED.some((x) => x.page === page && x.says === says)) continue;
      unclaimed.push(says);
    }
    expect(unclaimed, `${page}: durations that neither a command the examples run nor MEASURED accounts for`).toEqual([]);
    for (const x of MEASURED.filter((y) => y.page === page)) expect(body, `${page} no longer says "${x.says}" (${x.how}): update MEASURED`).toContain(x.says);
  });
});
