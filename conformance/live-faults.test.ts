/**
 * The strengthened checks bite over HTTP with a partner's own credentials:
 * the simulator serves as a live target (real-time delivery to the runner's
 * receiver behind --webhook-public-url, no staff token handed to the run),
 * once with a deliberate fault, where the check must fail naming the breach,
 * and once without, where the same checks pass. Staff powers are used only in
 * this test's setup (registering the webhook URL, a small rate limit), as a
 * platform team would configure its staging deployment. Each test has its
 * own simulator, ports and receiver, so those that wait in real time for
 * deliveries run concurrently; those that burst into a rate limit (a burst
 * must reach the limit within its window) and the run over every
 * check run one at a time, as before.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import type { FaultName } from '../simulator/domain/faults.ts';
import { runConformance, type ConformanceOptions } from './runner.ts';
import { serveSimulator } from './served-simulator.ts';

/** A simulator on loopback with `faults`, its first integration delivering to a port the run's receiver will listen on; closed when the test ends. */
async function liveTarget(test: TestContext, faults: FaultName[], setup: { rateLimit?: { limit: number; window_seconds: number } } = {}): Promise<ConformanceOptions> {
  const served = await serveSimulator(faults, setup);
  test.onTestFinished(() => served.close());
  return served.partner;
}

async function outcomes(options: ConformanceOptions, checks: string[]): Promise<[string, string, string][]> {
  const report = await runConformance({ ...options, checks });
  expect(report.target.kind).toBe('live');
  return report.results.map((r): [string, string, string] => [r.id, r.outcome, r.failure ? `${r.failure.kind} (${r.failure.clause})` : r.reason ?? r.error ?? '']).sort(([a], [b]) => a.localeCompare(b));
}

/**
 * The burst must meet the limit on any machine (issue 38): 40 calls in a window of 10 s is 4 calls a second, which the
 * slowest client reaches; the check then waits the window out. A 2-second window asked for 20 calls a second, and a
 * loaded machine's client did not always get there (not applicable, not a pass).
 */
const SMALL_LIMIT = { limit: 40, window_seconds: 10 };

const BITES: [FaultName, string, string, ConformanceOptions?, Parameters<typeof liveTarget>[2]?][] = [
  ['superseded-in-replay', 'sequencing.paging-exactly-once', 'SupersededInReplay (3.3.R2)'],
  ['superseded-in-replay', 'supersession.live-undelivered-covered', 'SupersededInReplay (3.3.R2)'],
  ['updated-since-ignored', 'pagination.updated-since-filters', 'UpdatedSinceIgnored (4.4.Q1)'],
  ['updated-since-ignored', 'pagination.polling-never-misses', 'UpdatedSinceIgnored (4.4.Q1)'],
  ['webhook-pair-swapped', 'webhooks.live-deliveries', 'DeliveryOvertook (6.R2a)'],
  ['integration-header-missing', 'webhooks.live-deliveries', 'IntegrationHeaderMissing (6.R3)'],
  ['signature-wrong-secret', 'webhooks.live-deliveries', 'SignatureInvalid (5.R4)'],
  ['no-ratelimit-headers-on-429', 'auth.rate-limited-headers', 'MissingRateLimitHeader (7.E16)', { allowBurst: true }, { rateLimit: SMALL_LIMIT }],
  ['no-retry-after-on-429', 'auth.rate-limited-headers', 'RetryAfterMissing (7.E16)', { allowBurst: true }, { rateLimit: SMALL_LIMIT }],
  // Issue 25: limits and defaults, each at its last accepted value, its first refused one, or omitted.
  ['per-page-clamped-100', 'pagination.per-page-limits', 'PerPageNotEchoed (8.L1)'],
  ['snapshot-731-accepted', 'watermark.window-limits', 'UnexpectedStatus (4.8.Q5)'],
  ['notes-2000-refused', 'validation.field-rules', 'MaximumRefused (4.5.Q31)'],
  ['children-default-1', 'validation.create-defaults', 'WrongDefaultChildren (4.5.Q9)'],
  ['filter-check-in-to-exclusive', 'validation.valid-queries-accepted', 'FilterDropsMatch (4.4.Q5)'],
  ['conflict-emits-availability', 'booking.conflict-body', 'RefusalEmitted (4.5.R7)'],
];

describe('strengthened checks against a live target with partner credentials, one at a time', () => {
  it('pass against a correct deployment', async (test) => {
    // The burst against the small limit the faults meet; every other check against the default limit, which none reaches.
    const burst = [...new Set(BITES.filter((b) => b[4]?.rateLimit).map(([, check]) => check))].sort();
    const others = [...new Set(BITES.filter((b) => !b[4]?.rateLimit).map(([, check]) => check))].sort();
    expect(await outcomes({ ...(await liveTarget(test, [], { rateLimit: SMALL_LIMIT })), allowBurst: true }, burst)).toEqual(burst.map((id) => [id, 'passed', '']));
    expect(await outcomes({ ...(await liveTarget(test, [])), allowBurst: true }, others)).toEqual(others.map((id) => [id, 'passed', '']));
  });

  for (const [fault, check, breach, extra, setup] of BITES.filter((b) => b[4]?.rateLimit)) {
    it(`${check} names the breach of ${fault}: ${breach}`, async (test) => {
      const options = await liveTarget(test, [fault], setup);
      expect(await outcomes({ ...options, ...extra }, [check])).toEqual([[check, 'failed', breach]]);
    });
  }
});

describe.concurrent('strengthened checks against a live target with partner credentials, concurrently', () => {
  for (const [fault, check, breach, extra, setup] of BITES.filter((b) => !b[4]?.rateLimit)) {
    it(`${check} names the breach of ${fault}: ${breach}`, async (test) => {
      const options = await liveTarget(test, [fault], setup);
      expect(await outcomes({ ...options, ...extra }, [check])).toEqual([[check, 'failed', breach]]);
    });
  }

  it('without --allow-burst the burst check is not applicable, naming the capability', async (test) => {
    const options = await liveTarget(test, []);
    const [[, outcome, reason]] = await outcomes(options, ['auth.rate-limited-headers']) as [[string, string, string]];
    expect(outcome).toBe('not_applicable');
    expect(reason).toMatch(/needs burst/);
  });

  it('without the receiver behind --webhook-public-url the webhook checks are not applicable, never failed', async (test) => {
    const options = await liveTarget(test, []);
    const result = await outcomes({ ...options, webhookPublicUrl: undefined, webhookListenPort: undefined }, ['webhooks.live-deliveries', 'supersession.live-undelivered-covered']);
    expect(result.map(([id, outcome]) => [id, outcome])).toEqual([['supersession.live-undelivered-covered', 'not_applicable'], ['webhooks.live-deliveries', 'not_applicable']]);
  });
});
