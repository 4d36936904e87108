/**
 * watch end to end: a partner's workload through the live proxy and webhook
 * forwarder in front of the simulator, recorded to JSONL; the recording
 * judged again offline, as JSONL and as HAR 1.2; and the three broken
 * histories no single message shows (a replay page that skips a sequence, a
 * replayed create with different bytes, a superseded event delivered), each
 * exit 1 naming its clause.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../simulator/start-simulator.ts';
import { startReceiver, type Receiver } from '../simulator/webhooks/receiver.ts';
import { runWatch } from './command.ts';
import type { WatchedExchange } from './exchange.ts';
import { readJsonl } from './jsonl.ts';
import { liveWatch, partnerWorkload } from './test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'watch-recordings-'));

async function offline(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runWatch([...args, '--report-dir', join(dir, 'reports')], { out: (t) => void (out += t), err: (t) => void (out += t), env: {} });
  return { code, out };
}

function writeJsonl(name: string, exchanges: WatchedExchange[]): string {
  const file = join(dir, name);
  writeFileSync(file, exchanges.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

/** The same exchanges as a HAR 1.2 log, as a gateway in front of both would export them. */
function writeHar(name: string, exchanges: WatchedExchange[]): string {
  const headers = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
  const entries = exchanges.map((e) => ({
    startedDateTime: e.at, time: e.ms,
    request: {
      method: e.method, httpVersion: 'HTTP/1.1', cookies: [], queryString: [], headersSize: -1, bodySize: e.requestBody.length,
      url: e.kind === 'api' ? `http://platform.test/api/integrations/v1${e.path}` : `http://partner.test${e.path}`,
      // One key per integration: the HAR reader turns it into the same credential id for every call.
      headers: headers(e.kind === 'api' ? { ...e.requestHeaders, Authorization: `Bearer recorded-${e.credential}` } : e.requestHeaders),
      ...(e.requestBody ? { postData: { mimeType: 'application/json', text: e.requestBody } } : {}),
    },
    response: { status: e.status ?? 0, statusText: '', httpVersion: 'HTTP/1.1', cookies: [], headers: headers(e.responseHeaders), redirectURL: '', headersSize: -1, bodySize: e.responseBody.length, content: { size: e.responseBody.length, mimeType: 'application/json', encoding: 'base64', text: Buffer.from(e.responseBody).toString('base64') } },
    cache: {}, timings: { send: 0, wait: e.ms, receive: 0 },
  }));
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  return file;
}

let sim: RunningSimulator;
let receiver: Receiver;
let recorded: WatchedExchange[];
let liveOut = '';
let liveCode = -1;

beforeAll(async () => {
  sim = await startSimulator();
  const integration = sim.fixtures.integrations[0]!;
  receiver = await startReceiver({ secrets: [integration.webhookSecret], slug: integration.slug });
  const record = join(dir, 'live.jsonl');
  const run = await liveWatch(sim, receiver.url, ['--record', record, '--webhook-secret', integration.webhookSecret, '--report-dir', join(dir, 'reports')], async (api) => {
    await partnerWorkload(sim, api, receiver);
  });
  liveOut = run.out;
  liveCode = run.code;
  recorded = readJsonl(record);
});

afterAll(async () => {
  await receiver?.close();
  await sim?.stop();
});

/** The recording with one exchange changed. */
function withChange(change: (all: WatchedExchange[]) => WatchedExchange[]): WatchedExchange[] {
  return change(recorded.map((e) => structuredClone(e)));
}

