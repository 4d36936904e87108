import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadContract } from './contract.ts';

const specPath = fileURLToPath(new URL('./openapi.yaml', import.meta.url));

describe('spec/openapi.yaml', () => {
  it('validates as OpenAPI 3.1 with swagger-parser', async () => {
    const api = await SwaggerParser.validate(specPath);
    expect((api as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('has generated types that are current (npm run spec:types)', async () => {
    const ast = await openapiTS(new URL('./openapi.yaml', import.meta.url));
    const fresh = astToString(ast);
    const committed = readFileSync(new URL('./generated/openapi.d.ts', import.meta.url), 'utf8');
    // The CLI adds a banner; compare the generated body only.
    expect(committed.endsWith(fresh) || committed.includes(fresh.trim()), 'spec/generated/openapi.d.ts is stale: run npm run spec:types').toBe(true);
  });

  // Each "not shown" point of the API document, and the node that must say what was chosen.
  const gaps: [string, string][] = [
    ['signature header, algorithm and signed string (§6 gaps)', '#/components/parameters/ServiceSignatureHeader'],
    ['retry schedule and delivery time-out (§6 gaps)', '#/x-assumptions/webhook-delivery'],
    ['probe request and ping payload (§6 gaps)', '#/webhooks/ping/post'],
    ['availability units[] element (§2.4)', '#/components/schemas/AvailabilityUnit'],
    ['block_scope full set (§2.4)', '#/components/schemas/AvailabilityDate/properties/block_scope'],
    ['rates payload (§6 gaps)', '#/components/schemas/RatesPayload'],
    ['restrictions payload (§6 gaps)', '#/components/schemas/RestrictionsPayload'],
    ['inventory payload (§6 gaps)', '#/components/schemas/InventoryPayload'],
    ['property record fields (§2.4)', '#/components/schemas/PropertyPayload'],
    ['booking.changed payload (§6 gaps)', '#/components/schemas/BookingChangedEvent/allOf/1'],
    ['booking units[] element (§2.3)', '#/components/schemas/BookingUnit'],
    ['full booking field list (§2.3)', '#/components/schemas/Booking'],
    ['other booking origins (§2.3)', '#/components/schemas/Booking/properties/origin'],
    ['rates snapshot path (§4.8)', '#/paths/~1properties~1{property}~1rates/get'],
    ['restrictions snapshot path (§4.8)', '#/paths/~1properties~1{property}~1restrictions/get'],
    ['property list path and shape (§4.8)', '#/paths/~1properties/get'],
    ['other booking transitions (§3.2)', '#/x-assumptions/booking-transitions'],
    ['other delivery transitions (§3.3)', '#/components/schemas/EventRow/properties/status'],
    ['moves out of disabled (§3.1)', '#/x-assumptions/disabled-exit'],
    ['general rate-limit numbers (§8)', '#/components/headers/X-RateLimit-Limit'],
    ['maximum stay and time zone of yesterday (§8)', '#/components/schemas/BookingCreateRequest'],
    ['platform time zone', '#/info/x-assumption-time-zone'],
    ['version selection (§9)', '#/x-assumptions/version-selection'],
    ['key formats (§5)', '#/components/securitySchemes/bearerAuth'],
  ];
  it.each(gaps)('marks the not-shown %s with an x-assumption', (_gap, pointer) => {
    const pointers = loadContract().assumptions.map((a) => a.pointer);
    expect(pointers).toContain(pointer);
  });
});

describe('loadContract', () => {
  const contract = loadContract();

  it('reports body violations keyed by field path, each an array of messages (§7)', () => {
    const errors = contract.checkBody(contract.operation('createBooking'), {
      external_booking_id: 'x', property: {}, units: [{ adults: 0 }], check_in: '2026-13-01', check_out: '2026-12-02',
      guest: { name: 'A', mobile: '1' }, pricing: { total: 1 },
    });
    expect(errors).toMatchObject({
      'units.0.adults': ['Must be at least 1.'],
      property: ['Give either doorloom_id or external_id.'],
      check_in: [expect.stringContaining('date')],
    });
  });

  it('coerces query strings to the declared types and applies defaults', () => {
    const input = { query: { after_sequence: '5', 'types[]': 'rates.changed' } as Record<string, unknown> };
    expect(contract.checkParameters(contract.operation('listEvents'), input)).toBeNull();
    expect(input.query).toEqual({ after_sequence: 5, limit: 100, include_superseded: false, 'types[]': ['rates.changed'] });
  });

  it('refuses per_page 201 on the list (§4.4)', () => {
    expect(contract.checkParameters(contract.operation('listBookings'), { query: { per_page: '201' } })).toEqual({ per_page: ['Must be at most 200.'] });
  });

  it('flags an undeclared status and a wrong error code in a response', () => {
    const op = contract.operation('getMe');
    expect(contract.checkResponse(op, 500, {}, {})[0]).toContain('not declared');
    const problems = contract.checkResponse(op, 401, { success: false, code: 'NOT_FOUND', message: 'x', errors: {} }, {});
    expect(problems.join()).toContain('NOT_FOUND is not one of UNAUTHENTICATED');
  });
});

describe('cold start', () => {
  it('loads neither ajv nor yaml until a validator is needed', () => {
    loadContract(); // writes the project's cache entry if it is missing
    const script = `
      import { createRequire } from 'node:module';
      import { loadContract } from './spec/contract.ts';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules[\\/](ajv|yaml)[\\/].*\\.js$/.test(f)).length > 0;
      const contract = loadContract();
      const before = loaded();
      contract.checkBody(contract.operation('createBooking'), {});
      console.log(JSON.stringify({ before, after: loaded() }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});
