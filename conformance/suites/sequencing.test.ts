/**
 * §4.6 R3: GET /events echoes after_sequence exactly, at every cursor the
 * contract allows. The check passes on the simulator and fails against one
 * built from a contract mutant of after_sequence (issue 40 item 2).
 */
import { killsContractMutants } from '../mutation/kills-contract-mutants.ts';

killsContractMutants('sequencing.after-sequence-echoed-exactly', [
  ['#/paths/~1events/get/parameters/0/schema/maximum 9007199254740991 → 9007199254740990', '4.6.R3'],
  ['#/paths/~1events/get/parameters/0/schema/maximum 9007199254740991 dropped', '4.6.R8'],
  ['#/paths/~1events/get/parameters/0/schema/default 0 → 1', '4.6.Q1'],
]);
