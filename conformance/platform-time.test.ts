import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PlatformTime } from './platform-time.ts';
import { runConformance } from './runner.ts';
import { serveSimulator, type ServedSimulator } from './served-simulator.ts';

describe('PlatformTime: the platform clock from the Date header (RFC 9110 §6.6.1)', () => {
  // This machine's clock held still: each figure is exact, however long the machine takes between two calls.
  const RECEIVED = Date.parse('2026-09-15T06:30:00.250Z');
  beforeEach(() => void vi.useFakeTimers({ toFake: ['Date'], now: RECEIVED }));
  afterEach(() => void vi.useRealTimers());

  it('takes an offset of a minute or more from the answer', () => {
    const t = new PlatformTime();
    const header = new Date(RECEIVED + 40 * 86_400_000).toUTCString();
    t.observe(header, RECEIVED);
    // The header's time, to its second (the 250 ms below it are not sent).
    expect(t.now()).toBe(RECEIVED + 40 * 86_400_000 - 250);
    expect(t.now()).toBe(Date.parse(header));
    vi.setSystemTime(RECEIVED + 5_000);
    expect(t.now(), 'the offset holds as this machine\'s clock moves').toBe(Date.parse(header) + 5_000);
  });

  it("keeps this machine's clock for the header's one-second rounding", () => {
    const t = new PlatformTime();
    t.observe(new Date(RECEIVED - 900).toUTCString(), RECEIVED);
    expect(t.now()).toBe(RECEIVED);
  });

  it('ignores an absent or unreadable header', () => {
    const t = new PlatformTime();
    t.observe(new Date(RECEIVED + 86_400_000).toUTCString());
    t.observe(undefined);
    t.observe('not a date');
    expect(t.now()).toBe(RECEIVED + 86_400_000 - 250);
  });
});

describe('a live run on a platform whose clock is not this machine\'s (no control plane)', () => {
  let served: ServedSimulator;
  beforeAll(async () => {
    served = await serveSimulator();
    // Staging staff moved the platform 40 days ahead; the partner-only run is not told.
    const res = await fetch(`${served.origin}/_staff/clock/advance`, { method: 'POST', headers: { Authorization: `Bearer ${served.sim.staffToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds: 40 * 86_400 }) });
    expect(res.status).toBe(200);
  });
  afterAll(() => served.close());

  it('dates its stays by the platform clock: check-in yesterday is the platform\'s yesterday (§4.5), never a false breach', async () => {
    const report = await runConformance({ ...served.partner, checks: ['booking.check-in-boundaries', 'sequencing.horizon-respected'] });
    const outcomes = report.results.map((r) => `${r.id} ${r.outcome}${r.failure ? `: ${r.failure.received}` : ''}`);
    expect(outcomes).toEqual(['booking.check-in-boundaries passed', 'sequencing.horizon-respected passed']);
  });
});