const BROKEN: [string, string, (all: WatchedExchange[]) => WatchedExchange[]][] = [
  ['a replay page that skips a delivered sequence', '4.6.R4', (all) => {
    // The last row of a full walk page goes missing; its next_after_sequence still points past it.
    const pageAt = all.findIndex((e) => e.path.startsWith('/events?after_sequence=') && !e.path.startsWith('/events?after_sequence=0&') && JSON.parse(e.responseBody).data.length === 2);
    const page = all[pageAt]!;
    const body = JSON.parse(page.responseBody);
    body.data = body.data.slice(0, 1);
    page.responseBody = JSON.stringify(body);
    return all;
  }],
  ['a create replayed under its key with different bytes', '4.5.R1', (all) => {
    const creates = all.filter((e) => e.method === 'POST' && e.path === '/bookings');
    const replayed = creates.find((e, i) => creates.findIndex((c) => c.requestHeaders['idempotency-key'] === e.requestHeaders['idempotency-key']) < i)!;
    replayed.responseBody = replayed.responseBody.replace('"message":"', '"message":"(again) ');
    return all;
  }],
  ['a superseded event delivered', '3.3.R3', (all) => {
    // Replay showed the event superseded just before the platform delivered it.
    const deliveryAt = all.findIndex((e) => e.kind === 'delivery' && e.status === 200);
    const delivery = all[deliveryAt]!;
    const event = JSON.parse(delivery.requestBody);
    const call = all.find((e) => e.kind === 'api')!;
    const page = {
      ...structuredClone(call), at: new Date(Date.parse(delivery.at) - 1).toISOString(), method: 'GET', path: `/events?after_sequence=${event.sequence - 1}&limit=1&include_superseded=true`,
      requestHeaders: { accept: 'application/json' }, requestBody: '', status: 200, responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
      responseBody: JSON.stringify({ success: true, message: 'Events retrieved.', data: [{ sequence: event.sequence, status: 'superseded', delivered_at: null, event }], cursor: { after_sequence: event.sequence - 1, next_after_sequence: event.sequence, has_more: true, latest_sequence: event.sequence + 1, retention_days: 30 } }),
    };
    all.splice(deliveryAt, 0, page);
    return all;
  }],
];

describe('watch of a correct simulator', () => {
  it('the partner workload through the proxy and the webhook forwarder gives zero findings, exit 0', () => {
    expect(liveOut).not.toMatch(/^finding /m);
    expect(liveCode, liveOut).toBe(0);
    expect(recorded.filter((e) => e.kind === 'delivery').length).toBeGreaterThan(2);
    expect(receiver.received.every((d) => d.problems.length === 0)).toBe(true);
  });

  it('forwards bytes unchanged: every delivery the partner got is the body watch recorded', () => {
    const forwarded = recorded.filter((e) => e.kind === 'delivery').map((e) => e.requestBody);
    expect(receiver.received.map((d) => d.body)).toEqual(forwarded);
  });

  it('the recording holds no secret: keys become credential ids, Authorization is dropped', () => {
    const text = readFileSync(join(dir, 'live.jsonl'), 'utf8');
    const integration = sim.fixtures.integrations[0]!;
    expect(text).not.toContain(integration.apiKey);
    expect(text).not.toContain(integration.webhookSecret);
    expect(recorded.filter((e) => e.kind === 'api').every((e) => /^key-[0-9a-f]{12}$/.test(e.credential ?? ''))).toBe(true);
  });

  it('the recording judged again offline, as JSONL and as HAR, gives zero findings', async () => {
    const jsonl = await offline(['--jsonl', join(dir, 'live.jsonl')]);
    expect(jsonl.code, jsonl.out).toBe(0);
    const har = await offline(['--har', writeHar('live.har', recorded)]);
    expect(har.code, har.out).toBe(0);
    expect(har.out).toContain(`judged ${recorded.length} exchanges`);
  });
});

describe('recordings of broken histories', () => {
  it.each(BROKEN)('%s: JSONL and HAR each exit 1 naming %s', async (name, clause, change) => {
    const broken = withChange(change);
    const file = name.replace(/\W+/g, '-');
    for (const args of [['--jsonl', writeJsonl(`${file}.jsonl`, broken)], ['--har', writeHar(`${file}.har`, broken)]]) {
      const { code, out } = await offline(args);
      expect(code, out).toBe(1);
      expect(out).toMatch(new RegExp(`^finding platform ${clause.replace(/\./g, '\\.')} `, 'm'));
    }
  });

  it('bad input: a recording that is not JSONL or not HAR is a setup error, exit 2 naming the file', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"kind":"api"}\n');
    const jsonl = await offline(['--jsonl', bad]);
    expect(jsonl.code).toBe(2);
    expect(jsonl.out).toContain(`${bad}:1: not an exchange`);
    const har = await offline(['--har', bad]);
    expect(har.code).toBe(2);
    expect(har.out).toContain('not a HAR file');
  });
});
