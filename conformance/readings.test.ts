/**
 * The suite is tuned to the document, not to the simulator's choices: where
 * the document is in tension with itself and the simulator follows one
 * reading, the whole catalogue must also pass against a simulator that
 * follows the other (simulator/domain/readings.ts, clause notes).
 */
import { describe, expect, it } from 'vitest';
import { READINGS } from '../simulator/domain/readings.ts';
import { runConformance } from './runner.ts';

describe('the catalogue under the other reading of each tension', () => {
  it.each(Object.keys(READINGS))('passes against a simulator started with --reading %s', async (reading) => {
    const report = await runConformance({ target: 'in-process', readings: [reading], runs: 5, seed: 4711 });
    const bad = report.results.filter((r) => r.outcome !== 'passed').map((r) => `${r.id}: ${r.outcome} ${r.failure?.received ?? r.reason ?? r.error ?? ''}`);
    expect(bad).toEqual([]);
  });
});
