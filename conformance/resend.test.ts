/**
 * RFC 9110 §9.2.2: a request whose connection closed before any answer came is sent once more when it is
 * idempotent (GET, PUT and DELETE by their method; a POST where its caller says it is idempotent by its meaning:
 * the clock advance of 0 s that sends what is due, a pause, a resume; a create under a usable Idempotency-Key, by the
 * document's word, §4.5 rules 1 and 3), and a non-idempotent one is not: its failure
 * says so, since the platform may or may not have applied it. One rule (resend.ts), run here against every client that
 * calls a platform: the partner API client and the preflight, the control plane (control.ts), certify's staff plane
 * (certify/stage.ts) and the scenarios' staff (scenarios/kit/staff.ts).
 *
 * Why: a busy server closes a keep-alive socket as idle just as a request goes out on it, or resets it (certify's
 * end-to-end test on a loaded machine: "staff POST /clock/advance at … gave no answer: ECONNRESET"). The servers here
 * close the connection of chosen requests on purpose, before any answer byte, so each case decides the same on any
 * machine.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRunningStage } from '../certify/stage.ts';
import { Staff } from '../scenarios/kit/staff.ts';
import { ApiClient, ExchangeLog } from './client.ts';
import { keyedCreate, resendable } from './resend.ts';
import { CONTROL_ACTIONS, ControlClient } from './control.ts';
import { preflight, SetupError } from './preflight.ts';
import { TargetUnreachable } from './unreachable.ts';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** How a server loses a request: `closed` ends the socket (undici: UND_ERR_SOCKET), `reset` resets it (ECONNRESET). */
type Loss = 'closed' | 'reset';

interface Platform {
  origin: string;
  /** Requests that reached the server, `METHOD /path`, lost ones included. */
  seen: string[];
  /** How many requests reached `METHOD /path…` (a path ending the one asked). */
  count(method: string, tail: string): number;
}

/**
 * A server that loses the first `times` requests `lost` picks, before any answer byte, and answers every other one
 * 200 with a body every client reads (a clock, a slug).
 */
async function platform(lost: (req: IncomingMessage) => boolean, times = 1, how: Loss = 'closed'): Promise<Platform> {
  const seen: string[] = [];
  let dropped = 0;
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    if (dropped < times && lost(req)) {
      dropped += 1;
      const socket = req.socket as Socket;
      if (how === 'reset') socket.resetAndDestroy();
      else socket.destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: true, message: 'Done.', data: { epoch_ms: 1_800_000_000_000, slug: 'demo' } }));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    count: (method, tail) => seen.filter((s) => s.startsWith(`${method} `) && s.endsWith(tail)).length,
  };
}

const to = (method: string, tail: string) => (req: IncomingMessage) => req.method === method && (req.url ?? '').split('?')[0]!.endsWith(tail);

const client = (base: string) => new ApiClient({ baseUrl: base, token: 't', secrets: [], log: new ExchangeLog() });

/** What each staff or control client is asked to do, in its own API. */
interface PlaneClient {
  /** Moves the platform's clock `seconds` forward (0: sends what is due, moves nothing). */
  advance(seconds: number): Promise<unknown>;
  /** A PUT: sets the integration's rate limit. */
  put(): Promise<unknown>;
}

function controlClient(origin: string): ControlClient {
  const log = new ExchangeLog();
  const api = new ApiClient({ baseUrl: `${origin}/api/integrations/v1`, token: 'k', secrets: [], log });
  return new ControlClient({ url: `${origin}/_control/v1`, token: 'c', actions: [...CONTROL_ACTIONS] }, api, log, []);
}

const certifyStaff = async (origin: string) => (await connectRunningStage(`${origin}/api/integrations/v1`, 'stf')).staff;

