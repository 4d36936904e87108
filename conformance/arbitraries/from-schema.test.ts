/**
 * Generated values are valid against the schema they are derived from, as
 * the contract's own validators (ajv) judge them; overrides replace fields.
 * fast-check prints the seed and path of any failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../spec/contract.ts';
import { arbitraryFor, dateBetween, omit, OMIT } from './from-schema.ts';
import { validBody, validQuery } from './requests.ts';
import { UnsupportedSchema } from './schema-subset.ts';

const contract = loadContract();
const RUNS = { numRuns: 100 };
/** A valid path for the operations that have one (the snapshots' {property}, §4.8): checkParameters reads path and query. */
const VALID_PATH = { property: '1' };

describe('validBody: every generated body passes checkBody', () => {
  it.each(['createBooking', 'requestSync'])('%s', (id) => {
    const op = contract.operation(id);
    fc.assert(fc.property(validBody(id), (body) => {
      expect(contract.checkBody(op, body)).toBeNull();
    }), RUNS);
  });
});

describe('validQuery: every generated query is wire text and passes checkParameters', () => {
  it.each(['listBookings', 'listEvents', 'getAvailabilitySnapshot', 'listProperties'])('%s', (id) => {
    const op = contract.operation(id);
    fc.assert(fc.property(validQuery(id), (query) => {
      for (const value of Object.values(query)) {
        if (Array.isArray(value)) value.forEach((v) => expect(typeof v).toBe('string'));
        else expect(typeof value).toBe('string');
      }
      expect(contract.checkParameters(op, { path: VALID_PATH, query })).toBeNull();
    }), RUNS);
  });

  it('writes the repeated types[] of listEvents as an array of event types, never an empty one', () => {
    const types = fc.sample(validQuery('listEvents'), { numRuns: 300, seed: 7 }).flatMap((q) => (q['types[]'] === undefined ? [] : [q['types[]']]));
    expect(types.length).toBeGreaterThan(0);
    for (const t of types) {
      expect(Array.isArray(t)).toBe(true);
      expect(t.length).toBeGreaterThan(0);
    }
  });
});

describe('arbitraryFor: component schemas (nullable types, enums, oneOf, allOf)', () => {
  it.each(['Booking', 'Integration', 'EventRow', 'AvailabilityPayload'])('%s: every value passes check()', (name) => {
    const arb = arbitraryFor(contract.schema(name));
    fc.assert(fc.property(arb, (value) => {
      expect(contract.check(name, value)).toBeNull();
    }), RUNS);
  });

  const all = Object.keys((contract.document.components as { schemas: Record<string, unknown> }).schemas);
  it.each(all)('%s: every value passes check() (every component schema is in the subset)', (name) => {
    fc.assert(fc.property(arbitraryFor(contract.schema(name)), (value) => {
      expect(contract.check(name, value)).toBeNull();
    }), { numRuns: 25 });
  });
});

