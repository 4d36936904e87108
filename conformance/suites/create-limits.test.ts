/**
 * §4.5, §8: every field of a create at exactly its lower limit is accepted,
 * and a 1-character external_booking_id is read back by it (§4.3). The check
 * passes on the simulator and fails against one built from a contract mutant
 * that moves a lower limit one up (issue 40 item 2).
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

describe('validation.shortest-values-accepted', () => {
  it('passes on the simulator as the contract is written', async () => {
    const result = await checkOnSimulator('validation.shortest-values-accepted', simulatorOf());
    expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
  });

  it.each([
    ['#/components/schemas/BookingCreateGuest/properties/name/minLength 1 → 2', '4.5.Q15'],
    ['#/components/schemas/BookingCreatePricing/properties/total/minimum 0 → 1', '4.5.Q20'],
    ['#/components/schemas/BookingCreateUnit/properties/inventory_id/minimum 1 → 2', '4.5.Q6'],
    ['#/paths/~1bookings~1external~1{external_booking_id}/get/parameters/0/schema/minLength 1 → 2', '4.3.R1'],
  ])('fails against a simulator built from the mutant %s (clause %s)', async (mutant, clause) => {
    const result = await checkOnSimulator('validation.shortest-values-accepted', simulatorOf(mutant));
    expect(result.outcome).toBe('failed');
    expect(result.failure?.clause).toBe(clause);
  });
});
