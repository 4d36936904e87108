/**
 * §4.5 rule 7: a 409 UNAVAILABLE writes nothing, so it records no event.
 * booking.conflict-body tells the refusal's events (there must be none) from
 * those of the create that filled the night by waiting for the latter first.
 * Here the platform records each event 11 s after the change (a proxy shows
 * it only then, sequence and all). The check used to wait 10 s for the
 * create's events, then read the refusal's at once: on such a platform it
 * could blame the refusal for the create's late events, and it missed a
 * refusal's own late event altogether (issue 38). It now waits for the
 * create's events, and proves the refusal's absence against a later change's
 * own event, waited for: §6.2, events are recorded in sequence order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lateEventsProxy } from '../late-events-proxy.ts';
import { runConformance } from '../runner.ts';
import { serveSimulator } from '../served-simulator.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

describe('booking.conflict-body on a platform that records events a moment after the change', () => {
  it('events recorded 11 s after the create are waited for: the refusal is not blamed for them, and the check passes', async () => {
    const s = await serveSimulator();
    closers.push(() => s.close());
    const late = await lateEventsProxy(s.partner.baseUrl!, 11_000);
    closers.push(() => late.close());
    const report = await runConformance({ ...s.partner, baseUrl: late.baseUrl, checks: ['booking.conflict-body'] });
    const result = report.results[0]!;
    expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
  });

  it('a refusal that records an event (a breach), recorded 11 s late, is still caught: the absence waits for a later change\'s event', async () => {
    const s = await serveSimulator(['conflict-emits-availability']);
    closers.push(() => s.close());
    const late = await lateEventsProxy(s.partner.baseUrl!, 11_000);
    closers.push(() => late.close());
    const report = await runConformance({ ...s.partner, baseUrl: late.baseUrl, checks: ['booking.conflict-body'] });
    const result = report.results[0]!;
    expect(result.outcome).toBe('failed');
    expect(result.failure).toMatchObject({ kind: 'RefusalEmitted', clause: '4.5.R7' });
  });
});
