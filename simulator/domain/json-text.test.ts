/** Issue 17, defect 7: the canonical text of a body keeps its numbers as sent. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scanJsonText } from './json-text.ts';

/** The oracle: §4.5 rule 1's key-sorted JSON of a parsed value, written out here (keys sorted at every depth, arrays in order). */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

describe('scanJsonText', () => {
  it('equals canonicalJson of the parsed value for any JSON in JSON.stringify form (fingerprints stored before stay valid)', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
      const text = JSON.stringify(value, null, pretty ? 2 : undefined);
      expect(scanJsonText(text).canonical).toBe(canonicalJson(JSON.parse(text)));
    }), { numRuns: 300 });
  });

  it('never gives two texts that differ in a number literal the same canonical form', () => {
    const literal = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
      fc.constantFrom('0', '-0', '0.0', '1', '1.0', '1e0', '1E0', '10', '1e1', '9007199254740992', '9007199254740993', '0.1', '0.10'),
    );
    fc.assert(fc.property(literal, literal, fc.string().filter((k) => k !== 'z'), (a, b, key) => {
      fc.pre(a !== b);
      const at = (n: string) => scanJsonText(`{${JSON.stringify(key)}:[${n}],"z":1}`).canonical;
      expect(at(a)).not.toBe(at(b));
    }), { numRuns: 500 });
  });

  it('ignores key order and white space, and keeps the last of duplicate keys as JSON.parse does', () => {
    expect(scanJsonText('{ "b": 1, "a": [ -0 , 1.50 ] }').canonical).toBe('{"a":[-0,1.50],"b":1}');
    expect(scanJsonText('{"a":1,"a":2}').canonical).toBe('{"a":2}');
    expect(scanJsonText('"\\u0041"').canonical).toBe('"A"');
  });

  it.each([
    ['1e309', /too large/],
    ['-1e309', /too large/],
    ['1e-400', /too small/],
    ['9007199254740993', /past 2\^53 .* 9007199254740992/],
  ])('names %s, which a double cannot hold unchanged, with its path', (n, reason) => {
    const scan = scanJsonText(`{"pricing":{"breakdown":{"x":[0,${n}]}}}`);
    expect(scan.unholdable).toEqual([{ path: 'pricing.breakdown.x.1', text: n, reason: expect.stringMatching(reason) }]);
  });

  it.each(['9007199254740992', '1e308', '5e-324', '0.1', '-0', '0e-400', '123456789012345678901234567890.5'])('accepts %s (held as a double without overflow, underflow or integer rounding)', (n) => {
    expect(scanJsonText(`[${n}]`).unholdable).toEqual([]);
  });
});
