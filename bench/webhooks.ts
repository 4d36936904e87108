/**
 * Webhook delivery rate to a loopback receiver that answers at once, one
 * event at a time in sequence order (§6.2), through the real fetch transport.
 */
import { makeHarness } from '../simulator/testing.ts';
import { startReceiver } from '../simulator/webhooks/receiver.ts';

export async function benchWebhooks(events = 5000): Promise<{ events: number; seconds: number; perSecond: number }> {
  const h = makeHarness();
  const integration = h.sim.store.get('integrations', '1')!;
  const property = h.sim.store.get('properties', String(h.fixtures.integrations[0]!.properties[0]!.doorloom_id))!;
  h.sim.store.transaction((tx) => {
    for (let i = 0; i < events; i++) {
      h.sim.eventLog.append(tx, integration, { type: 'booking.changed', property, from: '2026-10-01', to: '2026-10-01', data: { id: i, note: 'bench' }, booking_id: 1_000_000 + i });
    }
  });
  const receiver = await startReceiver({ secrets: [h.fixtures.integrations[0]!.webhookSecret], nowSeconds: () => Math.floor(h.sim.clock.now() / 1000) });
  try {
    h.sim.store.transaction((tx) => {
      const i = tx.get('integrations', '1')!;
      tx.put('integrations', '1', { ...i, webhook: { ...i.webhook, url: receiver.url } });
    });
    const t0 = process.hrtime.bigint();
    await h.sim.webhooks.settle();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const ok = receiver.received.filter((d) => d.answered === 200).length;
    if (ok !== events) throw new Error(`delivered ${ok} of ${events}`);
    return { events, seconds, perSecond: events / seconds };
  } finally {
    await receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchWebhooks(), null, 2));
}
