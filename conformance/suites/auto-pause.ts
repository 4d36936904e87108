/**
 * Sustained failure (§3.1, §8 L16): delivery auto-pauses after five
 * consecutive failures with no success for six hours, and the first probe
 * the endpoint answers with a 2xx resumes it. Both conditions are tried: five
 * failures inside the first hours must not pause. Hours of platform time
 * need `clock.advance`; the retry and probe schedules are not shown (§6), so
 * the check reads what /me reports rather than assuming when attempts come.
 */
import { control } from '../control.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { advance, bookingBody, createBooking, expectCreated, horizonStay } from './support.ts';
import { deliveryBreach, ensureDelivered, receiverFor } from './receiver.ts';

const suite = 'webhooks';

const HOUR = 3600;
/** §8 L16: five consecutive failures with no success for six hours. */
const FAILURES = 5;
const NO_SUCCESS_HOURS = 6;
/** How far the clock is walked for each phase, and in what steps (so every attempt falls due on the way). */
const PAUSE_WITHIN_HOURS = 30;
const RESUME_WITHIN_HOURS = 6;
/** How long the endpoint keeps failing after the pause, probes and all, before it answers 2xx again. */
const STILL_FAILING_HOURS = 1;
const STEP_SECONDS = 300;

async function webhook(ctx: CheckContext): Promise<any> {
  const me = await ctx.api.get('/me');
  expectStatus(ctx, me, 200, null, '3.1.R2', 'GET /me while delivery fails');
  return { status: me.body.data.status, ...me.body.data.webhook };
}

