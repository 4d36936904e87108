import { describe, expect, it } from 'vitest';
import { isWalkPage, pauseSeenWithoutReplay } from './pause-seen.ts';
import type { JournalEntry } from './types.ts';

let n = 0;
const call = (at: number, partial: Partial<JournalEntry>): JournalEntry => ({
  n: ++n, integration_id: 1, at, operation: 'getMe', method: 'GET', path: '/api/integrations/v1/me', query: {},
  idempotency_key: null, body_fingerprint: null, status: 200, code: null, credential: 'current', retry_after: null, ...partial,
});
const me = (at: number, status = 200) => call(at, { status });
const page = (at: number, limit = '200') => call(at, { operation: 'listEvents', query: { after_sequence: '5', limit }, cursor: { after_sequence: 5, next_after_sequence: 9, has_more: false, first: 6, last: 9 } });

describe('pause-seen: judged on the partner\'s own calls, never on the clock (§5.7, §6.8)', () => {
  it('a page of a walk is GET /events answered 200 with a cursor, not a one-row peek', () => {
    expect(isWalkPage(page(0))).toBe(true);
    expect(isWalkPage(page(0, '1'))).toBe(false);
    expect(isWalkPage(call(0, { operation: 'listEvents', status: 429 }))).toBe(false);
  });

  it('two GET /me answers while withheld with no walk page between them: the pair, however close or far apart in time', () => {
    const [a, b] = [me(100), me(200)];
    expect(pauseSeenWithoutReplay([a, page(150, '1'), b], 0, 1_000)).toEqual([a, b]);
    const [c, d] = [me(100), me(600_000)];
    expect(pauseSeenWithoutReplay([c, d], 0, 1_000_000)).toEqual([c, d]);
  });

  it('a walk page between them, one read, refused reads, or reads outside the window are no evidence', () => {
    expect(pauseSeenWithoutReplay([me(100), page(150), me(200)], 0, 1_000)).toBeNull();
    expect(pauseSeenWithoutReplay([me(100)], 0, 1_000)).toBeNull();
    expect(pauseSeenWithoutReplay([me(100, 429), me(200, 401)], 0, 1_000)).toBeNull();
    expect(pauseSeenWithoutReplay([me(100), me(2_000)], 0, 1_000)).toBeNull();
    // A walk resets the count: the two after it are a new pair.
    const [e, f] = [me(300), me(400)];
    expect(pauseSeenWithoutReplay([me(100), page(200), e, f], 0, 1_000)).toEqual([e, f]);
  });
});
