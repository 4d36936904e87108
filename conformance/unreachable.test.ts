/**
 * A connection closed before any answer (a keep-alive socket the server
 * closed as idle just as the request went out) is not an unreachable target:
 * a GET is sent once more (RFC 9110 §9.2.2), by the client and the preflight
 * alike; a create is never resent, and a target that keeps closing is still
 * unreachable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ExchangeLog } from './client.ts';
import { preflight, SetupError } from './preflight.ts';
import { TargetUnreachable } from './unreachable.ts';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A server that destroys the socket of the first `drops` requests before answering, then answers 200. */
async function dropping(drops: number): Promise<{ base: string; requests: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    seen += 1;
    if (seen <= drops) {
      (req.socket as Socket).destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":{}}');
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => seen };
}

const client = (base: string) => new ApiClient({ baseUrl: base, token: 't', secrets: [], log: new ExchangeLog() });

describe('closed before any answer', () => {
  it('a GET is sent once more and its answer used', async () => {
    const s = await dropping(1);
    expect((await client(s.base).get('/me')).status).toBe(200);
    expect(s.requests()).toBe(2);
  });

  it('a GET closed twice is unreachable: one resend, no more', async () => {
    const s = await dropping(2);
    await expect(client(s.base).get('/me')).rejects.toThrow(TargetUnreachable);
    expect(s.requests()).toBe(2);
  });

  it('the preflight sends its GET once more too, and names the cause when that closes as well', async () => {
    const s = await dropping(99);
    const refused = preflight({ baseUrl: `${s.base}/api/integrations/v1`, apiKey: 'k' });
    await expect(refused).rejects.toThrow(SetupError);
    await expect(refused).rejects.toThrow(/cannot reach .*\/me: (UND_ERR_SOCKET|ECONNRESET)/);
    expect(s.requests()).toBe(2);
  });

  it('a POST is never resent (a create may have been made)', async () => {
    const s = await dropping(1);
    await expect(client(s.base).post('/bookings', { body: {} })).rejects.toThrow(/cannot reach .*UND_ERR_SOCKET|ECONNRESET/);
    expect(s.requests()).toBe(1);
  });
});
