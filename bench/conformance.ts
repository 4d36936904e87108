/**
 * Comparison 7: the whole conformance run (every check of the catalogue, at
 * the CLI's default of 25 fast-check runs per property) against the
 * in-process simulator, through runConformance() as `npm run conformance`
 * calls it; a fixed seed so that every round does the same work.
 */
import { runConformance } from '../conformance/runner.ts';
import { median, runRounds, withDeadline } from './measure.ts';
import { plural, target, type Outcome } from './report.ts';

export interface ConformanceBenchOptions {
  runs: number;
  rounds: number;
  /** runConformance's own budget: checks not started by then are skipped (and the run is then not "whole"). */
  budgetSeconds: number;
}

export const CONFORMANCE_TARGET_SECONDS = 60;
const SEED = 20260901;

export async function compareConformance(o: ConformanceBenchOptions): Promise<Outcome> {
  const once = (runs: number) => withDeadline('conformance run', (o.budgetSeconds + 60) * 1000,
    runConformance({ target: 'in-process', runs, seed: SEED, timeBudgetSeconds: o.budgetSeconds }));
  // Warm-up: one run per property loads every module and suite once.
  await once(1);
  const reports = await runRounds(() => once(o.runs), { warmup: 0, rounds: o.rounds, budgetMs: 3 * CONFORMANCE_TARGET_SECONDS * 1000 });
  const seconds = median(reports.map((r) => r.summary.ms / 1000));
  const s = reports[0]!.summary;
  const notes = [`Round wall times: ${reports.map((r) => `${(r.summary.ms / 1000).toFixed(1)} s`).join(', ')}; outcomes of the first round: ${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped.`];
  const skipped = reports.some((r) => r.results.some((x) => x.outcome === 'skipped' && x.reason?.includes('time budget')));
  if (skipped) notes.push(`Some checks were skipped by the ${o.budgetSeconds} s time budget: that run was not whole.`);
  const slowest = [...reports[0]!.results].sort((a, b) => b.ms - a.ms).slice(0, 3);
  notes.push(`Slowest checks: ${slowest.map((r) => `${r.id} ${(r.ms / 1000).toFixed(1)} s`).join(', ')}.`);
  return {
    comparison: {
      id: 7,
      title: 'The whole conformance run against the in-process simulator',
      status: 'measured',
      method: `runConformance() in this process, ${o.runs} fast-check runs per property${o.runs === 25 ? ' (the CLI default)' : ''}, seed ${SEED}; a warm-up run at 1 run per property, then ${plural(reports.length, 'round')}; medians (report writing and process start not included)`,
      columns: [
        { key: 'seconds', label: 'wall s', digits: 1 },
        { key: 'checks', label: 'checks', digits: 0 },
        { key: 'rate', label: 'checks/s', digits: 2 },
      ],
      rows: [{ label: `catalogue, ${o.runs} runs per property`, values: { seconds, checks: s.total, rate: s.total / seconds } }],
      ratios: [{ label: `wall time / ${CONFORMANCE_TARGET_SECONDS} s target`, value: seconds / CONFORMANCE_TARGET_SECONDS }],
      notes,
    },
    targets: [
      target({ id: 'conformance-wall', comparison: 7, description: 'whole conformance run, wall time', kind: 'below', bound: CONFORMANCE_TARGET_SECONDS, unit: 's', measured: skipped ? null : seconds }, (verdict) =>
        verdict === 'UNAVAILABLE'
          ? `the run hit its ${o.budgetSeconds} s budget and skipped checks, so no whole run was timed`
          : `the slowest checks (${slowest.map((r) => r.id).join(', ')}) dominate; fewer fast-check runs for the stateful suites, or running checks in parallel worlds, would bring it under ${CONFORMANCE_TARGET_SECONDS} s`),
    ],
  };
}
