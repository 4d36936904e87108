import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedExchange } from './exchange.ts';
import { JUDGING_DELAY_MS, JudgingQueue } from './judging-queue.ts';
import { createForwarder, KEPT_BODY_BYTES, type Forwarder } from './proxy.ts';

const servers: Server[] = [];
const proxies: NetServer[] = [];
const clients: Socket[] = [];
afterEach(async () => {
  // A failed test leaves its client connected: cut it, or the proxy's server would wait on it.
  for (const c of clients.splice(0)) c.destroy();
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

// ---------------------------------------------------------------- at the level of bytes

interface RawClient {
  socket: Socket;
  /** Resolves once the bytes received contain `text` (or `count` answers' worth, by pattern). */
  until(test: (received: string) => boolean): Promise<string>;
  received(): string;
}

function rawClient(url: string): Promise<RawClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const waiters: (() => void)[] = [];
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve({
      socket,
      received: () => text,
      until: (test) => new Promise((res, rej) => {
        const check = () => {
          if (test(text)) res(text);
          else waiters.push(check);
        };
        socket.once('close', () => rej(new Error(`closed; received: ${JSON.stringify(text)}`)));
        check();
      }),
    }));
    clients.push(socket);
    socket.on('data', (b: Buffer) => {
      text += b.toString('latin1');
      for (const w of waiters.splice(0)) w();
    });
    socket.on('error', reject);
  });
}

/** An upstream that sees raw bytes: `answer` is called with each connection's bytes so far and writes what it likes. */
async function rawUpstream(answer: (socket: Socket, received: string) => void): Promise<{ url: string; connections: string[] }> {
  const connections: string[] = [];
  const s = createNetServer((socket) => {
    const i = connections.push('') - 1;
    socket.on('data', (b: Buffer) => {
      connections[i] += b.toString('latin1');
      answer(socket, connections[i]!);
    });
    socket.on('error', () => {});
  });
  proxies.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, connections };
}

/** Long enough for the judging queue's batch. */
const turn = () => new Promise((r) => setTimeout(r, JUDGING_DELAY_MS + 10));

