/**
 * The runner's webhook receivers. `receiverFor` (staff checks) registers a
 * loopback receiver through the staff plane and judges signatures against the
 * simulator's virtual clock. `partnerReceiver` is what a partner has: on a
 * live target, the receiver behind --webhook-public-url that the platform
 * already delivers to; in-process, the same receiver registered as the
 * harness's setup. Either way the receiver records every delivery it refuses
 * with the reason, and `deliveryBreach` turns the first recorded problem into
 * the check failure that names it.
 */
import { startReceiver, type DeliveryProblem, type ReceivedDelivery, type Receiver } from '../../simulator/webhooks/receiver.ts';
import type { CheckContext } from '../check.ts';
import { NotApplicable } from '../check.ts';

export async function receiverFor(ctx: CheckContext, secrets?: string[]): Promise<Receiver> {
  const sim = ctx.target.simulator;
  if (!sim || !ctx.staff) throw new NotApplicable('needs the in-process simulator to register a loopback receiver');
  const receiver = await startReceiver({
    secrets: secrets ?? [ctx.target.webhookSecret!],
    slug: (await ctx.api.get('/me')).body.data.slug,
    nowSeconds: () => Math.floor(sim.clock.now() / 1000),
  });
  const res = await ctx.staff.request('PUT', '/integrations/1/webhook', { body: { url: receiver.url } });
  if (res.status !== 200) throw new Error(`could not register the receiver: ${res.status}`);
  ctx.cleanup.push(() => receiver.close());
  return receiver;
}

/** A receiver the platform delivers to, and a way to wait for what it delivers. */
export interface PartnerReceiver {
  receiver: Receiver;
  /** The integration record (`GET /me` data) when the receiver started. */
  me: any;
  /**
   * Waits until `done()` holds, at most `seconds`: real time on a live target;
   * on the in-process simulator its delivery worker is stepped through the
   * same span of virtual time (retries included), so nothing waits for real.
   */
  waitFor(done: () => boolean, seconds: number): Promise<boolean>;
}

/**
 * The receiver of a partner: no staff power is used on a live target. Not
 * applicable without a webhook secret, or live without --webhook-public-url
 * and --webhook-listen-port, or when the integration's webhook URL is not
 * that public URL.
 */
export async function partnerReceiver(ctx: CheckContext): Promise<PartnerReceiver> {
  const secret = ctx.target.webhookSecret;
  if (!secret) throw new NotApplicable('needs the webhook secret (--webhook-secret or webhookSecret in --config)');
  const sim = ctx.target.simulator;
  if (sim && ctx.staff) {
    // In-process: registering the receiver is the harness's setup, as a platform team registers theirs.
    const receiver = await receiverFor(ctx);
    const me = (await ctx.api.get('/me')).body.data;
    return {
      receiver, me,
      async waitFor(done, seconds) {
        for (let i = 0; i < seconds && !done(); i++) await sim.webhooks.advance(1000);
        return done();
      },
    };
  }
  const hook = ctx.target.webhook;
  if (!hook) throw new NotApplicable('needs --webhook-public-url and --webhook-listen-port: the URL the platform delivers to and the local port behind it');
  const me = (await ctx.api.get('/me')).body?.data;
  if (me?.webhook?.url !== hook.publicUrl) throw new NotApplicable(`the integration's webhook URL is ${me?.webhook?.url ?? 'not set'}, not --webhook-public-url ${hook.publicUrl}`);
  const receiver = await startReceiver({ secrets: [secret], slug: me.slug, port: hook.listenPort });
  const waitFor = async (done: () => boolean, seconds: number) => {
    for (let i = 0; i < seconds * 10 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
    return done();
  };
  ctx.cleanup.push(async () => {
    // What the check caused is delivered before the receiver goes: a later check must not meet a backlog in back-off.
    receiver.setPolicy(null);
    receiver.setMode('ok');
    const webhook = (await ctx.api.get('/me')).body?.data?.webhook;
    if (webhook && webhook.undelivered_events > 0) await waitFor(() => receiver.received.some((d) => d.answered === 200 && (d.sequence ?? 0) >= webhook.last_sequence), 30);
  }, () => receiver.close());
  return { receiver, me, waitFor };
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
