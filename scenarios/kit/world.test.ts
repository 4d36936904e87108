/**
 * The live world on real time (issue 38): waiting for the platform to deliver
 * ends on the event (the partner's cursor at the latest sequence), and a cap
 * that runs out is "not observed", never a failure of the scenario. Before,
 * it threw an error after 60 s and the scenario failed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ScenarioNotObserved } from './not-observed.ts';
import { LiveWorld } from './world.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((ok) => s.close(() => ok()));
});

/** A deployment whose latest sequence is `latest`: enough of the partner API for the live world to open and wait. */
async function deployment(latest: () => number, hook: string): Promise<string> {
  const server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname.replace('/api/integrations/v1', '');
    const data = path === '/me' ? { id: 1, slug: 'acme', webhook: { url: hook } } : [];
    const extra = path === '/events' ? { cursor: { after_sequence: 0, next_after_sequence: 0, has_more: false, latest_sequence: latest(), retention_days: 30 } }
      : path === '/properties' ? { pagination: { page: 1, per_page: 200, total: 0, last_page: 1 } } : {};
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: true, message: 'ok', data, ...extra }));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/integrations/v1`;
}

describe('LiveWorld.deliver', () => {
  const hook = 'https://partner.example/hooks';
  const options = (baseUrl: string, deliverTimeoutMs: number) => ({ baseUrl, apiKey: 'dlk_x', webhookSecret: 'whsec_x', webhookPublicUrl: hook, deliverTimeoutMs });

  it('returns once the partner\'s cursor reaches the latest sequence, however late within the cap', async () => {
    const world = await LiveWorld.open(options(await deployment(() => 9, hook), 300_000));
    let cursor = 4;
    setTimeout(() => (cursor = 9), 600);
    await world.deliver(() => cursor);
    expect(cursor).toBe(9);
  });

  it('a cap that runs out is not observed, naming the sequence awaited and the partner\'s cursor', async () => {
    const world = await LiveWorld.open(options(await deployment(() => 9, hook), 300));
    const e = await world.deliver(() => 4).catch((x) => x);
    expect(e).toBeInstanceOf(ScenarioNotObserved);
    expect(e.message).toBe("not observed: the platform's delivery of every event up to sequence 9 to the partner (its cursor 4), after 0.3 s of real time");
  });
});
