import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { assumptionsOf } from './assumptions.ts';
import { loadContract } from './contract.ts';

/** What a JSON answer carries (4.C2). */
const json = { 'content-type': 'application/json; charset=utf-8' };
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
    const pointers = assumptionsOf().map((a) => a.pointer);
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

  it('4.C2: a JSON body is answered as application/json, with or without a charset', () => {
    const op = contract.operation('getMe');
    const denied = { success: false, code: 'UNAUTHENTICATED', message: 'x', errors: {} };
    expect(contract.checkResponse(op, 401, denied, json)).toEqual([]);
    expect(contract.checkResponse(op, 401, denied, { 'content-type': 'application/json' })).toEqual([]);
    expect(contract.checkResponse(op, 401, denied, { 'content-type': 'text/plain; charset=utf-8' }).join()).toContain('Content-Type "text/plain; charset=utf-8"');
    expect(contract.checkResponse(op, 401, denied, { 'content-type': 'application/jsonp' }).join()).toContain('4.C2');
    expect(contract.checkResponse(op, 401, denied, {}).join()).toContain('Content-Type (none)');
  });

  it('flags an undeclared status and a wrong error code in a response', () => {
    const op = contract.operation('getMe');
    expect(contract.checkResponse(op, 500, {}, json)[0]).toContain('not declared');
    const problems = contract.checkResponse(op, 401, { success: false, code: 'NOT_FOUND', message: 'x', errors: {} }, json);
    expect(problems.join()).toContain('NOT_FOUND is not one of UNAUTHENTICATED');
  });

  const limited = { success: false, code: 'RATE_LIMITED', message: 'Too many requests.', errors: {} };
  const rateHeaders = { ...json, 'retry-after': '5', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' };
  it.each(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])('§7: a 429 RATE_LIMITED without %s is flagged (required: true), on every operation', (name) => {
    for (const op of contract.operations) {
      expect(contract.checkResponse(op, 429, limited, rateHeaders), op.id).toEqual([]);
      const without = Object.fromEntries(Object.entries(rateHeaders).filter(([k]) => k !== name.toLowerCase()));
      expect(contract.checkResponse(op, 429, limited, without).join(), op.id).toContain(`required header ${name} is missing`);
    }
  });

  it('§7: POST /sync 429 SYNC_TOO_SOON needs errors.retry_after in seconds, not the RATE_LIMITED headers', () => {
    const op = contract.operation('requestSync');
    const soon = (errors: object) => ({ success: false, code: 'SYNC_TOO_SOON', message: 'Too soon.', errors });
    expect(contract.checkResponse(op, 429, soon({ retry_after: 81234 }), json)).toEqual([]);
    expect(contract.checkResponse(op, 429, soon({}), json).join()).toContain('retry_after');
    expect(contract.checkResponse(op, 429, soon({ retry_after: '81234' }), json).join()).toContain('retry_after');
    expect(contract.checkResponse(op, 429, limited, json).join()).toContain('required header Retry-After is missing');
  });

  it('§7: a 422 keys errors by field path, each an array of messages', () => {
    const refusal = (errors: object) => ({ success: false, code: 'VALIDATION_FAILED', message: 'Invalid.', errors });
    for (const op of contract.operations.filter((o) => o.responses['422'])) {
      expect(contract.checkResponse(op, 422, refusal({ 'units.0.adults': ['Must be at least 1.'] }), json), op.id).toEqual([]);
      expect(contract.checkResponse(op, 422, refusal({ 'units.0.adults': 'Must be at least 1.' }), json), op.id).not.toEqual([]);
      expect(contract.checkResponse(op, 422, refusal({ 'units.0.adults': [] }), json), op.id).not.toEqual([]);
    }
  });

  it('§4.5 rule 7: a 409 UNAVAILABLE carries errors.availability with property, window, total_units and dates', () => {
    const op = contract.operation('createBooking');
    const availability = {
      property: { doorloom_id: 101 }, window: { from: '2026-12-10', to: '2026-12-10' }, total_units: 1,
      dates: [{ date: '2026-12-10', available_units: 0, total_units: 1, is_blocked: false, block_scope: null, units_cap: null }],
    };
    const conflict = (code: string, errors: object) => ({ success: false, code, message: 'No.', errors });
    expect(contract.checkResponse(op, 409, conflict('UNAVAILABLE', { availability }), json)).toEqual([]);
    expect(contract.checkResponse(op, 409, conflict('UNAVAILABLE', {}), json)).not.toEqual([]);
    expect(contract.checkResponse(op, 409, conflict('UNAVAILABLE', { availability: { ...availability, window: { from: '2026-12-10' } } }), json)).not.toEqual([]);
    expect(contract.checkResponse(op, 409, conflict('UNAVAILABLE', { availability: { ...availability, dates: [{ date: '2026-12-10' }] } }), json)).not.toEqual([]);
    expect(contract.checkResponse(op, 409, conflict('IN_PROGRESS', {}), json)).toEqual([]);
  });

  it('§7 "property reference missing": an absent property or one with neither id is PROPERTY_NOT_MAPPED; other failures VALIDATION_FAILED', () => {
    const op = contract.operation('createBooking');
    const body = { external_booking_id: 'x', property: { doorloom_id: 1 }, units: [{ adults: 1 }], check_in: '2026-12-01', check_out: '2026-12-02', guest: { name: 'A', mobile: '1' }, pricing: { total: 1 } };
    expect(contract.bodyRefusal(op, body)).toBeNull();
    const { property: _, ...absent } = body;
    expect(contract.bodyRefusal(op, absent)?.code).toBe('PROPERTY_NOT_MAPPED');
    expect(contract.bodyRefusal(op, { ...body, property: {} })).toMatchObject({ code: 'PROPERTY_NOT_MAPPED', errors: { property: [expect.any(String)] } });
    expect(contract.bodyRefusal(op, { ...body, property: { doorloom_id: 'x' } })?.code).toBe('VALIDATION_FAILED');
    expect(contract.bodyRefusal(op, { ...body, property: 'x' })?.code).toBe('VALIDATION_FAILED');
    expect(contract.bodyRefusal(op, { ...absent, notes: 'n'.repeat(2001) })?.code).toBe('VALIDATION_FAILED');
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
