/**
 * A loopback webhook receiver for the webhooks suites. In-process, the
 * check registers it through the staff plane; the receiver judges signatures
 * against the simulator's virtual clock.
 */
import { startReceiver, type Receiver } from '../../simulator/webhooks/receiver.ts';
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
