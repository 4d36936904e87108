/**
 * §7 keys a 422's errors "by field path" and shows no syntax: the query
 * violation check takes any spelling of a path within the refused parameter,
 * and nothing that names another parameter.
 */
import { describe, expect, it } from 'vitest';
import { namesParameter } from './validation.ts';

describe('7.C1: a refusal key names the refused query parameter in any spelling of its path', () => {
  it.each([
    ['types[].0', 'types[].0', true],
    ['types[]', 'types[].0', true],
    ['types.0', 'types[].0', true],
    ['types', 'types[].0', true],
    ['types[0]', 'types[].0', true],
    ['types.0', 'types[]', true],
    ['limit', 'limit', true],
    ['limit', 'types[].0', false],
    ['property_id', 'types[].0', false],
    ['types_filter', 'types[].0', false],
    ['per_page', 'page', false],
    ['', 'limit', false],
  ] as const)('key %j for a violation of %s: %s', (key, path, named) => {
    expect(namesParameter(key, path)).toBe(named);
  });
});