const PLANE_CLIENTS: [string, (origin: string) => Promise<PlaneClient>][] = [
  ['the control plane (conformance/control.ts)', async (origin) => {
    const control = controlClient(origin);
    return { advance: (s) => control.advanceClock(s), put: () => control.setRateLimit(10, 60) };
  }],
  ["certify's staff plane (certify/stage.ts)", async (origin) => {
    const staff = await certifyStaff(origin);
    return {
      // As certify's drained() asks for what is due: a clock advance of 0 s, said idempotent by its caller.
      advance: (s) => staff('POST', '/clock/advance', { seconds: s }, { idempotent: s === 0 }),
      put: () => staff('PUT', '/integrations/1/rate-limit', { limit: 10, window_seconds: 60 }),
    };
  }],
  ["the scenarios' staff (scenarios/kit/staff.ts)", async (origin) => {
    const staff = new Staff(`${origin}/_staff`, 'stf', null);
    return { advance: (s) => staff.advanceClock(s), put: () => staff.setRateLimit(1, 10, 60) };
  }],
];

/**
 * Pauses and resumes, by the clients that make them (the scenarios' staff makes none): POSTs that set a state, so
 * sending one twice has the effect of once (spec/staff-openapi.yaml: pausing a paused integration keeps its reason and
 * time; a resume clears the pause; spec/control-openapi.yaml: the integration becomes paused, then active).
 */
const STATE_SETTERS: [string, string, (origin: string) => Promise<unknown>][] = [
  ['the control plane (conformance/control.ts)', '/pause', (origin) => controlClient(origin).pause()],
  ['the control plane (conformance/control.ts)', '/resume', (origin) => controlClient(origin).resume()],
  ["certify's staff plane (certify/stage.ts)", '/pause', async (origin) => (await certifyStaff(origin))('POST', '/integrations/1/pause', undefined, { idempotent: true })],
  ["certify's staff plane (certify/stage.ts)", '/resume', async (origin) => (await certifyStaff(origin))('POST', '/integrations/1/resume', undefined, { idempotent: true })],
];

const NOT_RESENT = /not sent again: this POST is not idempotent \(RFC 9110 §9\.2\.2\), and the platform may or may not have applied it/;

describe.each(PLANE_CLIENTS)('a call of %s whose connection closed before any answer', (_name, open) => {
  it('a reset connection to the clock call of 0 s is sent again, and its answer used: two requests', async () => {
    const p = await platform(to('POST', '/clock/advance'), 1, 'reset');
    await expect((await open(p.origin)).advance(0)).resolves.not.toThrow();
    expect(p.count('POST', '/clock/advance')).toBe(2);
  });

  it('a closed connection to a PUT is sent again (idempotent by its method): two requests', async () => {
    const p = await platform(to('PUT', '/rate-limit'));
    await (await open(p.origin)).put();
    expect(p.count('PUT', '/rate-limit')).toBe(2);
  });

  it('a reset connection to a clock advance of 60 s is sent once, and the failure says why it was not sent again', async () => {
    const p = await platform(to('POST', '/clock/advance'), 1, 'reset');
    await expect((await open(p.origin)).advance(60)).rejects.toThrow(NOT_RESENT);
    expect(p.count('POST', '/clock/advance')).toBe(1);
  });

  it('a connection closed twice running is given up after one resend: two requests, then the failure', async () => {
    const p = await platform(to('POST', '/clock/advance'), 2);
    await expect((await open(p.origin)).advance(0)).rejects.toThrow(/sent twice, the connection closed before any answer each time/);
    expect(p.count('POST', '/clock/advance')).toBe(2);
  });
});

describe.each(STATE_SETTERS)('a call of %s to POST …%s whose connection closed before any answer', (_name, tail, send) => {
  it('is sent again (idempotent by its meaning): two requests, the answer used', async () => {
    const p = await platform(to('POST', tail));
    await send(p.origin);
    expect(p.count('POST', tail)).toBe(2);
  });
});

