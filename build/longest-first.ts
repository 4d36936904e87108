/**
 * The order `npm test` starts its files in: the longest first, so that on
 * two cores the run does not end with one long file alone while the other
 * core idles (longest-processing-time-first scheduling). vitest orders by
 * the durations it cached in node_modules/.vite; a fresh clone has none, and
 * then it starts the largest files first, which left the slowest end-to-end
 * files (small files that wait on real timers and child processes) to the
 * end of the run. The files below start first whatever the cache says; the
 * others follow in vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { relative } from 'node:path';

/**
 * The slowest files, slowest first: wall time of each in a whole run (four
 * workers on two cores, 2026-11-27), most of it waiting on real time (certify's
 * drills and the reference partner's minute timers, the docs pages and CI
 * recipes as processes) or whole catalogue runs.
 */
export const LONGEST_FIRST = [
  'certify/end-to-end.test.ts',
  'conformance/live-mutants.test.ts',
  'docs/examples.test.ts',
  'docs/ci-recipes.test.ts',
  'build/installed-package.test.ts',
  'conformance/live-control.test.ts',
  'conformance/runner.test.ts',
  'conformance/readings.test.ts',
  'conformance/live.test.ts',
  'certify/partners.test.ts',
  'watch/conformance-through-watch.test.ts',
  'conformance/live-faults.test.ts',
  'watch/reference-partner.test.ts',
  'simulator/store/crash.test.ts',
  'cli/partner-api.test.ts',
  'conformance/suites/supersession.test.ts',
  'conformance/cli.test.ts',
  'simulator/store/data-dir-cli.test.ts',
  'conformance/preflight.test.ts',
] as const;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = (LONGEST_FIRST as readonly string[]).indexOf(relative(spec.project.config.root, spec.moduleId).split('\\').join('/'));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const rest = await super.sort(files);
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return rest.map((spec, i) => ({ spec, i, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map((x) => x.spec);
  }
}
