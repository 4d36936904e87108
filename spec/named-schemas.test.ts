/**
 * Issue 29 item 6: the objects a client author refers to by name are named
 * components, not anonymous inline objects (a generator names an inline
 * object after its position, e.g. `Booking_pricing`, or not at all), and the
 * generated TypeScript keeps every name it had.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseYamlCached } from './yaml-cache.ts';

type Json = Record<string, any>;
const schemas = (parseYamlCached(new URL('./openapi.yaml', import.meta.url)) as Json).components.schemas as Record<string, Json>;

describe('named components for what a client refers to', () => {
  it.each([
    ['Booking', 'guests', 'BookingGuests'],
    ['Booking', 'pricing', 'BookingPricing'],
    ['Booking', 'guest', 'BookingGuest'],
    ['Booking', 'payment', 'BookingPayment'],
    ['Booking', 'source', 'BookingSource'],
    ['EventEnvelope', 'integration', 'EventIntegration'],
    ['EventEnvelope', 'property', 'EventProperty'],
    ['BookingCreateRequest', 'property', 'BookingCreatePropertyRef'],
    ['BookingCreateRequest', 'guest', 'BookingCreateGuest'],
    ['BookingCreateRequest', 'pricing', 'BookingCreatePricing'],
    ['BookingCreateRequest', 'payment', 'BookingCreatePayment'],
    ['BookingCreateRequest', 'source', 'BookingCreateSource'],
    ['Integration', 'brand', 'IntegrationBrand'],
    ['Integration', 'webhook', 'IntegrationWebhook'],
    ['Ping', 'integration', 'EventIntegration'],
    ['SnapshotEnvelope', 'property', 'PropertyRefShort'],
  ])('%s.%s is the component %s', (owner, field, name) => {
    expect(schemas[owner]!.properties[field]).toEqual({ $ref: `#/components/schemas/${name}` });
    expect(schemas[name]!.type).toBe('object');
    if (name !== 'PropertyRefShort') expect(schemas[name]!.description, `${name} says what it is`).toEqual(expect.any(String));
  });

  it('SyncResponse.data is the component SyncAccepted', () => {
    expect(schemas.SyncResponse!.allOf[1].properties.data).toEqual({ $ref: '#/components/schemas/SyncAccepted' });
  });

  it.each([
    ['BookingCreateRequest', 'units', 'BookingCreateUnit'],
    ['RatesPayload', 'dates', 'RatesDate'],
    ['RestrictionsPayload', 'dates', 'RestrictionsDate'],
    ['InventoryPayload', 'units', 'InventoryUnit'],
  ])('%s.%s[] is the component %s', (owner, field, name) => {
    expect(schemas[owner]!.properties[field].items).toEqual({ $ref: `#/components/schemas/${name}` });
    expect(schemas[name]!.description, `${name} says what it is`).toEqual(expect.any(String));
  });

  it('the generated types export each of them, beside the names they had', () => {
    const generated = readFileSync(new URL('./generated/openapi.d.ts', import.meta.url), 'utf8');
    for (const name of ['Booking', 'EventEnvelope', 'AnyEvent', 'BookingGuests', 'BookingPricing', 'BookingGuest', 'BookingPayment', 'BookingSource', 'EventIntegration', 'EventProperty',
      'BookingCreatePropertyRef', 'BookingCreateUnit', 'BookingCreateGuest', 'BookingCreatePricing', 'BookingCreatePayment', 'BookingCreateSource',
      'IntegrationBrand', 'IntegrationWebhook', 'RatesDate', 'RestrictionsDate', 'InventoryUnit', 'SyncAccepted']) {
      expect(generated, name).toMatch(new RegExp(`^ {8}${name}: `, 'm'));
    }
  });
});
