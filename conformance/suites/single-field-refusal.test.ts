import { describe, expect, it } from 'vitest';
import { singleFieldRefusal } from './single-field-refusal.ts';

describe('single-field-refusal.ts: the code §7 gives a request refused for one bad field', () => {
  it('a create with no property reference (none, or neither id: §4.5 "neither given") is PROPERTY_NOT_MAPPED', () => {
    expect(singleFieldRefusal('createBooking', { units: [] })).toBe('PROPERTY_NOT_MAPPED');
    expect(singleFieldRefusal('createBooking', { property: {} })).toBe('PROPERTY_NOT_MAPPED');
    expect(singleFieldRefusal('createBooking', { property: { name: 'x' } })).toBe('PROPERTY_NOT_MAPPED');
  });

  it('a reference given but malformed, or any other field, is VALIDATION_FAILED', () => {
    expect(singleFieldRefusal('createBooking', { property: { doorloom_id: 'x' } })).toBe('VALIDATION_FAILED');
    expect(singleFieldRefusal('createBooking', { property: { external_id: 'P'.repeat(129) } })).toBe('VALIDATION_FAILED');
    expect(singleFieldRefusal('createBooking', { property: 'wrong type' })).toBe('VALIDATION_FAILED');
    expect(singleFieldRefusal('createBooking', { property: [] })).toBe('VALIDATION_FAILED');
    expect(singleFieldRefusal('requestSync', {})).toBe('VALIDATION_FAILED');
  });
});
