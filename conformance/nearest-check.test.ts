/** An unknown --check names the nearest check id, whether the slip is a typo, a missing suite or a wrong one. */
import { describe, expect, it } from 'vitest';
import { catalogue } from './catalogue.ts';
import { selectChecks } from './runner.ts';
import { didYouMeanCheck } from './nearest-check.ts';

const ids = catalogue().map((c) => c.id);

describe('did you mean, for --check', () => {
  it.each([
    ['a typo in the whole id', 'auth.missing-key-is-40', 'auth.missing-key-is-401'],
    ['the suite left out', 'missing-key-is-401', 'auth.missing-key-is-401'],
    ['the wrong suite', 'auth.foreign-property-is-404', 'visibility.foreign-property-is-404'],
    ['the wrong suite and a typo', 'webhook.signd', 'webhooks.signed'],
  ])('%s: %s', (_name, given, want) => {
    expect(didYouMeanCheck(given, ids)).toBe(` (did you mean ${want}?)`);
  });

  it('says nothing for a name near no check', () => {
    expect(didYouMeanCheck('zzzzzzzz', ids)).toBe('');
  });

  it('selectChecks refuses an unknown check with the suggestion', () => {
    expect(() => selectChecks(catalogue(), { checks: ['missing-key-is-401'] })).toThrow('unknown check "missing-key-is-401" (did you mean auth.missing-key-is-401?) (--list shows them all)');
  });
});