export const autoPauseChecks = [
  defineCheck({
    id: 'webhooks.auto-pause-at-five-after-no-url', title: 'After a stretch with no webhook URL, auto-pause still comes at the fifth consecutive failure: not sooner, not later', suite,
    clauses: ['3.1.T1', '8.L16'], level: 'normative', needs: ['write', control('clock.advance'), control('webhook.set-url'), control('delivery.resume')],
    async run(ctx) {
      // §3.1, §8: "five consecutive failures with no success for six hours". A stretch with no URL (§2.1: nothing is
      // delivered until one is set) lets the six hours pass with one failure counted: the count alone must then decide.
      const receiver = await receiverFor(ctx);
      await ensureDelivered(ctx, receiver, 'what was queued before must be delivered first, so that the failure run starts right after a success');
      const url = (await ctx.api.get('/me')).body.data.webhook.url as string;
      receiver.setMode('fail');
      ctx.cleanup.unshift(async () => receiver.setMode('ok'));
      ctx.cleanup.unshift(async () => void (await ctx.control!.resume()));
      expectCreated(ctx, await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1))), 'the create that makes the event to fail');
      let w = await webhook(ctx);
      for (let walked = 0; walked < HOUR && w.consecutive_failures < 1; walked += 10) {
        await advance(ctx, 10);
        w = await webhook(ctx);
      }
      // Any count short of five will do: a platform that delivers in real time may have retried once more while the
      // create was answered (a loaded machine saw 2); what is judged is the count at which the pause comes.
      if (w.consecutive_failures < 1 || w.consecutive_failures >= FAILURES || w.status !== 'active') throw new NotApplicable(`no failed attempt short of ${FAILURES} was recorded within an hour (consecutive_failures ${w.consecutive_failures}, status ${w.status})`);
      await ctx.control!.setWebhookUrl(null);
      ctx.cleanup.unshift(async () => void (await ctx.control!.setWebhookUrl(url)));
      await advance(ctx, (NO_SUCCESS_HOURS + 1) * HOUR);
      await ctx.control!.setWebhookUrl(url);
      let counted = w.consecutive_failures as number;
      for (let walked = 0; walked < PAUSE_WITHIN_HOURS * HOUR; walked += 60) {
        await advance(ctx, 60);
        w = await webhook(ctx);
        deliveryBreach(ctx, receiver.received);
        if (w.status === 'paused') {
          if (w.paused_reason === 'auto' && w.consecutive_failures !== FAILURES) ctx.fail('AutoPauseAtWrongCount', `auto-paused at ${w.consecutive_failures} consecutive failures, the first of them over ${NO_SUCCESS_HOURS} hours before (a stretch with no webhook URL between)`, `paused after ${FAILURES} consecutive failures with no success for ${NO_SUCCESS_HOURS} hours: not at fewer`, '3.1.T1');
          return;
        }
        if (w.consecutive_failures >= FAILURES) {
          ctx.fail('NotAutoPaused', `still active at ${w.consecutive_failures} consecutive failures, the first of them over ${NO_SUCCESS_HOURS} hours before (a stretch with no webhook URL between)`, `paused after ${FAILURES} consecutive failures with no success for ${NO_SUCCESS_HOURS} hours`, '8.L16');
        }
        counted = w.consecutive_failures;
      }
      throw new NotApplicable(`${counted} consecutive failures after ${PAUSE_WITHIN_HOURS} hours of platform time with the URL set again: the retry schedule is not shown (§6)`);
    },
  }),
  defineCheck({
    id: 'webhooks.auto-pause-and-probe', title: 'Five failures with no success for six hours auto-pause delivery (not sooner); a probe answered 2xx resumes it and the backlog drains', suite,
    clauses: ['3.1.T1', '8.L16', '3.1.T4'], level: 'normative', needs: ['write', control('clock.advance')],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      // A success first, so "no success for six hours" reads the same whether it counts from that success or from
      // the first failure after it (clause 3.1.T1 note): the check holds under either reading.
      const first = await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      expectCreated(ctx, first, 'the create that makes a delivered event');
      await ensureDelivered(ctx, receiver, 'the first create must be delivered while the receiver answers 200, so that the failure run starts right after a success');
      receiver.setMode('fail');
      ctx.cleanup.unshift(async () => receiver.setMode('ok'));
      const created = await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      expectCreated(ctx, created, 'the create that makes the event to fail');
      const started = ctx.now();

      // Until six hours have passed since the first failure, no count of failures may pause delivery.
      let w = await webhook(ctx);
      let firstFailureAt: number | null = null;
      for (let walked = 0; walked < PAUSE_WITHIN_HOURS * HOUR && w.status !== 'paused'; walked += STEP_SECONDS) {
        await advance(ctx, STEP_SECONDS);
        w = await webhook(ctx);
        if (firstFailureAt === null && w.consecutive_failures > 0) firstFailureAt = Date.parse(w.last_failure_at);
        deliveryBreach(ctx, receiver.received);
        // Just outside: five failures or more and one at least six hours (and a step) after the first, yet still
        // active. The first failure is read at the end of a step, so the span is never overstated.
        if (w.status !== 'paused' && firstFailureAt !== null && w.consecutive_failures >= FAILURES && Date.parse(w.last_failure_at) - firstFailureAt >= (NO_SUCCESS_HOURS * HOUR + STEP_SECONDS) * 1000) {
          ctx.fail('NotAutoPaused', `status ${w.status} after ${w.consecutive_failures} consecutive failures, the last ${((Date.parse(w.last_failure_at) - firstFailureAt) / 3600_000).toFixed(2)} h after the first`, `paused (auto) after ${FAILURES} consecutive failures with no success for ${NO_SUCCESS_HOURS} hours`, '8.L16');
        }
      }
      if (receiver.received.length === 0) ctx.fail('NothingDelivered', `no delivery attempt in ${PAUSE_WITHIN_HOURS} h of platform time`, 'the create posted to the webhook', '6.R5');
      const since = firstFailureAt ?? started;
      if (w.status === 'paused') {
        const pausedAt = Date.parse(w.paused_at);
        if (w.paused_reason !== 'auto') ctx.fail('WrongPausedReason', `paused_reason ${w.paused_reason} after sustained failure`, 'paused_reason auto (sustained failure)', '3.1.T1');
        // Whole minutes of slack: the first failure is read at the end of a step, so it may be up to a step earlier.
        if (pausedAt - since < (NO_SUCCESS_HOURS * HOUR - STEP_SECONDS) * 1000) {
          ctx.fail('PausedTooSoon', `paused at ${w.paused_at}, ${((pausedAt - since) / 3600_000).toFixed(2)} h after the first failure (${w.consecutive_failures} failures)`, `auto-pause after ${FAILURES} consecutive failures with no success for ${NO_SUCCESS_HOURS} hours`, '8.L16');
        }
        if (w.consecutive_failures < FAILURES) ctx.fail('PausedTooSoon', `paused after ${w.consecutive_failures} consecutive failures`, `auto-pause after ${FAILURES} consecutive failures`, '8.L16');
      } else if (w.consecutive_failures >= FAILURES && Date.parse(w.last_failure_at) - since >= NO_SUCCESS_HOURS * HOUR * 1000) {
        ctx.fail('NotAutoPaused', `status ${w.status} after ${w.consecutive_failures} consecutive failures, the last ${((Date.parse(w.last_failure_at) - since) / 3600_000).toFixed(1)} h after the first`, `paused (auto) after ${FAILURES} consecutive failures with no success for ${NO_SUCCESS_HOURS} hours`, '3.1.T1');
      } else {
        throw new NotApplicable(`${w.consecutive_failures} delivery attempt(s) failed in ${PAUSE_WITHIN_HOURS} h of platform time: the platform's retries (schedule not shown, §6) did not reach ${FAILURES} failures over ${NO_SUCCESS_HOURS} hours`);
      }
      expectStatus(ctx, await ctx.api.get('/bookings', { query: { per_page: 1 } }), 200, null, '3.1.R2', 'GET /bookings while auto-paused');

      // While the endpoint still fails, no probe answer resumes delivery: only a 2xx does (§3.1). The probe schedule
      // is not shown, so an hour of failing probes is judged only if any probe came.
      const probesBefore = receiver.received.length;
      for (let walked = 0; walked < STILL_FAILING_HOURS * HOUR && w.status === 'paused'; walked += STEP_SECONDS) {
        await advance(ctx, STEP_SECONDS);
        w = await webhook(ctx);
      }
      if (w.status !== 'paused') ctx.fail('ResumedWithoutSuccess', `status ${w.status} after ${receiver.received.length - probesBefore} request(s) the endpoint answered ${receiver.received.slice(probesBefore).map((d) => d.answered ?? 'nothing').join(', ') || 'not at all'}, none of them a 2xx`, 'paused to active only when the endpoint answers a probe with a 2xx', '3.1.T4');

      // The endpoint answers again: the next probe's 2xx resumes delivery by itself, and what waited is delivered.
      receiver.setMode('ok');
      for (let walked = 0; walked < RESUME_WITHIN_HOURS * HOUR && w.status === 'paused'; walked += STEP_SECONDS) {
        await advance(ctx, STEP_SECONDS);
        w = await webhook(ctx);
      }
      if (w.status === 'paused') ctx.fail('ProbeDidNotResume', `still paused (${w.paused_reason}) ${RESUME_WITHIN_HOURS} h after the endpoint began answering 200; the receiver got ${receiver.received.filter((d) => d.answered === 200).length} request(s) it answered 200`, 'paused to active automatically when the endpoint next answers a probe with a 2xx', '3.1.T4');
      if (w.status !== 'active' || w.paused_at !== null) ctx.fail('NotActive', `status ${w.status}, paused_at ${w.paused_at} after the probe`, 'active, paused_at null', '3.1.T4');
      for (let walked = 0; walked < HOUR && w.undelivered_events > 0; walked += 60) {
        await advance(ctx, 60);
        w = await webhook(ctx);
      }
      deliveryBreach(ctx, receiver.received);
      if (w.undelivered_events !== 0) ctx.fail('NotDrained', `${w.undelivered_events} undelivered an hour after resuming`, 'the backlog drains once delivery resumes', '3.1.T4');
    },
  }),
];
