/**
 * Raw-body encodings parse to exactly the original value, and none of them
 * is the JSON.stringify form (so a receiver that re-serialises before
 * checking the HMAC computes another signature).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RAW_BODY_VARIANTS, reencode } from './raw-body.ts';

const envelope = JSON.stringify({
  type: 'rates.changed', version: '2026-09', sequence: 7, occurred_at: '2026-11-24T16:16:10.954+05:30',
  integration: { id: 1, slug: 'acme-channel' }, property: { doorloom_id: 101, external_id: 'SEA-VIEW' },
  data: { currency: 'INR', dates: [{ date: '2026-12-20', base_rate: 7777 }], note: 'Zoé / Renée 😀', empty: {}, none: [] },
});

describe('raw-body encodings', () => {
  it.each(RAW_BODY_VARIANTS)('%s: parses to the same value, in other bytes than the platform\'s compact form', (variant) => {
    const out = reencode(envelope, variant)!;
    expect(out).not.toBeNull();
    expect(JSON.parse(out)).toEqual(JSON.parse(envelope));
    expect(out).not.toBe(envelope);
  });

  it.each(RAW_BODY_VARIANTS.filter((v) => v !== 'key-order'))('%s: re-serialising it (JSON.stringify of the parse) does not give the bytes sent', (variant) => {
    const out = reencode(envelope, variant)!;
    expect(JSON.stringify(JSON.parse(out))).not.toBe(out);
  });

  it('key-order: re-serialising in a fixed order (sorted, or a struct\'s field order) does not give the bytes sent', () => {
    const out = reencode(envelope, 'key-order')!;
    const sorted = (v: unknown): unknown => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : Array.isArray(v) ? v.map(sorted) : v);
    expect(JSON.stringify(sorted(JSON.parse(out)))).not.toBe(out);
    expect(out).not.toBe(envelope);
  });

  it('each variant shows its mark', () => {
    expect(reencode(envelope, 'whitespace')).toContain('\r\n  "type" : "rates.changed" ,');
    expect(reencode(envelope, 'escapes')).toContain('Z\\u006f\\u00e9 \\/ R\\u0065n\\u00e9\\u0065 \\ud83d\\ude00');
    expect(reencode(envelope, 'decimal-numbers')).toContain('"base_rate":7777.0');
    expect(reencode(envelope, 'key-order')).toMatch(/^\{"data":\{"none":\[\],"empty":\{\},"note":/);
  });

  it('a variant that cannot differ for a body is not sent (null)', () => {
    expect(reencode('{"k":"x"}', 'decimal-numbers')).toBeNull();
    expect(reencode('{"k":1}', 'key-order')).toBeNull();
    expect(reencode('[1]', 'escapes')).toBeNull();
  });

  it('any JSON value: every variant parses back to it', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.constantFrom(...RAW_BODY_VARIANTS), (value, variant) => {
      const compact = JSON.stringify(value);
      const out = reencode(compact, variant);
      expect(JSON.parse(out ?? compact)).toEqual(JSON.parse(compact));
      if (out !== null) expect(out).not.toBe(compact);
    }), { verbose: true });
  });
});
