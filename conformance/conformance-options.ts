/** What a conformance run is asked to do (runConformance's options; the CLI, the library and replay commands read them). */
import type { CheckDefinition } from './check.ts';
import type { TargetConfig } from './targets.ts';
import type { CheckResult } from './types.ts';

export interface ConformanceOptions extends TargetConfig {
  /**
   * `'in-process'` runs against the built-in simulator. There is no default:
   * a run with neither this nor `baseUrl` is refused, so an unset environment
   * variable never quietly tests our own simulator instead of a deployment.
   */
  target?: 'in-process';
  suites?: string[];
  checks?: string[];
  /** fast-check runs per property (default 25). */
  runs?: number;
  seed?: number;
  path?: string;
  normativeOnly?: boolean;
  timeBudgetSeconds?: number;
  onResult?: (result: CheckResult) => void;
  /** The checks to run instead of the built-in catalogue (tests). */
  catalogue?: CheckDefinition[];
  /** Gate: at least this many checks (a number ≥ 1) or this share of the selected checks (0 < n < 1) must have run. */
  requireApplicable?: number;
  /** Gate: any check not applicable fails the run. */
  failOnNotApplicable?: boolean;
  /** The deployment's name, recorded as `target.label` (a merged report's column). */
  label?: string;
  /** The command that replays this run, without --check and --seed (the CLI passes what it was given). */
  replayBase?: string;
}
