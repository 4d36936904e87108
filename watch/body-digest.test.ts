/**
 * watch fingerprints a create's body as the platform side does (§4.5 rule 1:
 * key order irrelevant, any value change counts, numbers as sent), so it
 * never calls a correct refusal of a changed body a replay breach.
 */
import { describe, expect, it } from 'vitest';
import { fingerprintOf } from './body-digest.ts';

const print = (text: string) => fingerprintOf(text, JSON.parse(text));

describe('fingerprintOf: a create body as §4.5 rule 1 fingerprints it', () => {
  it('key order and white space are irrelevant', () => {
    expect(print('{"a":1,"b":{"c":2,"d":[1,2]}}')).toBe(print('{ "b": {"d":[1, 2], "c":2}, "a":1 }'));
  });

  it('a number spelled otherwise is another body, though it parses to the same double (0.1 and 0.10000000000000001)', () => {
    expect(print('{"pricing":{"breakdown":{"x":0.1}}}')).not.toBe(print('{"pricing":{"breakdown":{"x":0.10000000000000001}}}'));
    expect(print('{"n":1}')).not.toBe(print('{"n":1.0}'));
  });

  it('a body that is not JSON, or nests past the stack, is fingerprinted by its bytes without throwing', () => {
    expect(fingerprintOf('not json', undefined)).toMatch(/^raw:/);
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(fingerprintOf(deep, [])).toMatch(/^raw:/);
  });
});
