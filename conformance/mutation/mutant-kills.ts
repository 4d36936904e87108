/**
 * The mutant half of the bite evidence, read from a StrykerJS JSON report
 * (mutation-testing-report-schema): per clause, the mutants a check naming
 * the clause killed under it. Each check runs as its own vitest test named
 * by its id, and a failed check's message ends with its CheckFailure, whose
 * last parenthesis is the clause (conformance/mutation/catalogue.mutation.ts),
 * so Stryker's `statusReason` for a killed mutant says which clause caught it
 * (`clauseOf`, shared with the mutation summary).
 */
import { catalogue } from '../catalogue.ts';
import { clauseOf } from './summary.ts';

interface StrykerReport {
  files: Record<string, { mutants: { status: string; killedBy?: string[]; statusReason?: string }[] }>;
  testFiles?: Record<string, { tests: { id: string; name: string }[] }>;
}

export function mutantKills(report: StrykerReport): Record<string, number> {
  const claims = new Map(catalogue().map((c) => [c.id, c.clauses]));
  const names = new Map<string, string>();
  for (const file of Object.values(report.testFiles ?? {})) for (const t of file.tests) names.set(t.id, t.name);
  const kills: Record<string, number> = {};
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      if (m.status !== 'Killed') continue;
      const clause = clauseOf(m.statusReason);
      // The killing test is the check (named by its id, perhaps under its suite's describe).
      const check = (m.killedBy ?? []).map((id) => names.get(id) ?? id).map((name) => name.split(' ').find((w) => claims.has(w))).find((c) => c !== undefined);
      if (!clause || !check || !claims.get(check)!.includes(clause)) continue;
      kills[clause] = (kills[clause] ?? 0) + 1;
    }
  }
  return Object.fromEntries(Object.entries(kills).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
}

/** Kills of two runs, per clause the larger count (the same mutant killed in both is not counted twice). */
export function mergeKills(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [clause, n] of Object.entries(b)) out[clause] = Math.max(out[clause] ?? 0, n);
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => x.localeCompare(y, 'en', { numeric: true })));
}
