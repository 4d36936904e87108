/**
 * The runner's webhook receivers. `receiverFor` is a receiver the check
 * registers through the control plane (`webhook.set-url`): in-process a
 * loopback receiver, live the receiver behind --webhook-public-url.
 * `partnerReceiver` is what a partner has: live, the receiver behind
 * --webhook-public-url that the platform already delivers to. Either way the
 * receiver records every delivery it refuses with the reason, judges
 * signature timestamps against the platform's clock as the control plane
 * reports it, and `deliveryBreach` turns the first recorded problem into the
 * check failure that names it.
 */
import { startReceiver, type ReceivedDelivery, type Receiver } from '../../simulator/webhooks/receiver.ts';
import { DELIVERY_BREACHES } from '../../protocol/delivery-problems.ts';
import type { CheckContext } from '../check.ts';
import { NotApplicable } from '../check.ts';
import { NotObserved } from '../not-observed.ts';
import { startTlsFront } from '../tls-front.ts';
import type { AddressInfo } from 'node:net';

/** The receiver a check registered last: live, one listen port serves one receiver at a time. */
const current = new WeakMap<CheckContext, Receiver>();

/**
 * Waits until `done()` holds, at most `seconds` of platform time. Where the
 * control plane moves the clock, time is stepped a second at a time and
 * whatever falls due (deliveries, retries, probes) happens on the way, so
 * in-process nothing waits for real; otherwise real time passes.
 */