describe('arbitraryFor: the shapes the keywords imply', () => {
  const createBooking = contract.operation('createBooking').requestBody!.schema;

  it('property (anyOf of required): doorloom_id only, external_id only and both all occur, never neither', () => {
    const seen = new Set<string>();
    for (const body of fc.sample(validBody('createBooking'), { numRuns: 300, seed: 1 }) as { property: Record<string, unknown> }[]) {
      const keys = Object.keys(body.property).filter((k) => k === 'doorloom_id' || k === 'external_id').sort().join('+');
      expect(keys).not.toBe('');
      seen.add(keys);
    }
    expect([...seen].sort()).toEqual(['doorloom_id', 'doorloom_id+external_id', 'external_id']);
  });

  it('optional properties are sometimes present and sometimes absent; required ones always present', () => {
    const bodies = fc.sample(arbitraryFor(createBooking), { numRuns: 200, seed: 2 }) as Record<string, unknown>[];
    for (const key of ['notes', 'payment', 'source', 'status']) {
      expect(bodies.some((b) => key in b), `${key} present`).toBe(true);
      expect(bodies.some((b) => !(key in b)), `${key} absent`).toBe(true);
    }
    for (const b of bodies) for (const key of createBooking.required as string[]) expect(b).toHaveProperty(key);
  });

  it('adds no undeclared keys and keeps sizes modest (strings ≤ 12 unless minLength, arrays ≤ 3)', () => {
    const declared = Object.keys(createBooking.properties as object);
    for (const b of fc.sample(arbitraryFor(createBooking), { numRuns: 200, seed: 3 }) as Record<string, unknown>[]) {
      for (const key of Object.keys(b)) expect(declared).toContain(key);
      expect((b.units as unknown[]).length).toBeLessThanOrEqual(3);
      expect((b.external_booking_id as string).length).toBeLessThanOrEqual(12);
      if (typeof b.notes === 'string') expect(b.notes.length).toBeLessThanOrEqual(12);
    }
  });

  it('dates are real calendar dates and take the date option', () => {
    const dates = fc.sample(arbitraryFor({ type: 'string', format: 'date' }, { date: dateBetween('2028-02-27', '2028-03-01') }), { numRuns: 100, seed: 4 });
    expect(new Set(dates)).toEqual(new Set(['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01']));
  });

  it('a pattern is honoured (the ULID event id)', () => {
    for (const id of fc.sample(arbitraryFor({ type: 'string', pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' }), { numRuns: 50, seed: 5 })) {
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    }
  });

  it('a keyword outside the subset is refused by name, not ignored', () => {
    expect(() => arbitraryFor({ type: 'array', uniqueItems: true })).toThrow(UnsupportedSchema);
    expect(() => arbitraryFor({ type: 'object', properties: { a: { not: { type: 'string' } } } })).toThrow(/keyword "not" at "a"/);
    expect(() => arbitraryFor({ type: 'string', format: 'uri' })).toThrow(/format "uri"/);
  });
});

describe('overrides', () => {
  it('replace the arbitrary at a field path: property, check_in and every units[].inventory_id', () => {
    const arb = validBody('createBooking', {
      property: fc.constant({ doorloom_id: 101 }),
      check_in: dateBetween('2026-12-10', '2026-12-12'),
      'units[].inventory_id': omit(),
      'units[].meal_plan': fc.constant('CP'),
    });
    const op = contract.operation('createBooking');
    fc.assert(fc.property(arb, (value) => {
      const body = value as { property: unknown; check_in: string; units: Record<string, unknown>[] };
      expect(body.property).toEqual({ doorloom_id: 101 });
      expect(['2026-12-10', '2026-12-11', '2026-12-12']).toContain(body.check_in);
      for (const unit of body.units) {
        expect(unit).not.toHaveProperty('inventory_id');
        expect(unit.meal_plan).toBe('CP');
      }
      expect(contract.checkBody(op, body)).toBeNull();
    }), RUNS);
  });

  it('of a query parameter are written as text', () => {
    const arb = validQuery('listEvents', { property_id: fc.constant(101), include_superseded: fc.constant(true), 'types[]': fc.constant(['rates.changed']) });
    for (const q of fc.sample(arb, { numRuns: 20, seed: 6 })) {
      expect(q).toMatchObject({ property_id: '101', include_superseded: 'true', 'types[]': ['rates.changed'] });
    }
  });

  it('an override yielding OMIT leaves even a required field out (the caller asked for it)', () => {
    for (const b of fc.sample(validBody('createBooking', { notes: fc.constant(OMIT), guest: omit() }), { numRuns: 20, seed: 8 }) as object[]) {
      expect(b).not.toHaveProperty('guest');
      expect(b).not.toHaveProperty('notes');
    }
  });

  it('a path that names no field is an error naming the option', () => {
    expect(() => validBody('createBooking', { 'unit[].adults': fc.constant(1) })).toThrow(/option overrides names "unit\[\]\.adults"/);
  });

  it('bad dateBetween bounds are errors naming the bound', () => {
    expect(() => dateBetween('2026-02-30', '2026-03-01')).toThrow(/from should be a real calendar date/);
    expect(() => dateBetween('2026-03-02', '2026-03-01')).toThrow(/to \(2026-03-01\) should be on or after from/);
  });
});
