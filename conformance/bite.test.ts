/**
 * "Shown to bite" (issue 25 item 6): a clause counts only when a check naming
 * it caught a breach under it; a failure naming a clause its check does not
 * claim shows nothing about the claim.
 */
import { describe, expect, it } from 'vitest';
import { biteOf, shownToBite, type BiteEvidence } from './bite.ts';

const evidence: BiteEvidence = {
  faults: { 'per-page-201-accepted': { check: 'pagination.per-page-limits', clause: '8.L1' }, 'setup-status': { check: 'pagination.per-page-limits', clause: '4.5.R8' } },
  mutants: { '4.6.Q2': 3 },
  mutationRun: null,
};

describe('shown to bite', () => {
  it('counts a fault caught under the clause by a check that names it', () => {
    expect(biteOf('8.L1', ['pagination.per-page-limits'], evidence)).toEqual({ faults: ['per-page-201-accepted'], mutants: 0 });
    expect(shownToBite(biteOf('8.L1', ['pagination.per-page-limits'], evidence))).toBe(true);
  });

  it('does not count a failure under a clause the catching check does not name', () => {
    expect(shownToBite(biteOf('4.5.R8', ['booking.success-emits-events'], evidence))).toBe(false);
  });

  it('counts mutants killed under the clause; a clause with neither is cited, not shown to bite', () => {
    expect(shownToBite(biteOf('4.6.Q2', ['sequencing.replay-limits'], evidence))).toBe(true);
    expect(shownToBite(biteOf('6.R6', ['webhooks.ping-consumes-no-sequence'], evidence))).toBe(false);
  });

});