describe('a call of the partner API client or the preflight whose connection closed before any answer', () => {
  it('a GET is sent once more and its answer used', async () => {
    const p = await platform(() => true);
    expect((await client(p.origin).get('/me')).status).toBe(200);
    expect(p.seen).toEqual(['GET /me', 'GET /me']);
  });

  it('a PUT is sent once more too, being idempotent by its method', async () => {
    const p = await platform(to('PUT', '/settings'));
    expect((await client(p.origin).request('PUT', '/settings', { body: {} })).status).toBe(200);
    expect(p.seen).toEqual(['PUT /settings', 'PUT /settings']);
  });

  it('a GET closed twice is unreachable: one resend, no more', async () => {
    const p = await platform(() => true, 2);
    await expect(client(p.origin).get('/me')).rejects.toThrow(TargetUnreachable);
    expect(p.seen).toHaveLength(2);
  });

  it('the preflight sends its GET once more too, and names the cause when that closes as well', async () => {
    const p = await platform(() => true, 99);
    const refused = preflight({ baseUrl: `${p.origin}/api/integrations/v1`, apiKey: 'k' });
    await expect(refused).rejects.toThrow(SetupError);
    await expect(refused).rejects.toThrow(/cannot reach .*\/me: (UND_ERR_SOCKET|ECONNRESET)/);
    expect(p.seen).toHaveLength(2);
  });

});

/**
 * §4.5 rules 1 and 3: a create under a usable Idempotency-Key (8 to 128 characters) is idempotent by the document's
 * meaning (the same key and body replays the first answer and creates nothing; an identical create still in progress
 * answers 409 IN_PROGRESS and writes nothing), so it is sent once more like a GET. Without one it is not.
 */
describe('a create (POST /bookings) whose connection closed before any answer', () => {
  const KEY = 'resend-key-0001';

  it('under a usable Idempotency-Key, reset before any answer: sent once more and its answer returned', async () => {
    const p = await platform(to('POST', '/bookings'), 1, 'reset');
    const res = await client(p.origin).post('/bookings', { body: {}, headers: { 'Idempotency-Key': KEY } });
    expect(res.status).toBe(200);
    expect(p.seen).toEqual(['POST /bookings', 'POST /bookings']);
  });

  it('under a usable key spelled in lower case, closed before any answer: sent once more too', async () => {
    const p = await platform(to('POST', '/bookings'));
    expect((await client(p.origin).post('/bookings', { body: {}, headers: { 'idempotency-key': KEY } })).status).toBe(200);
    expect(p.seen).toEqual(['POST /bookings', 'POST /bookings']);
  });

  it('under a usable key, closed twice running: one resend, no more', async () => {
    const p = await platform(to('POST', '/bookings'), 2);
    await expect(client(p.origin).post('/bookings', { body: {}, headers: { 'Idempotency-Key': KEY } })).rejects.toThrow(/sent twice, the connection closed before any answer each time/);
    expect(p.seen).toHaveLength(2);
  });

  it.each([
    ['no Idempotency-Key', {}],
    ['a key of 7 characters (§4.5 rule 2: unusable)', { 'Idempotency-Key': 'k'.repeat(7) }],
    ['a key of 129 characters (§4.5 rule 2: unusable)', { 'Idempotency-Key': 'k'.repeat(129) }],
  ])('under %s: never resent (it may have been made), and the failure says why', async (_name, headers) => {
    const p = await platform(() => true, 1, 'reset');
    await expect(client(p.origin).post('/bookings', { body: {}, headers })).rejects.toThrow(
      /not sent again: this create carries no usable Idempotency-Key \(§4\.5 rules 1 and 2\), so it is not idempotent \(RFC 9110 §9\.2\.2\), and the platform may or may not have applied it/,
    );
    expect(p.seen).toEqual(['POST /bookings']);
  });

  it('a key on another POST (POST /sync) makes it no create: never resent', async () => {
    const p = await platform(() => true);
    await expect(client(p.origin).post('/sync', { body: {}, headers: { 'Idempotency-Key': KEY } })).rejects.toThrow(NOT_RESENT);
    expect(p.seen).toEqual(['POST /sync']);
  });

  it('resent and answered 409 IN_PROGRESS (§4.5 rule 3: the first still in progress): an error of the run, not a 409 handed to the check', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (seen.length === 1) return void (req.socket as Socket).resetAndDestroy();
      res.writeHead(409, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: false, code: 'IN_PROGRESS', message: 'Still processing.', errors: {} }));
    });
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const log = new ExchangeLog();
    const api = new ApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't', secrets: [], log });
    const sent = api.post('/bookings', { body: {}, headers: { 'Idempotency-Key': KEY } });
    await expect(sent).rejects.toThrow(TargetUnreachable);
    await expect(sent).rejects.toThrow(/sent again under its Idempotency-Key, the create was answered 409 IN_PROGRESS \(exchange 1: §4\.5 rule 3, the first is still being processed\), so its outcome is not known/);
    expect(seen).toHaveLength(2);
    expect(log.exchanges.map((e) => e.status)).toEqual([409]);
  });

  it('a 409 IN_PROGRESS to a create sent once is the platform\'s answer, handed to the check as it is', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(409, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: false, code: 'IN_PROGRESS', message: 'Still processing.', errors: {} }));
    });
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const res = await client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).post('/bookings', { body: {}, headers: { 'Idempotency-Key': KEY } });
    expect([res.status, res.body.code]).toEqual([409, 'IN_PROGRESS']);
  });
});

