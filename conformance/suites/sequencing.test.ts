/**
 * §4.6 R3: GET /events echoes after_sequence exactly, at every cursor the
 * contract allows. The check passes on the simulator and fails against one
 * built from a contract mutant of after_sequence (issue 40 item 2).
 */
import { describe, expect, it } from 'vitest';
import { contractDocument, contractFrom } from '../../spec/contract.ts';
import { createSimulator } from '../../simulator/simulator.ts';
import { applyMutant, contractMutants } from '../mutation/contract-mutants.ts';
import { checkOnSimulator } from '../check-on-simulator.ts';

/** A simulator enforcing spec/openapi.yaml with the one contract mutant `id` applied (conformance/mutation/contract-mutants.ts). */
function simulatorOf(id?: string) {
  if (id === undefined) return createSimulator();
  const document = contractDocument();
  const mutant = contractMutants(document).find((m) => m.id === id);
  if (!mutant) throw new Error(`no contract mutant ${id}`);
  return createSimulator({ contract: contractFrom(applyMutant(document, mutant)) });
}

describe('sequencing.after-sequence-echoed-exactly', () => {
  it('passes on the simulator as the contract is written', async () => {
    const result = await checkOnSimulator('sequencing.after-sequence-echoed-exactly', simulatorOf());
    expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
  });

  it.each([
    ['#/paths/~1events/get/parameters/0/schema/maximum 9007199254740991 → 9007199254740990', '4.6.R3'],
    ['#/paths/~1events/get/parameters/0/schema/maximum 9007199254740991 dropped', '4.6.R8'],
    ['#/paths/~1events/get/parameters/0/schema/default 0 → 1', '4.6.Q1'],
  ])('fails against a simulator built from the mutant %s (clause %s)', async (mutant, clause) => {
    const result = await checkOnSimulator('sequencing.after-sequence-echoed-exactly', simulatorOf(mutant));
    expect(result.outcome).toBe('failed');
    expect(result.failure?.clause).toBe(clause);
  });
});
