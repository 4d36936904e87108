/**
 * For tests: one check of the catalogue run as a run runs it, on the
 * in-process target over a simulator the test prepared (its sync worker
 * held back, its answers slowed, a fault switched on), so a test can show a
 * verdict that does not depend on how fast the platform or the machine is.
 */
import { catalogue } from './catalogue.ts';
import { runOne } from './runner.ts';
import { inProcessTarget } from './targets.ts';
import type { Simulator } from '../simulator/simulator.ts';
import type { CheckResult } from './types.ts';

export async function checkOnSimulator(id: string, sim: Simulator, o: { runs?: number; seed?: number } = {}): Promise<CheckResult> {
  const check = catalogue().find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id}`);
  const ran = await runOne(check, { open: () => inProcessTarget(sim) }, { runId: 'slowed', runs: o.runs ?? 3, seed: o.seed ?? 1, live: false, replay: `--check ${id}` });
  return ran.result;
}
