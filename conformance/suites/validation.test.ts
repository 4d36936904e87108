/**
 * §7 keys a 422's errors "by field path" and shows no syntax: the query
 * violation check takes any spelling of a path within the refused parameter,
 * and nothing that names another parameter. And the checks that see the
 * contract's required fields and lowest property ids (issue 40 item 2): each
 * passes on the simulator and fails against one built from a contract mutant
 * it must kill.
 */
import { describe, expect, it } from 'vitest';
import { killsContractMutants } from '../mutation/kills-contract-mutants.ts';
import { keyWithin, namesParameter } from './validation.ts';

describe('7.C1: a refusal key names the refused query parameter in any spelling of its path', () => {
  it.each([
    ['types[].0', 'types[].0', true],
    ['types[]', 'types[].0', true],
    ['types.0', 'types[].0', true],
    ['types', 'types[].0', true],
    ['types[0]', 'types[].0', true],
    ['types.0', 'types[]', true],
    ['limit', 'limit', true],
    ['limit', 'types[].0', false],
    ['property_id', 'types[].0', false],
    ['types_filter', 'types[].0', false],
    ['per_page', 'page', false],
    ['', 'limit', false],
  ] as const)('key %j for a violation of %s: %s', (key, path, named) => {
    expect(namesParameter(key, path)).toBe(named);
  });
});

describe('7.C1: a refusal key names a body entry in any spelling of a path within it (spec x-assumption: the later of two entries pinning one unit)', () => {
  it.each([
    ['units.1', true],
    ['units[1]', true],
    ['units.1.inventory_id', true],
    ['units[1].external_unit_id', true],
    ['units', false],
    ['units.0', false],
    ['units[0].inventory_id', false],
    ['units.10', false],
    ['unitsx.1', false],
    ['property', false],
    ['', false],
  ] as const)('key %j for units.1: %s', (key, named) => {
    expect(keyWithin(key, 'units.1')).toBe(named);
  });
});

killsContractMutants('validation.required-fields-refused', [
  ['#/components/schemas/BookingCreateRequest/required "units" dropped', '4.5.Q5'],
  ['#/components/schemas/BookingCreateGuest/required "mobile" dropped', '4.5.Q17'],
]);

killsContractMutants('validation.lowest-property-id-accepted', [
  ['#/paths/~1bookings/get/parameters/2/schema/minimum 1 → 2', '4.4.Q3'],
  ['#/paths/~1events/get/parameters/2/schema/minimum 1 dropped', '4.6.R8'],
  ['#/components/schemas/BookingCreatePropertyRef/properties/doorloom_id/minimum 1 → 2', '4.5.Q4'],
]);
