/**
 * §4.7: "Events arrive later on the webhook". The sync checks wait for the
 * event that ends a sync, never for a quiet moment (issue 38): where the
 * control plane moves the clock, a step answers once everything due has
 * happened, the sync's events included (spec/control-openapi.yaml
 * clock.advance). Here the simulator's sync worker never runs by itself, as
 * on a platform slower than any budget: only the step runs the sync. Before,
 * the checks stopped after 10 s (or a quiet second) and judged what had come.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/simulator.ts';
import type { FaultName } from '../../simulator/domain/faults.ts';
import { checkOnSimulator } from '../check-on-simulator.ts';

/** A simulator whose queued syncs run only when the control plane steps the clock. */
function syncRunOnlyByTheClock(faults: FaultName[] = []) {
  const sim = createSimulator({ faults });
  sim.sync.kick = () => undefined;
  return sim;
}

const SYNC_EVENT_CHECKS = ['sync.pushed-to-webhook', 'sync.monthly-chunks', 'sync.empty-body-means-everything', 'sync.interval-24-hours'];

describe('a sync\'s events are judged once the platform has run the sync', () => {
  it.each(SYNC_EVENT_CHECKS)('%s passes where the sync runs only when the clock is stepped (a sync later than any old budget)', async (id) => {
    const result = await checkOnSimulator(id, syncRunOnlyByTheClock());
    expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
  });

  it.each([['sync.monthly-chunks', '4.7.R4'], ['sync.interval-24-hours', '4.7.R4']])('%s still fails a sync that chunks by half months, however late its events come', async (id, clause) => {
    const result = await checkOnSimulator(id, syncRunOnlyByTheClock(['sync-chunks-half-months']));
    expect(result.outcome).toBe('failed');
    expect(result.failure).toMatchObject({ kind: 'TwoEventsInOneMonth', clause });
  });
});
