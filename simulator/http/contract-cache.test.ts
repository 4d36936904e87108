/**
 * Issue 17, defect 2: the contract caches parameter schemas and compiled
 * validators per operation, never per request. The six read routes that
 * check query parameters used to hand it a fresh `{ ...op, parameters }` per
 * call, so every read compiled and kept a validator (~35 KB, 1.8 ms).
 */
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../spec/contract.ts';
import { makeHarness } from '../testing.ts';

describe('contract cache: one entry per operation, whatever the number of calls', () => {
  it('many calls to every read route that checks parameters add nothing after the first round', async () => {
    const h = makeHarness();
    const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    const reads = [
      '/bookings?per_page=5',
      '/events?after_sequence=0&limit=10',
      `/properties/${property}/availability?from=2026-10-01&to=2026-10-05`,
      `/properties/${property}/rates?from=2026-10-01&to=2026-10-05`,
      `/properties/${property}/restrictions?from=2026-10-01&to=2026-10-05`,
      '/properties?page=1',
    ];
    const round = async () => {
      for (const path of reads) {
        const res = await h.api('get', path);
        expect(res.status, `${path}: ${res.text}`).toBe(200);
      }
    };
    await round();
    const contract = loadContract();
    const warm = contract.cacheSize();
    for (let i = 0; i < 100; i += 1) await round();
    expect(contract.cacheSize()).toEqual(warm);
    // One parameter schema per operation, never one per request.
    expect(warm.parameterSchemas).toBe(contract.operations.length);
  });

  it('a caller that copies the operation per call still hits the one cached entry', () => {
    const contract = loadContract();
    const op = contract.operation('listBookings');
    const copy = () => ({ ...op, parameters: op.parameters.filter((p) => p.in === 'query') });
    expect(contract.checkParameters(copy(), { query: { per_page: '5' } })).toBeNull();
    const warm = contract.cacheSize();
    for (let i = 0; i < 50; i += 1) expect(contract.checkParameters(copy(), { query: { per_page: '201' } })).toEqual({ per_page: ['Must be at most 200.'] });
    expect(contract.cacheSize()).toEqual(warm);
  });
});
