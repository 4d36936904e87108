/**
 * Every derived violation makes the contract's validator refuse the value
 * and name the violation's path among its field errors (the key a 422
 * VALIDATION_FAILED reports, §7); for request bodies and queries the errors
 * name nothing unrelated, so the violation is single-field.
 * fast-check prints the seed and path of any failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadContract, type FieldErrors } from '../../spec/contract.ts';
import { arbitraryFor } from './from-schema.ts';
import { bodyViolations, queryViolations, validBody, validQuery } from './requests.ts';
import { arbitraryViolation, violationsFor, type Violation } from './violations.ts';

const contract = loadContract();
const RUNS = { numRuns: 100 };
/** A valid path for the operations that have one (the snapshots' {property}, §4.8): checkParameters reads path and query. */
const VALID_PATH = { property: '1' };

/** Each violation is refused, naming its path; `strict`: no error away from that path. */
function expectRefused(violations: Violation[], check: (value: unknown) => FieldErrors | null, base: unknown, strict: boolean): void {
  const before = structuredClone(base);
  for (const v of violations) {
    const errors = check(v.apply(base));
    expect(errors, `${v.description} was accepted`).not.toBeNull();
    expect(Object.keys(errors!), `${v.description}: errors name ${Object.keys(errors!).join(', ')}`).toContain(v.path);
    if (strict) {
      const related = (key: string) => key === v.path || key.startsWith(`${v.path}.`) || v.path.startsWith(`${key}.`);
      expect(Object.keys(errors!).filter((k) => !related(k)), `${v.description}: unrelated errors`).toEqual([]);
    }
  }
  expect(base, 'apply must not touch the base').toEqual(before);
}

describe('bodyViolations: each is refused by checkBody, naming its path and nothing unrelated', () => {
  it.each(['createBooking', 'requestSync'])('%s', (id) => {
    const op = contract.operation(id);
    fc.assert(fc.property(validBody(id), (base) => {
      const violations = bodyViolations(id, base);
      expect(violations.length).toBeGreaterThan(0);
      expectRefused(violations, (value) => contract.checkBody(op, value), base, true);
    }), RUNS);
  });
});

describe('queryViolations: each is wire text refused by checkParameters, naming its path and nothing unrelated', () => {
  it.each(['listBookings', 'listEvents', 'getAvailabilitySnapshot'])('%s', (id) => {
    const op = contract.operation(id);
    fc.assert(fc.property(validQuery(id), (base) => {
      const violations = queryViolations(id, base);
      expect(violations.length).toBeGreaterThan(0);
      for (const v of violations) {
        for (const value of Object.values(v.apply(base) as object)) {
          for (const item of [value].flat()) expect(typeof item, v.description).toBe('string');
        }
      }
      expectRefused(violations, (query) => contract.checkParameters(op, { path: VALID_PATH, query: query as Record<string, unknown> }), base, true);
    }), RUNS);
  });
});

describe('violationsFor: component schemas (nullable types, enums, oneOf, allOf)', () => {
  it.each(['Booking', 'Integration', 'EventRow', 'AvailabilityPayload'])('%s: each is refused by check(), naming its path', (name) => {
    const schema = contract.schema(name);
    fc.assert(fc.property(arbitraryFor(schema), (base) => {
      const violations = violationsFor(schema, base);
      expect(violations.length).toBeGreaterThan(0);
      expectRefused(violations, (value) => contract.check(name, value), base, false);
    }), RUNS);
  });
});

describe('arbitraryViolation', () => {
  it('draws a base and one violation; the broken value is refused naming the path', () => {
    const schema = contract.operation('createBooking').requestBody!.schema;
    const op = contract.operation('createBooking');
    fc.assert(fc.property(arbitraryViolation(schema, arbitraryFor(schema)), ({ base, violation, invalid }) => {
      expect(contract.checkBody(op, base)).toBeNull();
      expect(Object.keys(contract.checkBody(op, invalid) ?? {})).toContain(violation.path);
    }), RUNS);
  });
});

