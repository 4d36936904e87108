/**
 * The default transport against real loopback node:http servers: the outcome
 * of each way a post can end (§6.2 counts only a 2xx as acknowledged), and
 * the kept-alive connection that makes one-at-a-time delivery fast.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport } from './transport.ts';

interface Loopback {
  url: string;
  server: Server;
  connections: number;
  bodies: string[];
}

const servers: Server[] = [];

async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      loopback.bodies.push(Buffer.concat(chunks).toString('utf8'));
      answer(req, res);
    });
  });
  const loopback: Loopback = { url: '', server, connections: 0, bodies: [] };
  server.on('connection', () => void (loopback.connections += 1));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  loopback.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  servers.push(server);
  return loopback;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  }
});

const JSON_HEADERS = { 'Content-Type': 'application/json' };

describe('the node:http transport', () => {
  it('an answer is its status, and the body arrives whole', async () => {
    const hook = await serve((_req, res) => res.writeHead(204).end());
    const body = JSON.stringify({ type: 'ping', note: 'ünïcödé' });
    expect(await httpTransport.post(hook.url, JSON_HEADERS, body, 60_000)).toEqual({ status: 204 });
    expect(hook.bodies).toEqual([body]);
  });

  it('posts one after another to a receiver reuse one kept-alive connection', async () => {
    const hook = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'));
    for (let i = 0; i < 5; i++) expect(await httpTransport.post(hook.url, JSON_HEADERS, `{"sequence":${i + 1}}`, 60_000)).toEqual({ status: 200 });
    expect(hook.bodies).toHaveLength(5);
    expect(hook.connections).toBe(1);
  });

  it('no answer within the time-out is an outcome without a status, and the post is abandoned', async () => {
    const hook = await serve(() => undefined);
    // Abandoned, not waited out: the hook never answers, so only the transport can close the connection (waited for as
    // an event, never timed: a slow machine makes it later, not red).
    const closed = new Promise<void>((ok) => hook.server.once('connection', (socket: Socket) => socket.once('close', () => ok())));
    expect(await httpTransport.post(hook.url, JSON_HEADERS, '{}', 100)).toEqual({ error: 'no answer within 100 ms' });
    await closed;
  });

  it('an answer whose body is still arriving at the time-out keeps its status', async () => {
    const hook = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
    });
    expect(await httpTransport.post(hook.url, JSON_HEADERS, '{}', 100)).toEqual({ status: 200 });
  });

  it('a refused connection is an outcome without a status that says so', async () => {
    const hook = await serve(() => undefined);
    const url = hook.url;
    await new Promise<void>((ok) => hook.server.close(() => ok()));
    const outcome = await httpTransport.post(url, JSON_HEADERS, '{}', 1_000);
    expect(outcome).toEqual({ error: expect.stringContaining('ECONNREFUSED') });
  });

  it('a redirect is an answer like any other: it is not followed', async () => {
    const target = await serve((_req, res) => res.writeHead(200).end());
    const hook = await serve((_req, res) => res.writeHead(307, { Location: target.url }).end());
    expect(await httpTransport.post(hook.url, JSON_HEADERS, '{}', 60_000)).toEqual({ status: 307 });
    expect(target.bodies).toEqual([]);
  });

  it('a URL that cannot be posted to is an outcome without a status', async () => {
    expect(await httpTransport.post('ftp://127.0.0.1/hook', JSON_HEADERS, '{}', 60_000)).toEqual({ error: 'unsupported webhook URL scheme ftp:' });
    expect(await httpTransport.post('not a url', JSON_HEADERS, '{}', 60_000)).toEqual({ error: expect.stringContaining('Invalid URL') });
  });
});
