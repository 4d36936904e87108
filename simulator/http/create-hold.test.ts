import { describe, expect, it } from 'vitest';
import { holdCreate } from './create-hold.ts';

/** A clock that moves only when the hold sleeps: each sleep is recorded and advances it by what was asked. */
function steppedTime() {
  let now = 0;
  const slept: number[] = [];
  return { slept, now: () => now, sleep: async (ms: number) => { slept.push(ms); now += ms; } };
}

describe('create_latency_ms holds a claimed create (§4.5 rule 3, staff plane)', () => {
  it('holds for the latency as set, looking at the setting every 20 ms', async () => {
    const t = steppedTime();
    await holdCreate(() => 50, t.sleep, t.now);
    expect(t.slept).toEqual([20, 20, 10]);
  });

  it('a latency of 0 does not hold at all', async () => {
    const t = steppedTime();
    await holdCreate(() => 0, t.sleep, t.now);
    expect(t.slept).toEqual([]);
  });

  it('a setting lowered while holding ends the hold at the next look', async () => {
    const t = steppedTime();
    let latency = 60_000;
    const sleep = async (ms: number) => {
      await t.sleep(ms);
      if (t.now() >= 40) latency = 0;
    };
    await holdCreate(() => latency, sleep, t.now);
    expect(t.slept).toEqual([20, 20]);
  });

  it('a setting lowered below the time already held ends the hold; raised, the hold goes on to the new latency', async () => {
    const lowered = steppedTime();
    let latency = 1000;
    await holdCreate(() => latency, async (ms) => {
      await lowered.sleep(ms);
      if (lowered.now() === 60) latency = 30;
    }, lowered.now);
    expect(lowered.now()).toBe(60);
    const raised = steppedTime();
    latency = 30;
    await holdCreate(() => latency, async (ms) => {
      await raised.sleep(ms);
      latency = 45;
    }, raised.now);
    expect(raised.slept).toEqual([20, 20, 5]);
  });
});