describe('the violations of the minimal create body (spec example BookingCreateMinimal)', () => {
  const base = {
    external_booking_id: 'PARTNER-0001',
    property: { doorloom_id: 101 },
    units: [{ adults: 2 }],
    check_in: '2026-12-10',
    check_out: '2026-12-12',
    guest: { name: 'Asha Rao', mobile: '9800000000' },
    pricing: { total: 12000 },
  };
  const violations = bodyViolations('createBooking', base);
  const find = (path: string, keyword: string, pick: (v: unknown) => unknown = (v) => v) => {
    const matching = violations.filter((v) => v.path === path && v.keyword === keyword);
    expect(matching, `no ${keyword} violation at ${path}`).not.toEqual([]);
    return matching.map((v) => pick(v.apply(base)));
  };
  const at = (...keys: (string | number)[]) => (v: unknown) => keys.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)?.[k], v);

  it.each([
    ['neither doorloom_id nor external_id: reported at property (anyOf)', { path: 'property', keyword: 'anyOf', pick: at('property'), want: [{}] }],
    ['a missing required field', { path: 'guest.mobile', keyword: 'required', pick: at('guest'), want: [{ name: 'Asha Rao' }] }],
    ['adults over maximum 50', { path: 'units.0.adults', keyword: 'maximum', pick: at('units', 0, 'adults'), want: [51] }],
    ['adults under minimum 1', { path: 'units.0.adults', keyword: 'minimum', pick: at('units', 0, 'adults'), want: [0] }],
    ['adults given a fraction', { path: 'units.0.adults', keyword: 'type', pick: at('units', 0, 'adults'), want: ['wrong type', 1.5] }],
    ['external_booking_id one over maxLength 128', { path: 'external_booking_id', keyword: 'maxLength', pick: (v: unknown) => (at('external_booking_id')(v) as string).length, want: [129] }],
    ['external_booking_id under minLength 1', { path: 'external_booking_id', keyword: 'minLength', pick: at('external_booking_id'), want: [''] }],
    ['check_in not a calendar date, or not YYYY-MM-DD', { path: 'check_in', keyword: 'format', pick: at('check_in'), want: ['2026-02-30', '2026/01/01'] }],
    ['an absent optional email set to a bad one', { path: 'guest.email', keyword: 'format', pick: at('guest', 'email'), want: ['not-an-email', 'name@'] }],
    ['a meal plan outside the enum', { path: 'units.0.meal_plan', keyword: 'enum', pick: at('units', 0, 'meal_plan'), want: ['EP_x'] }],
    ['units over maxItems 20', { path: 'units', keyword: 'maxItems', pick: (v: unknown) => (at('units')(v) as unknown[]).length, want: [21] }],
    ['units under minItems 1', { path: 'units', keyword: 'minItems', pick: at('units'), want: [[]] }],
    ['pricing of the wrong type', { path: 'pricing', keyword: 'type', pick: at('pricing'), want: ['wrong type'] }],
  ] as const)('%s', (_name, { path, keyword, pick, want }) => {
    expect(find(path, keyword, pick)).toEqual(want);
  });

  it('every description starts with its path', () => {
    for (const v of violations) expect(v.description.startsWith(`${v.path}:`), v.description).toBe(true);
  });

  it('apply throws on a value without the field\'s container, naming the path', () => {
    const v = violations.find((x) => x.path === 'units.0.adults' && x.keyword === 'maximum')!;
    expect(() => v.apply({ units: [] })).toThrow(/units\.0\.adults/);
  });
});

describe('queryViolations: examples on the wire', () => {
  it.each([
    ['per_page over 200', { id: 'listBookings', base: {}, path: 'per_page', keyword: 'maximum', want: '201' }],
    ['page given text', { id: 'listBookings', base: {}, path: 'page', keyword: 'type', want: 'not-a-number' }],
    ['page given a fraction', { id: 'listBookings', base: {}, path: 'page', keyword: 'type', want: '1.5' }],
    ['check_in_from not a calendar date', { id: 'listBookings', base: {}, path: 'check_in_from', keyword: 'format', want: '2026-02-30' }],
    ['include_superseded not a boolean', { id: 'listEvents', base: {}, path: 'include_superseded', keyword: 'type', want: 'not-a-boolean' }],
    ['an event type outside the enum', { id: 'listEvents', base: { 'types[]': ['rates.changed'] }, path: 'types[].0', keyword: 'enum', want: ['availability.changed_x'] }],
  ] as const)('%s', (_name, { id, base, path, keyword, want }) => {
    const matching = queryViolations(id, base).filter((v) => v.path === path && v.keyword === keyword);
    const key = path.replace(/\.0$/, '');
    expect(matching.map((v) => (v.apply(base) as Record<string, unknown>)[key])).toContainEqual(want);
  });

  it('a string parameter gets no type violation (all query text is a string)', () => {
    expect(queryViolations('listBookings', {}).filter((v) => v.path === 'updated_since' && v.keyword === 'type')).toEqual([]);
  });

  it('a required window bound dropped from a snapshot query', () => {
    const missing = queryViolations('getAvailabilitySnapshot', { from: '2026-12-10', to: '2026-12-11' }).filter((v) => v.keyword === 'required');
    expect(missing.map((v) => [v.path, v.apply({ from: '2026-12-10', to: '2026-12-11' })])).toEqual([
      ['from', { to: '2026-12-11' }],
      ['to', { from: '2026-12-10' }],
    ]);
  });
});
