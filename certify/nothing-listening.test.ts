/**
 * A port that refuses every signed ping for NOTHING_LISTENING_MS is nothing
 * listening (issue 41): the ready wait ends early only then, and only when
 * nobody asked for a longer wait (a null cap).
 */
import { describe, expect, it } from 'vitest';
import { NOTHING_LISTENING_MS, NothingListening, refusedConnection } from './nothing-listening.ts';

const REFUSED = { status: null, error: 'ECONNREFUSED 127.0.0.1:8787' };

describe('a webhook port nothing listens on', () => {
  it.each([
    ['one address refused', 'ECONNREFUSED 127.0.0.1:8787', true],
    ['every address of a name refused', 'ECONNREFUSED ::1:8787; ECONNREFUSED 127.0.0.1:8787', true],
    ['one address of two accepted', 'ECONNREFUSED ::1:8787; ECONNRESET 127.0.0.1:8787', false],
    ['a time-out: something may be there', 'no answer within 2000 ms', false],
    ['a name that does not resolve', 'ENOTFOUND receiver.invalid', false],
    ['no error', null, false],
  ] as Array<[string, string | null, boolean]>)('refusedConnection: %s', (_name, error, want) => {
    expect(refusedConnection(error)).toBe(want);
  });

  it.each([
    ['refused from the first ping to the cap: gives up', [[0, REFUSED], [NOTHING_LISTENING_MS, REFUSED]], NOTHING_LISTENING_MS, true],
    ['refused until just before the cap: still waits', [[0, REFUSED], [NOTHING_LISTENING_MS - 1, REFUSED]], NOTHING_LISTENING_MS - 1, false],
    ['the cap counts from the first refusal, not from the start', [[5_000, REFUSED], [NOTHING_LISTENING_MS + 4_999, REFUSED]], NOTHING_LISTENING_MS + 4_999, false],
    ['an answer of any status once: the full wait applies', [[0, REFUSED], [1_000, { status: 500 }], [2_000, REFUSED]], 60_000, false],
    ['a time-out once: the full wait applies', [[0, { status: null, error: 'no answer within 2000 ms' }], [1_000, REFUSED]], 60_000, false],
    ['no ping yet', [], 60_000, false],
  ] as Array<[string, Array<[number, { status: number | null; error?: string }]>, number, boolean]>)('%s', (_name, pings, at, want) => {
    const watch = new NothingListening(NOTHING_LISTENING_MS);
    for (const [now, outcome] of pings) watch.note(outcome, now);
    expect(watch.gaveUp(at)).toBe(want);
  });

  it('without a cap (--ready-timeout given, or --partner-command starting the receiver) it never gives up early', () => {
    const watch = new NothingListening(null);
    watch.note(REFUSED, 0);
    expect(watch.gaveUp(10 * NOTHING_LISTENING_MS)).toBe(false);
  });
});