describe('at the level of bytes: watch changes nothing', () => {
  it('the answer passes byte for byte; the request byte for byte but for its Host line', async () => {
    const answer = 'HTTP/1.1 200 OK\r\nx-ODD-case:  spaced value \r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
    const upstream = await rawUpstream((socket, received) => {
      if (received.endsWith('\r\n\r\n')) socket.write(answer);
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream.url}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    const request = 'GET /api/integrations/v1/me?x=1 HTTP/1.1\r\nhost: watch.example:4040\r\nX-Weird:   keep   spacing\r\nauthorization: Bearer dlk_0123456789abcdef0123\r\n\r\n';
    client.socket.write(request);
    expect(await client.until((t) => t.length >= answer.length)).toBe(answer);
    expect(upstream.connections[0]).toBe(request.replace('host: watch.example:4040', `host: ${new URL(upstream.url).host}`));
    client.socket.destroy();
    forwarder.close();
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ path: '/me?x=1', status: 200, responseHeaders: { 'x-odd-case': 'spaced value' }, requestHeaders: { 'x-weird': 'keep   spacing' } });
    expect(reported[0]!.requestHeaders.authorization).toBeUndefined();
  });

  it('pipelined requests go up as they come and are answered in order, each judged', async () => {
    const upstream = await listen((req, res) => {
      // The first answer is the slowest: order is the connection's, not the upstream's pace.
      setTimeout(() => res.end(`at ${req.url}`), req.url!.endsWith('/a') ? 40 : 0);
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    const get = (p: string) => `GET /api/integrations/v1/${p} HTTP/1.1\r\nHost: w\r\n\r\n`;
    client.socket.write(get('a') + `POST /api/integrations/v1/b HTTP/1.1\r\nHost: w\r\nContent-Length: 3\r\n\r\nxyz` + get('c'));
    const text = await client.until((t) => t.includes('at /api/integrations/v1/c'));
    expect(text.indexOf('at /api/integrations/v1/a')).toBeLessThan(text.indexOf('at /api/integrations/v1/b'));
    expect(text.indexOf('at /api/integrations/v1/b')).toBeLessThan(text.indexOf('at /api/integrations/v1/c'));
    await turn();
    expect(reported.map((e) => `${e.method} ${e.path} ${e.requestBody}`)).toEqual(['GET /a ', 'POST /b xyz', 'GET /c ']);
    client.socket.destroy();
    forwarder.close();
  });

  it('a chunked answer streams: its first chunk reaches the client before the upstream has finished', async () => {
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first;');
      void finished.then(() => res.end('second'));
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    client.socket.write('GET /api/integrations/v1/stream HTTP/1.1\r\nHost: w\r\n\r\n');
    await client.until((t) => t.includes('first;'));
    expect(reported).toEqual([]);
    finish();
    await client.until((t) => t.endsWith('0\r\n\r\n'));
    await turn();
    expect(reported[0]).toMatchObject({ status: 200, responseBody: 'first;second' });
    client.socket.destroy();
    forwarder.close();
  });

  it("watch's own endpoint is answered on the proxy's port in its turn, behind a pipelined request, and never forwarded", async () => {
    const upstream = await listen((req, res) => setTimeout(() => res.end(`at ${req.url}`), 30));
    const forwarder = createForwarder({
      kind: 'api', upstream: `${upstream}/api/integrations/v1`, onExchange: () => {},
      answerLocally: (target) => (target.startsWith('/__watch/status') ? () => ({ status: 200, contentType: 'application/json', body: '{"watch":true}' }) : undefined),
    });
    const client = await rawClient(await listenProxy(forwarder));
    client.socket.write('GET /api/integrations/v1/slow HTTP/1.1\r\nHost: w\r\n\r\nGET /__watch/status HTTP/1.1\r\nHost: w\r\n\r\nGET /api/integrations/v1/after HTTP/1.1\r\nHost: w\r\n\r\n');
    const text = await client.until((t) => t.includes('at /api/integrations/v1/after'));
    expect(text.indexOf('at /api/integrations/v1/slow')).toBeLessThan(text.indexOf('{"watch":true}'));
    expect(text.indexOf('{"watch":true}')).toBeLessThan(text.indexOf('at /api/integrations/v1/after'));
    client.socket.destroy();
    forwarder.close();
  });

  it('keep-alive: one upstream connection per client connection; after the upstream closes while idle, the next request goes up on a new one', async () => {
    // An upstream that closes a connection once it has been idle a moment (as a keep-alive time-out does).
    const upstream = await rawUpstream((socket, received) => {
      const answered = (socket as Socket & { answered?: number }).answered ?? 0;
      const asked = received.split('\r\n\r\n').length - 1;
      for (let i = answered; i < asked; i++) socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nanswer`);
      (socket as Socket & { answered?: number }).answered = asked;
      clearTimeout((socket as Socket & { idle?: NodeJS.Timeout }).idle);
      (socket as Socket & { idle?: NodeJS.Timeout }).idle = setTimeout(() => socket.end(), 150);
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream.url}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    const get = (p: string) => `GET /api/integrations/v1/${p} HTTP/1.1\r\nHost: w\r\n\r\n`;
    const answers = (n: number) => (t: string) => t.split('answer').length - 1 >= n;
    client.socket.write(get('one'));
    await client.until(answers(1));
    client.socket.write(get('two'));
    await client.until(answers(2));
    expect(upstream.connections).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 400));
    client.socket.write(get('three'));
    await client.until(answers(3));
    expect(upstream.connections).toHaveLength(2);
    await turn();
    expect(reported.map((e) => e.path)).toEqual(['/one', '/two', '/three']);
    client.socket.destroy();
    forwarder.close();
  });

  it('the webhook forwarder posts every request to the endpoint itself, whatever path it came on', async () => {
    const upstream = await listen((req, res) => res.end(`at ${req.url}`));
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'delivery', upstream: `${upstream}/hooks/in?x=1`, exactTarget: true, onExchange: (e) => reported.push(e) });
    const got = await send(`${await listenProxy(forwarder)}/webhook`, 'POST', { 'Content-Type': 'application/json', 'X-Service-Integration': 'acme' }, '{"a":1}');
    forwarder.close();
    expect(got.body).toBe('at /hooks/in?x=1');
    expect(reported[0]).toMatchObject({ kind: 'delivery', path: '/webhook', requestBody: '{"a":1}', requestHeaders: { 'x-service-integration': 'acme' } });
  });

  it(`a body longer than ${KEPT_BODY_BYTES} bytes is forwarded whole and judged as truncated`, async () => {
    const upstream = await listen((req, res) => {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length)).on('end', () => res.end(String(n)));
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const big = 'x'.repeat(KEPT_BODY_BYTES + 500_000);
    const got = await send(`${await listenProxy(forwarder)}/api/integrations/v1/sync`, 'POST', { 'Content-Type': 'application/json' }, big);
    forwarder.close();
    expect(got.body).toBe(String(big.length));
    expect(reported[0]!.truncated).toBe(true);
    expect(reported[0]!.requestBody).toHaveLength(KEPT_BODY_BYTES);
  });

  it('an upgrade: 101, then the bytes of the tunnel both ways', async () => {
    const upstream = await rawUpstream((socket, received) => {
      if (received.endsWith('\r\n\r\n')) socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
      else if (received.includes('\r\n\r\n')) socket.write(`echo:${received.slice(received.indexOf('\r\n\r\n') + 4)}`);
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream.url}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    client.socket.write('GET /api/integrations/v1/ws HTTP/1.1\r\nHost: w\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
    await client.until((t) => t.includes('101 Switching Protocols'));
    client.socket.write('GET / HTTP/1.1 not http');
    expect(await client.until((t) => t.includes('echo:'))).toContain('echo:GET / HTTP/1.1 not http');
    await turn();
    expect(reported.map((e) => e.status)).toEqual([101]);
    client.socket.destroy();
    forwarder.close();
  });

  it('bad input: an answer watch cannot read is passed on unread, said once, and not judged', async () => {
    const garbage = 'HTTP/1.1 200 OK\r\nContent-Length: twelve\r\n\r\nhello, world';
    const upstream = await rawUpstream((socket, received) => {
      if (received.endsWith('\r\n\r\n')) socket.write(garbage);
    });
    const reported: WatchedExchange[] = [];
    const unread: string[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream.url}/api/integrations/v1`, onExchange: (e) => reported.push(e), onUnread: (m) => unread.push(m) });
    const client = await rawClient(await listenProxy(forwarder));
    client.socket.write('GET /api/integrations/v1/me HTTP/1.1\r\nHost: w\r\n\r\n');
    expect(await client.until((t) => t.length >= garbage.length)).toBe(garbage);
    await turn();
    expect(unread).toHaveLength(1);
    expect(unread[0]).toMatch(/Content-Length/);
    expect(reported).toEqual([]);
    client.socket.destroy();
    forwarder.close();
  });

  it('bad input: a judge that throws does not stop forwarding', async () => {
    const upstream = await listen((req, res) => res.end(`at ${req.url}`));
    const judging = new JudgingQueue();
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream}/api/integrations/v1`, judging, onExchange: () => {
      throw new Error('a bug of the judge');
    } });
    const proxy = await listenProxy(forwarder);
    for (const p of ['one', 'two']) expect((await send(`${proxy}/api/integrations/v1/${p}`, 'GET', {}, '')).body).toBe(`at /api/integrations/v1/${p}`);
    forwarder.close();
    expect(judging.failures).toBe(2);
  });

  it('a client that goes away takes its upstream request with it; the exchange is reported without an answer', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    const upstream = await listen((req) => req.socket.on('close', () => upstreamClosed()));
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'delivery', upstream: `${upstream}/webhook`, exactTarget: true, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    client.socket.write('POST /webhook HTTP/1.1\r\nHost: w\r\nContent-Length: 2\r\n\r\n{}');
    await new Promise((r) => setTimeout(r, 50));
    client.socket.destroy();
    await closed;
    for (let i = 0; i < 60_000 && reported.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reported[0]).toMatchObject({ kind: 'delivery', status: null, requestBody: '{}' });
    forwarder.close();
  });

  it('an answer cut short by a close is reported as truncated: its status judged, not its bytes', async () => {
    const upstream = await rawUpstream((socket, received) => {
      if (received.endsWith('\r\n\r\n')) socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"success":');
    });
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `${upstream.url}/api/integrations/v1`, onExchange: (e) => reported.push(e) });
    const client = await rawClient(await listenProxy(forwarder));
    client.socket.write('GET /api/integrations/v1/me HTTP/1.1\r\nHost: w\r\n\r\n');
    await client.until((t) => t.includes('{"success":'));
    client.socket.destroy();
    for (let i = 0; i < 60_000 && reported.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reported[0]).toMatchObject({ status: 200, responseBody: '{"success":', truncated: true });
    forwarder.close();
  });

  // A certificate made for this test alone (openssl, where it is installed): no key is kept in the repository.
  const tlsDir = mkdtempSync(join(tmpdir(), 'watch-tls-'));
  const openssl = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(tlsDir, 'key.pem'), '-out', join(tlsDir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
  it.skipIf(openssl.status !== 0)('an https upstream: the same bytes, over TLS to the upstream', async () => {
    const upstream = createHttpsServer({ key: readFileSync(join(tlsDir, 'key.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')) }, (req, res) => res.end(`at ${req.url} for ${req.headers.host}`));
    servers.push(upstream as unknown as Server);
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    const reported: WatchedExchange[] = [];
    const forwarder = createForwarder({ kind: 'api', upstream: `https://localhost:${port}/api/integrations/v1`, upstreamCa: readFileSync(join(tlsDir, 'cert.pem')), onExchange: (e) => reported.push(e) });
    const got = await send(`${await listenProxy(forwarder)}/api/integrations/v1/me`, 'GET', {}, '');
    expect(got.body).toBe(`at /api/integrations/v1/me for localhost:${port}`);
    forwarder.close();
    expect(reported[0]).toMatchObject({ path: '/me', status: 200 });
  });
});