export async function waitFor(ctx: CheckContext, done: () => boolean, seconds: number): Promise<boolean> {
  if (ctx.control?.offers('clock.advance')) {
    for (let i = 0; ; i++) {
      await ctx.control.advanceClock(i === 0 ? 0 : 1);
      if (ctx.target.kind === 'live') await new Promise((r) => setTimeout(r, 100));
      if (done() || i >= seconds) return done();
    }
  }
  for (let i = 0; i < seconds * 10 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
  return done();
}

/**
 * A receiver of the check's own: in-process a loopback receiver the control
 * plane points the webhook at; live the one behind --webhook-public-url,
 * registered through `webhook.set-url` unless the integration's webhook
 * already points there (then a partner's own setup is enough). With
 * `https`, in-process the receiver is put behind a TLS front serving the
 * certificate the simulator trusts (`Target.webhookTls`) and the front's
 * https:// URL is what the platform is given (§2.1 webhook.url); live the
 * public URL must itself be https:// (a TLS front of the partner's own),
 * else the check is not applicable, saying so.
 */
export async function receiverFor(ctx: CheckContext, secrets?: string[], how: { https?: boolean } = {}): Promise<Receiver> {
  const control = ctx.control;
  const hook = ctx.target.kind === 'live' ? ctx.target.webhook : null;
  if (ctx.target.kind === 'live' && !hook) throw new NotApplicable(`needs --webhook-public-url and --webhook-listen-port: the URL the platform can reach and the local port behind it${how.https ? HTTPS_FRONT : ''}`);
  if (how.https && hook && new URL(hook.publicUrl).protocol !== 'https:') throw new NotApplicable(`needs an https:// --webhook-public-url, not ${hook.publicUrl}${HTTPS_FRONT}`);
  const tls = how.https && !hook ? ctx.target.webhookTls : null;
  if (how.https && !hook && !tls) throw new NotApplicable('needs a certificate the platform trusts for a receiver on loopback (the in-process target\'s webhookTls)');
  const secret = secrets ?? (ctx.target.webhookSecret ? [ctx.target.webhookSecret] : null);
  if (!secret) throw new NotApplicable('needs the webhook secret (--webhook-secret or webhookSecret in --config)');
  const me = (await ctx.api.get('/me')).body.data;
  const before = me.webhook?.url as string | null | undefined;
  const register = !hook || before !== hook.publicUrl;
  if (register && !control?.offers('webhook.set-url')) {
    throw new NotApplicable(`the integration's webhook URL is ${before ?? 'not set'}, not --webhook-public-url ${hook?.publicUrl ?? ''}, and no control plane offers webhook.set-url to point it there`);
  }
  await current.get(ctx)?.close();
  // Signature timestamps are the platform's time of sending: judged against its clock.
  const receiver = await startReceiver({ secrets: secret, slug: me.slug, port: hook?.listenPort, nowSeconds: () => Math.floor(ctx.now() / 1000) });
  current.set(ctx, receiver);
  // The front passes each connection to the receiver's port unchanged: the receiver sees what was posted to https.
  const front = tls ? await startTlsFront({ identity: tls, forwardTo: (receiver.server.address() as AddressInfo).port }) : null;
  if (register) await control!.setWebhookUrl(hook ? hook.publicUrl : front ? front.url(new URL(receiver.url).pathname) : receiver.url);
  ctx.cleanup.push(async () => {
    // Live, the integration's webhook goes back where it pointed before the check.
    if (hook && register && before) await control!.setWebhookUrl(before);
  }, () => receiver.close(), async () => front?.close());
  return receiver;
}

/** What a live run adds for an https:// delivery, said where it is missing. */
const HTTPS_FRONT = ': to prove delivery to an https:// webhook URL, give --webhook-public-url an https:// URL the platform can reach (a tunnel or reverse proxy with a certificate the platform trusts) that forwards to --webhook-listen-port';

/** Platform time a drain may take where the control plane moves the clock: the retry schedule is not shown (§6), so past any back-off a platform plausibly uses (the simulator's longest step is an hour). */
export const DRAIN_PLATFORM_SECONDS = 2 * 60 * 60;
/** Real time a drain may take where the clock cannot be moved. */
export const DRAIN_REAL_SECONDS = 120;

/**
 * Waits until `done()` holds for as long as a drain may take: where the
 * control plane moves the clock, in steps that grow from a second to a
 * minute, so a retry in back-off falls due on the way without hundreds of
 * calls; otherwise in real time, looking every 100 ms. Its bound is what
 * `describeDrain` says.
 */
export async function waitForDrain(ctx: CheckContext, done: () => boolean | Promise<boolean>): Promise<boolean> {
  if (!ctx.control?.offers('clock.advance')) {
    for (const end = Date.now() + DRAIN_REAL_SECONDS * 1000; ;) {
      if (await done()) return true;
      if (Date.now() > end) return false;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  for (let elapsed = 0, first = true; ; first = false) {
    // Nothing moves before the first look; then a second at a time, growing by a tenth of what has passed, to a minute.
    const step = first ? 0 : Math.min(60, Math.max(1, Math.floor(elapsed / 10)));
    await ctx.control.advanceClock(step);
    elapsed += step;
    if (ctx.target.kind === 'live') await new Promise((r) => setTimeout(r, 100));
    if (await done()) return true;
    if (elapsed >= DRAIN_PLATFORM_SECONDS) return false;
  }
}

export function describeDrain(ctx: CheckContext): string {
  return ctx.control?.offers('clock.advance') ? `${DRAIN_PLATFORM_SECONDS / 3600} hours of platform time (the clock stepped through the control plane)` : `${DRAIN_REAL_SECONDS} s of real time (no control plane moves the clock)`;
}

/**
 * Whether the platform delivered every event through `through` (default:
 * the integration's latest sequence as `GET /me` shows it now), as its own
 * record shows: the replay row of `through` and every row before it settled
 * (delivered, perhaps to an earlier check's receiver, or superseded). Until
 * the platform has recorded a delivery the event is still undelivered (§3.3:
 * it may yet be superseded), so the receiver's 2xx alone is not enough. A
 * staff pause is lifted first where the control plane can, and the wait is a
 * drain's (`waitForDrain`). A receiver problem on the way (a bad signature,
 * a delivery out of order) fails the check. Where delivery is itself the
 * finding, the caller judges the false; where it is a precondition,
 * `ensureDelivered` says why the check cannot go on.
 */
export async function drained(ctx: CheckContext, receiver: Receiver, through?: number): Promise<boolean> {
  const me = (await ctx.api.get('/me')).body?.data;
  const last = through ?? (me?.webhook?.last_sequence as number | undefined);
  if (typeof last !== 'number' || last === 0) return true;
  const settled = async () => {
    const row: any = (await ctx.api.get('/events', { query: { after_sequence: last - 1, limit: 1, include_superseded: true } })).body?.data?.[0];
    const done = !row || row.sequence !== last || !UNSETTLED.has(row.status);
    // In sequence order (§6.2): delivered through `last` means nothing before it is still waiting.
    return done && (await backlogAhead(ctx, [last])) === 0;
  };
  // Whatever the receiver got so far is judged too: a delivery out of order may already have come and gone.
  if (await settled()) {
    deliveryBreach(ctx, receiver.received);
    return true;
  }
  // §3.1: a paused integration drains in order once resumed.
  if (me?.status === 'paused' && ctx.control?.offers('delivery.resume')) await ctx.control.resume();
  const ok = await waitForDrain(ctx, async () => receiver.problems.length > 0 || settled());
  deliveryBreach(ctx, receiver.received);
  return ok;
}

/** Replay statuses of an event the platform has yet to deliver (§2.6). */
export const UNSETTLED = new Set(['pending', 'delivering', 'failed']);

/**
 * `drained`, as a precondition: when the platform has not delivered through
 * `through` within a drain's time the check cannot go on and is not
 * applicable, saying `why` it needed the delivery and what was queued ahead.
 * A wait that ran out means "not observed yet", never "observed".
 */
export async function ensureDelivered(ctx: CheckContext, receiver: Receiver, why: string, through?: number): Promise<void> {
  const target = through ?? ((await ctx.api.get('/me')).body?.data?.webhook?.last_sequence as number | undefined) ?? 0;
  if (await drained(ctx, receiver, target)) return;
  const ahead = target > 0 ? await backlogAhead(ctx, [target]) : 0;
  throw new NotApplicable(`${why}, and the platform had not delivered and recorded event ${target} after ${describeDrain(ctx)}${ahead > 0 ? ` (${ahead} older undelivered events queued ahead of it)` : ''}`);
}

/** Lets `seconds` of platform time pass (stepped where the control plane can) with nothing to wait for. */
export async function letTimePass(ctx: CheckContext, seconds: number): Promise<void> {
  await waitFor(ctx, () => false, seconds);
}

/** A receiver the platform delivers to, and a way to wait for what it delivers. */
export interface PartnerReceiver {
  receiver: Receiver;
  /** The integration record (`GET /me` data) when the receiver started. */
  me: any;
  /** `waitFor` bound to the check. */
  waitFor(done: () => boolean, seconds: number): Promise<boolean>;
}

/**
 * The receiver of a partner: no platform action is used on a live target
 * without a control plane. Not applicable without a webhook secret, or live
 * without --webhook-public-url and --webhook-listen-port, or when the
 * integration's webhook URL is not that public URL (and no control plane can
 * point it there).
 */
export async function partnerReceiver(ctx: CheckContext): Promise<PartnerReceiver> {
  if (!ctx.target.webhookSecret) throw new NotApplicable('needs the webhook secret (--webhook-secret or webhookSecret in --config)');
  const wait = (done: () => boolean, seconds: number) => waitFor(ctx, done, seconds);
  // In-process registering the receiver is the harness's setup, as a platform team registers theirs; live it is
  // the partner's own receiver behind --webhook-public-url (registered only where a control plane can).
  const receiver = await receiverFor(ctx);
  const me = (await ctx.api.get('/me')).body?.data;
  if (ctx.target.kind === 'live') {
    ctx.cleanup.unshift(async () => {
      // What the check caused is delivered before the receiver goes: a later check must not meet a backlog in back-off.
      receiver.setPolicy(null);
      receiver.setMode('ok');
      const webhook = (await ctx.api.get('/me')).body?.data?.webhook;
      if (webhook && webhook.undelivered_events > 0) await wait(() => receiver.received.some((d) => d.answered === 200 && (d.sequence ?? 0) >= webhook.last_sequence), 30);
    });
  }
  return { receiver, me, waitFor: wait };
}

/**
 * When the receiver got nothing in time, whether older undelivered events
 * are queued ahead of the check's own (a back-off the document does not
 * time): then the wait proves nothing and the check is not applicable.
 */
export async function backlogAhead(ctx: CheckContext, own: number[]): Promise<number> {
  const first = Math.min(...own);
  const rows = (await ctx.api.get('/events', { query: { after_sequence: Math.max(0, first - 201), limit: 200, include_superseded: true } })).body?.data ?? [];
  return rows.filter((r: any) => r.sequence < first && UNSETTLED.has(r.status)).length;
}

/**
 * The check's own events (`own`) were not delivered within a drain. Only a
 * drain of platform time can make that a breach: where the control plane
 * moves the clock, every attempt due in the two hours was made before each
 * step answered. Then it is the breach the caller names, unless older
 * undelivered events are queued ahead of them (a back-off the document does
 * not time, so the wait proves nothing: not applicable). A drain of real
 * time proves nothing either way (the platform, or this machine, may just be
 * slow): not observed (issue 38).
 */
export async function notDelivered(ctx: CheckContext, own: number[], breach: { kind: string; received: string; documented: string; clause: string }): Promise<never> {
  const ahead = own.length > 0 ? await backlogAhead(ctx, own) : 0;
  if (ahead > 0) throw new NotApplicable(`${ahead} older undelivered events are queued ahead of events ${own.join(', ')} after ${describeDrain(ctx)}; the retry schedule is not shown, so the wait proves nothing`);
  if (!ctx.control?.offers('clock.advance')) throw new NotObserved(`the delivery of events ${own.join(', ')} (${breach.documented})`, describeDrain(ctx), 'real time proves no delivery missing: only a clock the control plane steps does');
  return ctx.fail(breach.kind, `${breach.received} (after ${describeDrain(ctx)})`, breach.documented, breach.clause);
}

/** What `watchForAbsence` saw. */
export interface Absence {
  /** The thing that must not happen happened: the caller fails the check. */
  happened: boolean;
  /** Null when the span proved it did not happen; else why the absence is not observed (the caller ends not applicable). */
  unproven: NotObserved | null;
}

/**
 * Watches, for `seconds` of platform time, for something that must not
 * happen (a delivery while paused, or while no URL is registered). Where the
 * control plane moves the clock, the span is stepped and every attempt due
 * in it is made before each step answers, so nothing seen proves nothing
 * came in that much platform time. In real time a quiet span proves nothing
 * (issue 38: a slow platform or machine would pass it): the absence is then
 * not observed, and the caller reports so once it has judged the rest; a
 * breach seen on the way is a breach all the same.
 */
export async function watchForAbsence(ctx: CheckContext, happened: () => boolean, seconds: number, what: string): Promise<Absence> {
  const seen = await waitFor(ctx, happened, seconds);
  if (seen || ctx.control?.offers('clock.advance')) return { happened: seen, unproven: null };
  return { happened: false, unproven: new NotObserved(`that ${what}`, `${seconds} s of real time`, 'a quiet span of real time proves no absence; it takes a clock the control plane steps (clock.advance)') };
}

/** Fails the check with the first problem the receiver recorded, if any. */
export function deliveryBreach(ctx: CheckContext, deliveries: ReceivedDelivery[]): void {
  const bad = deliveries.find((d) => d.problems.length > 0);
  if (!bad) return;
  const problem = bad.problems[0]!;
  const breach = DELIVERY_BREACHES[problem.kind];
  const what = `${bad.type} delivery${bad.sequence === null ? '' : ` of sequence ${bad.sequence}`}`;
  ctx.fail(breach.kind, `${what}: ${problem.detail}${bad.answered === 400 ? ' (refused with 400)' : ''}`, breach.documented, breach.clause);
}
