/**
 * Which requirements rest on which drill, and what a requirement says when
 * its drill did not run (issue 28 item 6): the reason a drill was not run
 * (no --partner-command, the run's --duration, a partner that did not
 * acknowledge deliveries) is said next to every requirement that depended on
 * it, in its summary, not only in the drill's own row. Pure.
 */
import type { DrillRecord, RequirementResult } from './types.ts';

/** The requirement each drill exercises (its record names it). */
export const DRILL_REQUIREMENT: Record<string, string> = {
  'drill.snapshot-watermark': 'usage.snapshot-watermark',
  'drill.raw-body': 'receiver.raw-body-signature',
  'drill.lost-answer': 'usage.retry-same-key',
  'drill.rate-limit': 'usage.retry-after',
  'drill.unavailable': 'usage.unavailable-final',
  'drill.webhook-outage': 'recovery.outage-replay',
  'drill.crash-restart': 'recovery.crash-restart',
  'drill.key-rotation': 'usage.rotated-key',
  'drill.secret-rotation': 'receiver.rotation',
};

/** Requirements that also read what a drill produced (the outage drill's superseded value is what no-regression checks). */
const ALSO_DEPENDS: Record<string, string[]> = {
  'drill.webhook-outage': ['receiver.no-regression'],
};

/** Every requirement that depends on `drill`. */
export function dependentsOf(drill: string): string[] {
  return [...(DRILL_REQUIREMENT[drill] ? [DRILL_REQUIREMENT[drill]!] : []), ...(ALSO_DEPENDS[drill] ?? [])];
}

/**
 * The results with each drill that did not run explained where its
 * requirements are read: a not-observed dependent's summary says which drill
 * did not run and why (unless it says so already); every requirement keeps
 * the reason among its notes.
 */
export function explainSkippedDrills(results: RequirementResult[], drills: Array<Pick<DrillRecord, 'id' | 'outcome' | 'did'>>): RequirementResult[] {
  const skipped = drills.filter((d) => d.outcome === 'not_run');
  if (skipped.length === 0) return results;
  return results.map((r) => {
    const mine = skipped.filter((d) => dependentsOf(d.id).includes(r.id));
    if (mine.length === 0) return r;
    const why = mine.map((d) => `${d.id} did not run: ${d.did.replace(/^Not run: /, '').replace(/\.$/, '')}`);
    const said = (w: string) => r.summary.includes(w.slice(w.indexOf(': ') + 2, w.indexOf(': ') + 42));
    const missing = why.filter((w) => !said(w));
    const summary = r.outcome === 'not_observed' && missing.length > 0 ? `${r.summary.replace(/\.?$/, '.')} (${missing.join('; ')}.)` : r.summary;
    return { ...r, summary, evidence: { ...r.evidence, notes: [...why, ...r.evidence.notes] } };
  });
}
