/**
 * Issue 17, defect 8: staff actions that take no body refuse one; every
 * non-bare 404 is the error envelope; the server's request and header
 * time-outs answer a slow client 408 instead of holding it 300 s.
 */
import { connect } from 'node:net';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { API_ROOT } from './app.ts';
import { applyTimeouts, SERVER_TIMEOUTS } from './server-timeouts.ts';
import { createSimulatorServer } from './server.ts';
import { STAFF_ROOT } from '../staff/routes.ts';
import { makeHarness } from '../testing.ts';

describe('staff actions that take no body refuse one, and do nothing', () => {
  const actions = [
    '/integrations/1/rotate-api-key', '/integrations/1/rotate-webhook-secret', '/integrations/1/pause', '/integrations/1/resume',
    '/integrations/1/disable', '/integrations/1/enable', '/integrations/1/ping', '/properties/101/archive', '/properties/101/unarchive',
    '/units/1001/deactivate', '/units/1001/activate',
  ];

  it.each(actions)('POST %s with random bytes as text/plain → 422 on _body, nothing changed', async (path) => {
    const h = makeHarness();
    const before = JSON.stringify((await h.staff('get', '/world')));
    const keyBefore = h.fixtures.integrations[0]!.apiKey;
    const res = await h.http.post(STAFF_ROOT + path).set('Authorization', `Bearer ${h.fixtures.staffToken}`).set('Content-Type', 'text/plain').send('\u0007garbage\u0000bytes');
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', errors: { _body: ['This action takes no body.'] } });
    expect(JSON.stringify(await h.staff('get', '/world'))).toBe(before);
    expect((await h.api('get', '/me', keyBefore)).status, 'the key was not rotated').toBe(200);
  });

  it.each([
    ['a JSON body that asks for something', 'application/json', '{"force":true}'],
    ['a JSON array', 'application/json', '[]'],
    ['{} as text/plain', 'text/plain', '{}'],
  ])('refuses %s too', async (_name, type, text) => {
    const h = makeHarness();
    const res = await h.http.post(`${STAFF_ROOT}/integrations/1/rotate-api-key`).set('Authorization', `Bearer ${h.fixtures.staffToken}`).set('Content-Type', type).send(text);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors).toEqual({ _body: ['This action takes no body.'] });
  });

  it('the same actions without a body, or with an empty JSON object, still work', async () => {
    const h = makeHarness();
    for (const path of actions.filter((p) => !p.endsWith('/ping'))) {
      const bare = await h.http.post(STAFF_ROOT + path).set('Authorization', `Bearer ${h.fixtures.staffToken}`);
      expect(bare.status, `${path}: ${bare.text}`).toBe(200);
      const empty = await h.http.post(STAFF_ROOT + path).set('Authorization', `Bearer ${h.fixtures.staffToken}`).send({});
      expect(empty.status, `${path}: ${empty.text}`).toBe(200);
    }
  });
});

describe('the error envelope on every 404 but the switched-off API', () => {
  it.each(['/', '/nope', '/api', `${STAFF_ROOT}/nope`, `${STAFF_ROOT}/integrations/1/nope`, `${API_ROOT}/nope`])('GET %s → 404 NOT_FOUND envelope', async (path) => {
    const h = makeHarness();
    const res = await h.http.get(path).set('Authorization', `Bearer ${h.fixtures.staffToken}`);
    expect(res.status).toBe(404);
    expect(res.type).toBe('application/json');
    expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String), errors: {} });
  });

  it('§5.6: with the API switched off, its routes answer a bare 404 (and other paths still the envelope)', async () => {
    const h = makeHarness();
    await h.staff('put', '/api', { enabled: false });
    const api = await h.api('get', '/me');
    expect(api.status).toBe(404);
    expect(api.text).toBe('');
    const other = await h.http.get('/nope');
    expect(other.body.code).toBe('NOT_FOUND');
  });
});

describe('server time-outs', () => {
  it('are set, shorter than Node\'s 300 s default', () => {
    const server = applyTimeouts(createServer());
    expect(server.requestTimeout).toBe(SERVER_TIMEOUTS.requestMs);
    expect(server.headersTimeout).toBe(SERVER_TIMEOUTS.headersMs);
    expect(SERVER_TIMEOUTS.requestMs).toBeLessThan(300_000);
    expect(SERVER_TIMEOUTS.headersMs).toBeLessThanOrEqual(SERVER_TIMEOUTS.requestMs);
  });

  it('a request body that never finishes is answered 408 and the socket closed', async () => {
    const h = makeHarness();
    const server = applyTimeouts(createServer(h.sim.app.callback()), { requestMs: 300, headersMs: 200, keepAliveMs: 100 });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (d) => (text += d.toString('latin1')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.write(`POST ${API_ROOT}/bookings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.fixtures.integrations[0]!.apiKey}\r\nIdempotency-Key: slow-body-key-1\r\n`
          + 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"exte');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      server.close();
    }
  });
});

describe('the idle limit of the listening server is not announced', () => {
  /** The raw head of the answer to one request carrying `connection`, over a plain socket. */
  async function head(connection: string | null, version = '1.1'): Promise<string> {
    const h = makeHarness();
    const server = createSimulatorServer(h.sim.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await new Promise<string>((resolve, reject) => {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
          const end = text.indexOf('\r\n\r\n');
          if (end !== -1) {
            socket.destroy();
            resolve(text.slice(0, end));
          }
        });
        socket.on('error', reject);
        socket.write(`GET ${API_ROOT}/me HTTP/${version}\r\nHost: x\r\n${connection === null ? '' : `Connection: ${connection}\r\n`}\r\n`);
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it('an HTTP/1.1 answer names its connection keep-alive with no Keep-Alive timeout (fetch would reuse a socket until 2 s before it)', async () => {
    const text = await head(null);
    expect(text).toMatch(/^connection: keep-alive$/im);
    expect(text).not.toMatch(/^keep-alive:/im);
  });

  it('a request that closes its connection is answered close, as Node does', async () => {
    expect(await head('close')).toMatch(/^connection: close$/im);
  });
});
