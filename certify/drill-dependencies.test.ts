/**
 * A drill that did not run is said next to the requirements that rested on
 * it (issue 28 item 6): in a not-observed requirement's summary, and in every
 * dependent's notes; never twice, never on a requirement it did not touch.
 */
import { describe, expect, it } from 'vitest';
import { dependentsOf, explainSkippedDrills } from './drill-dependencies.ts';
import { emptyObservations, gradeAll } from './grade.ts';
import { NEEDS_PARTNER_COMMAND } from './crash-restart.ts';

describe('skipped drills are explained where their requirements are read', () => {
  const stuck = 'Not run: the partner did not acknowledge the drill\'s first 1 deliveries within 8 s.';
  const results = gradeAll({ ...emptyObservations(), crashNotRun: stuck, probes: [] });

  it('a not-observed dependent says which drill did not run and why; the others are untouched', () => {
    const out = explainSkippedDrills(results, [
      { id: 'drill.webhook-outage', outcome: 'not_run', did: 'Not run: the run\'s --duration ran out before it.' },
      { id: 'drill.raw-body', outcome: 'pass', did: 'Answers: all 200.' },
    ]);
    const byId = (id: string) => out.find((r) => r.id === id)!;
    expect(byId('recovery.outage-replay').summary).toMatch(/\(drill\.webhook-outage did not run: the run's --duration ran out before it\.\)$/);
    expect(byId('receiver.no-regression').summary).toMatch(/drill\.webhook-outage did not run/);
    expect(byId('receiver.no-regression').evidence.notes[0]).toBe('drill.webhook-outage did not run: the run\'s --duration ran out before it');
    expect(byId('receiver.raw-body-signature')).toEqual(results.find((r) => r.id === 'receiver.raw-body-signature'));
    expect(dependentsOf('drill.webhook-outage')).toEqual(['recovery.outage-replay', 'receiver.no-regression']);
  });

  it('a reason the requirement already gives is not said twice', () => {
    const own = gradeAll({ ...emptyObservations(), crashNotRun: NEEDS_PARTNER_COMMAND });
    const out = explainSkippedDrills(own, [{ id: 'drill.crash-restart', outcome: 'not_run', did: NEEDS_PARTNER_COMMAND }]);
    const crash = out.find((r) => r.id === 'recovery.crash-restart')!;
    expect(crash.summary).toBe(NEEDS_PARTNER_COMMAND);
    expect(crash.evidence.notes[0]).toMatch(/^drill\.crash-restart did not run: certify kills/);
  });

  it('nothing skipped: the results as graded', () => {
    expect(explainSkippedDrills(results, [{ id: 'drill.crash-restart', outcome: 'pass', did: 'Killed …' }])).toBe(results);
  });
});
