/**
 * Issue 38: a wait ends on the event it waits for, and a cap that runs out is
 * "not observed" naming that event: never a pass, never a failure. Time here
 * is a fake clock, so the cap runs out without anyone waiting for it.
 */
import { describe, expect, it } from 'vitest';
import { NotApplicable } from './check.ts';
import { awaitObserved, NotObserved, observed, OBSERVE_REAL_SECONDS, type WaitClock } from './not-observed.ts';

/** A clock that moves only when slept on. */
function fakeClock(): WaitClock & { slept: number } {
  let now = 0;
  return {
    slept: 0,
    now: () => now,
    async sleep(ms) {
      now += ms;
      this.slept += ms;
    },
  };
}

describe('waiting for an event, up to a cap', () => {
  it('ends on the event: the look that sees it ends the wait, however late it comes within the cap', async () => {
    const clock = fakeClock();
    let looks = 0;
    // The event comes 100 s in: far past any old budget (15 s, 60 s), inside the cap.
    const seen = await observed(async () => (++looks, clock.now() >= 100_000 ? 'recorded' : undefined), { clock });
    expect(seen).toBe('recorded');
    expect(clock.slept).toBe(100_000);
    expect(looks).toBe(1001);
  });

  it('looks once at once: an event already there costs no wait', async () => {
    const clock = fakeClock();
    expect(await observed(async () => 0, { clock })).toBe(0);
    expect(clock.slept).toBe(0);
  });

  it('a cap that runs out is undefined: the caller judges nothing on it', async () => {
    const clock = fakeClock();
    expect(await observed(async () => undefined, { clock, seconds: 3 })).toBeUndefined();
    expect(clock.now()).toBeGreaterThanOrEqual(3000);
  });

  it('awaitObserved: a cap that runs out is not applicable, naming what was awaited, the cap and why it was needed', async () => {
    const clock = fakeClock();
    const outcome = await awaitObserved('the rates.changed event of the change', async () => undefined, { clock, why: 'nothing to judge without it' }).catch((e) => e);
    expect(outcome).toBeInstanceOf(NotObserved);
    expect(outcome).toBeInstanceOf(NotApplicable);
    expect(outcome.message).toBe(`not observed: the rates.changed event of the change, after ${OBSERVE_REAL_SECONDS} s of real time (nothing to judge without it)`);
    expect(clock.now()).toBeGreaterThanOrEqual(OBSERVE_REAL_SECONDS * 1000);
  });

  it('the default cap is generous: two minutes, far above what a loaded machine needs for what a platform does at once', () => {
    expect(OBSERVE_REAL_SECONDS).toBeGreaterThanOrEqual(120);
  });
});
