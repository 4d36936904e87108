/**
 * A create a check needs made: a full world or a throttled key leaves
 * nothing judged, any other refusal of a valid create is the breach (§4.5:
 * success is 201), never "not applicable" (issue 25: a documented wrong
 * answer is a failure).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckFailure, makeContext, NotApplicable } from '../check.ts';
import { PlatformTime } from '../platform-time.ts';
import type { Target } from '../targets.ts';
import { NotObserved, OBSERVE_REAL_SECONDS } from '../not-observed.ts';
import { expectCreated, ratesEvent } from './support.ts';

const ctx = makeContext({ kind: 'in-process', capabilities: ['read', 'write'], properties: [], secrets: [], time: new PlatformTime() } as unknown as Target, { runId: 'run', runs: 1, seed: 1, live: false, checkId: 'unit' });
const answer = (status: number, code?: string) => ({ status, headers: {}, text: '', body: code ? { code } : {} });

function outcome(status: number, code?: string): unknown {
  try {
    expectCreated(ctx, answer(status, code), 'the create');
    return 'made';
  } catch (e) {
    return e;
  }
}

describe('expectCreated: a create the check needs', () => {
  it('201 goes on', () => {
    expect(outcome(201)).toBe('made');
  });

  it('409 UNAVAILABLE (the nights were filled since they were read) and 429 RATE_LIMITED leave nothing judged', () => {
    expect(outcome(409, 'UNAVAILABLE')).toBeInstanceOf(NotApplicable);
    expect(outcome(429, 'RATE_LIMITED')).toBeInstanceOf(NotApplicable);
  });

  it('any other answer to a valid create is the breach, under 4.5.R8 (a 409 or 429 without its code too)', () => {
    for (const [status, code] of [[422, 'VALIDATION_FAILED'], [500, 'INTERNAL'], [200, undefined], [409, 'CONFLICT'], [429, undefined]] as const) {
      const e = outcome(status, code);
      expect(e, `${status} ${code}`).toBeInstanceOf(CheckFailure);
      expect((e as CheckFailure).failure).toMatchObject({ kind: 'ValidCreateRefused', clause: '4.5.R8', received: `${status}${code ? ` ${code}` : ''} for the create` });
    }
  });
});

/**
 * A change's event may be recorded a moment after the change (§1 pushes changes as events; nothing says at once).
 * The wait ends on the event, however late within a generous cap, and a cap that runs out is "not observed", never
 * the failure it was after 15 s (issue 38). Time is vitest's fake clock: the platform answers at once, and records
 * the event only `lateMs` after the change.
 */
describe('ratesEvent: the event a change recorded, waited for', () => {
  const w = { property: 101, from: '2027-01-10', to: '2027-01-11' };
  function recordingLate(lateMs: number | null) {
    let changedAt = 0;
    const row = { sequence: 6, status: 'pending', delivered_at: null, event: { type: 'rates.changed', window: { from: w.from, to: w.to }, property: { doorloom_id: w.property } } };
    const api = {
      get: async (path: string) => {
        if (path === '/me') return { status: 200, body: { data: { webhook: { last_sequence: 5, event_types: ['rates.changed'] } } } };
        const data = lateMs !== null && changedAt > 0 && Date.now() >= changedAt + lateMs ? [row] : [];
        return { status: 200, body: { data, cursor: { has_more: false, next_after_sequence: 5 + data.length } } };
      },
    };
    const control = { setRates: async () => void (changedAt = Date.now()) };
    return { ...ctx, api, control } as unknown as typeof ctx;
  }

  afterEach(() => vi.useRealTimers());

  it('an event recorded 16 s after the change (past the old 15 s) is waited for and returned', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const seen = ratesEvent(recordingLate(16_000), w, 1234);
    await vi.advanceTimersByTimeAsync(16_500);
    expect((await seen).sequence).toBe(6);
  });

  it('an event never recorded is not observed after the cap, naming the change: not applicable, never a failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const outcome = ratesEvent(recordingLate(null), w, 1234).catch((e) => e);
    await vi.advanceTimersByTimeAsync((OBSERVE_REAL_SECONDS + 1) * 1000);
    const e = await outcome;
    expect(e).toBeInstanceOf(NotObserved);
    expect(e.message).toBe(`not observed: the rates.changed event of control rates.set on property 101, 2027-01-10..2027-01-11, after sequence 5, after ${OBSERVE_REAL_SECONDS} s of real time`);
  });
});
