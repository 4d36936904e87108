/**
 * Issue 29, item 5: what Node's HTTP parser refuses (400 malformed, 431
 * headers too large, 408 too slow, 417 an unmet Expect) is answered with the
 * error envelope by the server the CLI and startSimulator() listen with,
 * never a status line with an empty body.
 */
import { connect, type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { API_ROOT, type UnexpectedError } from './app.ts';
import { createSimulatorServer } from './server.ts';
import { makeHarness } from '../testing.ts';
import { startSimulator } from '../start-simulator.ts';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

async function listening(timeouts = { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 65_000 }): Promise<{ port: number; key: string; unexpected: UnexpectedError[] }> {
  const unexpected: UnexpectedError[] = [];
  const h = makeHarness({ onUnexpectedError: (r) => unexpected.push(r) });
  server = createSimulatorServer(h.sim.app, timeouts);
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  return { port: (server.address() as AddressInfo).port, key: h.fixtures.integrations[0]!.apiKey, unexpected };
}

/** Sends raw bytes and resolves with everything the server wrote before it closed. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? resolve(text) : reject(e)));
    socket.write(bytes);
  });
}

function expectEnvelope(answer: string, status: number, code: string): void {
  expect(answer, answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(body!)).toEqual({ success: false, code, message: expect.any(String), errors: {} });
}

describe('Node-level refusals answer the error envelope', () => {
  it('a request line that is not HTTP → 400 MALFORMED_REQUEST', async () => {
    const { port } = await listening();
    expectEnvelope(await raw(port, 'THIS IS NOT HTTP\r\n\r\n'), 400, 'MALFORMED_REQUEST');
  });

  it('a header with a control character → 400 MALFORMED_REQUEST', async () => {
    const { port, key } = await listening();
    expectEnvelope(await raw(port, `GET ${API_ROOT}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Bad: a\u0001b\r\n\r\n`), 400, 'MALFORMED_REQUEST');
  });

  it('headers over 16 KiB → 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    const { port, key } = await listening();
    expectEnvelope(await raw(port, `GET ${API_ROOT}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'REQUEST_HEADERS_TOO_LARGE');
  });

  it('an Expect other than 100-continue → 417 EXPECTATION_FAILED', async () => {
    const { port, key } = await listening();
    expectEnvelope(await raw(port, `GET ${API_ROOT}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n`), 417, 'EXPECTATION_FAILED');
  });

  it('a request body that never finishes → 408 REQUEST_TIMEOUT, and the cut body is no unexpected error', async () => {
    const { port, key, unexpected } = await listening({ requestMs: 300, headersMs: 200, keepAliveMs: 100 });
    expectEnvelope(await raw(port, `POST ${API_ROOT}/bookings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nIdempotency-Key: slow-body-key-1\r\n`
      + 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"exte'), 408, 'REQUEST_TIMEOUT');
    await new Promise((r) => setTimeout(r, 50));
    expect(unexpected).toEqual([]);
  });

  it('a well-formed request on the same server is answered as usual', async () => {
    const { port, key } = await listening();
    const answer = await raw(port, `GET ${API_ROOT}/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('startSimulator() listens with the same server: a header overflow gets the envelope there too', async () => {
    const running = await startSimulator();
    try {
      const { port } = new URL(running.origin);
      expectEnvelope(await raw(Number(port), `GET ${API_ROOT}/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'REQUEST_HEADERS_TOO_LARGE');
    } finally {
      await running.stop();
    }
  });
});
