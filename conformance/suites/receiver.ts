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
import { startReceiver, type DeliveryProblem, type ReceivedDelivery, type Receiver } from '../../simulator/webhooks/receiver.ts';
import type { CheckContext } from '../check.ts';
import { NotApplicable } from '../check.ts';

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
 * already points there (then a partner's own setup is enough).
 */
export async function receiverFor(ctx: CheckContext, secrets?: string[]): Promise<Receiver> {
  const control = ctx.control;
  const hook = ctx.target.kind === 'live' ? ctx.target.webhook : null;
  if (ctx.target.kind === 'live' && !hook) throw new NotApplicable('needs --webhook-public-url and --webhook-listen-port: the URL the platform can reach and the local port behind it');
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
  if (register) await control!.setWebhookUrl(hook ? hook.publicUrl : receiver.url);
  ctx.cleanup.push(async () => {
    // Live, the integration's webhook goes back where it pointed before the check.
    if (hook && register && before) await control!.setWebhookUrl(before);
  }, () => receiver.close());
  return receiver;
}

/**
 * Waits (see `waitFor`) until the receiver accepted a delivery at or past
 * the integration's latest sequence as `GET /me` shows it now; false when it
 * did not within `seconds`.
 */
export async function deliveredThrough(ctx: CheckContext, receiver: Receiver, seconds: number): Promise<boolean> {
  const last = (await ctx.api.get('/me')).body?.data?.webhook?.last_sequence as number | undefined;
  if (typeof last !== 'number' || last === 0) return true;
  if (!(await waitFor(ctx, () => receiver.received.some((d) => d.answered === 200 && (d.sequence ?? 0) >= last), seconds))) return false;
  // The platform records a delivery once the 2xx has reached it; until then the event is still undelivered
  // (§3.3: it may yet be superseded), so a check that acts next waits for the record, not only the receiver.
  for (const end = Date.now() + seconds * 1000; ;) {
    const row: any = (await ctx.api.get('/events', { query: { after_sequence: last - 1, limit: 1, include_superseded: true } })).body?.data?.[0];
    if (!row || row.sequence !== last || row.delivered_at !== null || !['pending', 'delivering', 'failed'].includes(row.status)) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
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
  return rows.filter((r: any) => r.sequence < first && ['pending', 'failed', 'delivering'].includes(r.status)).length;
}

/** How each receiver problem is reported: the failure kind, what the document says, the clause. */
const BREACHES: Record<DeliveryProblem['kind'], { kind: string; documented: string; clause: string }> = {
  'bad-signature': { kind: 'SignatureInvalid', documented: 'X-Service-Signature t=…,v1=HMAC-SHA256(secret, "t.body") verifying with the webhook secret (check --webhook-secret if every delivery fails)', clause: '5.R4' },
  'stale-timestamp': { kind: 'SignatureStale', documented: 'the signature timestamp is the time of sending, within 300 s of the receiver clock', clause: '2.2.R1' },
  'missing-integration-header': { kind: 'IntegrationHeaderMissing', documented: 'X-Service-Integration: the integration slug on every webhook', clause: '6.R3' },
  'wrong-integration-header': { kind: 'IntegrationHeaderWrong', documented: 'X-Service-Integration: the integration slug on every webhook', clause: '6.R3' },
  'out-of-order': { kind: 'DeliveryOvertook', documented: 'one at a time in sequence order, each waiting for a 2xx', clause: '6.R2a' },
};

/** Fails the check with the first problem the receiver recorded, if any. */
export function deliveryBreach(ctx: CheckContext, deliveries: ReceivedDelivery[]): void {
  const bad = deliveries.find((d) => d.problems.length > 0);
  if (!bad) return;
  const problem = bad.problems[0]!;
  const breach = BREACHES[problem.kind];
  const what = `${bad.type} delivery${bad.sequence === null ? '' : ` of sequence ${bad.sequence}`}`;
  ctx.fail(breach.kind, `${what}: ${problem.detail}${bad.answered === 400 ? ' (refused with 400)' : ''}`, breach.documented, breach.clause);
}
