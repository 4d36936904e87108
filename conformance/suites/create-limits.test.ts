/**
 * §4.5, §8: every field of a create at exactly its lower limit is accepted,
 * and a 1-character external_booking_id is read back by it (§4.3). The check
 * passes on the simulator and fails against one built from a contract mutant
 * that moves a lower limit one up (issue 40 item 2).
 */
import { killsContractMutants } from '../mutation/kills-contract-mutants.ts';

killsContractMutants('validation.shortest-values-accepted', [
  ['#/components/schemas/BookingCreateGuest/properties/name/minLength 1 → 2', '4.5.Q15'],
  ['#/components/schemas/BookingCreatePricing/properties/total/minimum 0 → 1', '4.5.Q20'],
  ['#/components/schemas/BookingCreateUnit/properties/inventory_id/minimum 1 → 2', '4.5.Q6'],
  ['#/paths/~1bookings~1external~1{external_booking_id}/get/parameters/0/schema/minLength 1 → 2', '4.3.R1'],
]);
