/**
 * The test of a check written to see contract mutants (issue 40 item 2): it
 * passes on the simulator as spec/openapi.yaml is written, and fails, naming
 * the clause, against a simulator built from each mutant it must kill
 * (conformance/mutation/contract-mutants.ts). For the suites' own tests.
 */
import { describe, expect, it } from 'vitest';
import { contractDocument, contractFrom } from '../../spec/contract.ts';
import { createSimulator } from '../../simulator/simulator.ts';
import { checkOnSimulator } from '../check-on-simulator.ts';
import { applyMutant, contractMutants } from './contract-mutants.ts';

/** A simulator enforcing spec/openapi.yaml, with the one contract mutant `id` applied when given. */
function simulatorOf(id?: string) {
  if (id === undefined) return createSimulator();
  const document = contractDocument();
  const mutant = contractMutants(document).find((m) => m.id === id);
  if (!mutant) throw new Error(`no contract mutant ${id}`);
  return createSimulator({ contract: contractFrom(applyMutant(document, mutant)) });
}

/** `mutants`: each as `[mutant id, the clause the check's failure names]`. */
export function killsContractMutants(check: string, mutants: Array<[string, string]>): void {
  describe(check, () => {
    it('passes on the simulator as the contract is written', async () => {
      const result = await checkOnSimulator(check, simulatorOf());
      expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
    });

    it.each(mutants)('fails against a simulator built from the mutant %s (clause %s)', async (mutant, clause) => {
      const result = await checkOnSimulator(check, simulatorOf(mutant));
      expect(result.outcome).toBe('failed');
      expect(result.failure?.clause).toBe(clause);
    });
  });
}