describe('keyedCreate: a create under a usable Idempotency-Key, the one form of POST resendable without a word (§4.5)', () => {
  const create = (headers: Record<string, string | string[] | undefined>, path = '/api/integrations/v1/bookings') => ({ method: 'POST', path, headers });

  it('holds for a POST to …/bookings (a query after it ignored) with one key of 8 or 128 characters', () => {
    expect(keyedCreate(create({ 'Idempotency-Key': 'k'.repeat(8) }))).toBe(true);
    expect(keyedCreate(create({ 'idempotency-key': 'k'.repeat(128) }, '/v1/bookings?x=1'))).toBe(true);
    expect(resendable(create({ 'Idempotency-Key': 'k'.repeat(8) }))).toBe(true);
  });

  it('fails for no key, a key outside 8 to 128 characters, a repeated key, another path, another method', () => {
    expect(keyedCreate(create({}))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': undefined }))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': 'k'.repeat(7) }))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': 'k'.repeat(129) }))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': ['k'.repeat(8), 'j'.repeat(8)] }))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': 'k'.repeat(8), 'idempotency-key': 'j'.repeat(8) }))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': 'k'.repeat(8) }, '/v1/sync'))).toBe(false);
    expect(keyedCreate(create({ 'Idempotency-Key': 'k'.repeat(8) }, '/v1/bookings/external/x'))).toBe(false);
    expect(keyedCreate({ method: 'PATCH', path: '/v1/bookings', headers: { 'Idempotency-Key': 'k'.repeat(8) } })).toBe(false);
    expect(resendable(create({}))).toBe(false);
  });
});

describe('an answer that began, or a wait that ran out, is not a connection closed before any answer', () => {
  it('an answer cut off after its head is not sent again, even for a GET', async () => {
    let seen = 0;
    const server = createServer((req, res) => {
      seen += 1;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"data":', () => (req.socket as Socket).destroy());
    });
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    await expect(client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).get('/me')).rejects.toThrow();
    expect(seen).toBe(1);
  });

  it('a GET that timed out waiting for its answer is not sent again', async () => {
    let seen = 0;
    // Holds every request unanswered; the preflight's time-out ends the wait, the test's afterEach the connection.
    const server = createServer(() => void (seen += 1));
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const waited = preflight({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/integrations/v1`, apiKey: 'k', timeoutMs: 300 });
    await expect(waited).rejects.toThrow(/cannot reach .*\/me: no answer within the time-out$/);
    expect(seen).toBe(1);
  });
});
