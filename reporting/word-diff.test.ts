/** The word difference of documented and received (issue 27 item 5). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likeness, LIKENESS_TO_MARK, wordDiff, wordDiffText } from './word-diff.ts';

const SEED = Number(process.env.WORD_DIFF_SEED ?? 20260927);

describe('wordDiff', () => {
  it.each([
    ['a status that differs', { documented: '401 UNAUTHENTICATED for GET /me', received: '403 UNAUTHENTICATED for GET /me', want: '[-401-]{+403+} UNAUTHENTICATED for GET /me' }],
    ['a status and its code, as one change', { documented: '404 NOT_FOUND for GET /bookings/7', received: '403 FORBIDDEN for GET /bookings/7', want: '[-404 NOT_FOUND-]{+403 FORBIDDEN+} for GET /bookings/7' }],
    ['a number inside punctuation', { documented: 'limit (200)', received: 'limit (201)', want: 'limit ([-200-]{+201+})' }],
    ['equal texts', { documented: 'same', received: 'same', want: 'same' }],
    ['an empty side', { documented: '', received: 'something', want: '{+something+}' }],
  ])('%s', (_name, { documented, received, want }) => {
    expect(wordDiffText(wordDiff(documented, received))).toBe(want);
  });

  it('marks nothing when two texts share a word or two by chance', () => {
    const parts = wordDiff('same key and same body replays the original response byte for byte', 'the second POST answered 201 with a body that differs at byte 142');
    expect(likeness(parts)).toBeLessThan(LIKENESS_TO_MARK);
    expect(likeness(wordDiff('401 UNAUTHENTICATED for GET /me', '403 UNAUTHENTICATED for GET /me'))).toBeGreaterThan(0.8);
  });

  it(`gives both texts back: same+del is documented, same+ins is received (property; seed ${SEED}, WORD_DIFF_SEED to change)`, () => {
    const text = fc.array(fc.oneof(fc.constantFrom('401', '403', 'NOT_FOUND', 'for', 'GET', '/me', ' ', '  ', '(', ')', '§1', 'é', '\n'), fc.string({ maxLength: 4 })), { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(fc.property(text, text, (documented, received) => {
      const parts = wordDiff(documented, received);
      expect(parts.filter((p) => p.op !== 'ins').map((p) => p.text).join('')).toBe(documented);
      expect(parts.filter((p) => p.op !== 'del').map((p) => p.text).join('')).toBe(received);
      // Adjacent parts never share a kind, and no part is empty.
      parts.forEach((p, i) => {
        expect(p.text).not.toBe('');
        if (i > 0) expect(parts[i - 1]!.op === p.op).toBe(false);
      });
    }), { seed: SEED, numRuns: 300 });
  });
});
