/**
 * "Did you mean …?": a typo finds the name it was meant to be (case, dashes
 * and underscores aside, one edit in three at most), and a word that is no
 * near miss finds nothing rather than a wild guess.
 */
import { describe, expect, it } from 'vitest';
import { didYouMean, nearestName } from './nearest-name.ts';

const CONFIG_KEYS = ['target', 'apiKey', 'webhookSecret', 'properties', 'otherApiKey', 'allowWrites', 'allowSync', 'allowBurst', 'webhookListenPort'];
const FLAGS = ['--target', '--api-key', '--report-dir', '--require-applicable', '--allow-writes', '--label', '--runs'];

describe('nearestName', () => {
  it.each([
    ['a letter left out', 'allowWrite', CONFIG_KEYS, 'allowWrites'],
    ['another case', 'apikey', CONFIG_KEYS, 'apiKey'],
    ['kebab for camel', 'allow-sync', CONFIG_KEYS, 'allowSync'],
    ['two letters swapped', '--taregt', FLAGS, '--target'],
    ['a letter dropped from a flag', '--targt', FLAGS, '--target'],
    ['letters swapped in a long flag', '--reprot-dir', FLAGS, '--report-dir'],
    ['nothing near', 'colour', CONFIG_KEYS, undefined],
    ['a short word three edits away', '--port', FLAGS, undefined],
    ['empty', '--', FLAGS, undefined],
  ] as const)('%s: %s → %s', (_what, given, known, want) => {
    expect(nearestName(given, known)).toBe(want);
  });

  it('didYouMean says it as a question, or says nothing', () => {
    expect(didYouMean('allowWrite', CONFIG_KEYS)).toBe(' (did you mean allowWrites?)');
    expect(didYouMean('colour', CONFIG_KEYS)).toBe('');
    expect(didYouMean('target', CONFIG_KEYS)).toBe('');
  });
});
