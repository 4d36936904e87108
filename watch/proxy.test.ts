import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedExchange } from './exchange.ts';
import { createForwarder, type Forwarder } from './proxy.ts';

const servers: Server[] = [];
const proxies: NetServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const p of proxies.splice(0)) await new Promise((r) => p.close(r));
});

/** The forwarder listening as watch's command runs it. */
async function listenProxy(forwarder: Forwarder): Promise<string> {
  const s = createNetServer({ allowHalfOpen: true }, (socket) => forwarder.accept(socket));
  proxies.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler!);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

function send(url: string, method: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: IncomingHttpHeaders; raw: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: res.rawHeaders, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the proxy forwards without changing anything', () => {
  it('method, path, headers and body go up as sent; status, headers and a streamed body come back as answered; the exchange is reported below the root', async () => {
    const seen: { method?: string; url?: string; headers?: IncomingHttpHeaders; body?: string } = {};
    const upstream = await listen((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
        Object.assign(seen, { method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(418, 'I am a teapot', [['Content-Type', 'application/json'], ['X-Custom', 'a'], ['Set-Cookie', 'x=1'], ['Set-Cookie', 'y=2']]);
        // Streamed in three chunks, the last after a pause: nothing is held back.
        res.write('{"a":');
        res.write('1,');
        setTimeout(() => res.end('"b":2}'), 20);
      });
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const proxy = await listenProxy(forwarder);
    const got = await send(`${proxy}/api/integrations/v1/bookings?x=1`, 'POST', { Authorization: 'Bearer dlk_0123456789abcdef0123', 'Content-Type': 'application/json', 'Idempotency-Key': 'abcdefgh12' }, '{"k":"v"}');
    forwarder.close();
    expect(seen).toMatchObject({ method: 'POST', url: '/api/integrations/v1/bookings?x=1', body: '{"k":"v"}' });
    expect(seen.headers).toMatchObject({ authorization: 'Bearer dlk_0123456789abcdef0123', 'idempotency-key': 'abcdefgh12', 'content-type': 'application/json' });
    expect(got.status).toBe(418);
    expect(got.body).toBe('{"a":1,"b":2}');
    expect(got.headers['x-custom']).toBe('a');
    expect(got.headers['set-cookie']).toEqual(['x=1', 'y=2']);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ kind: 'api', method: 'POST', path: '/bookings?x=1', status: 418, requestBody: '{"k":"v"}', responseBody: '{"a":1,"b":2}' });
    expect(reported[0]!.credential).toMatch(/^key-[0-9a-f]{12}$/);
    expect(reported[0]!.requestHeaders.authorization).toBeUndefined();
  });

  it('a path outside the API root is forwarded and not judged', async () => {
    const upstream = await listen((req, res) => res.end(`at ${req.url}`));
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const proxy = await listenProxy(forwarder);
    const got = await send(`${proxy}/health`, 'GET', {}, '');
    forwarder.close();
    expect(got.body).toBe('at /health');
    expect(reported).toEqual([]);
  });

  it('bad input: an unreachable upstream is answered 502 and reported without an answer', async () => {
    const reported: WatchedExchange[] = [];
    const errors: string[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: 'http://127.0.0.1:9/api/integrations/v1', onExchange: (e) => reported.push(e), onUpstreamError: (m) => errors.push(m) });
    const proxy = await listenProxy(forwarder);
    const got = await send(`${proxy}/api/integrations/v1/me`, 'GET', {}, '');
    forwarder.close();
    expect(got.status).toBe(502);
    expect(errors[0]).toContain('cannot reach http://127.0.0.1:9');
    expect(reported[0]).toMatchObject({ path: '/me', status: null });
  });
});
