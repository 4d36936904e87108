/**
 * A watch never passes on traffic it never judged (issue 41 items 1 and 2):
 * an upstream that is the origin, not the API root, is refused at start
 * naming the API root; a run that judged nothing, or under half of its API
 * calls, exits 2; `--require-observed N` fails a run that observed fewer
 * rules; the recorded replay gap (watch/fixtures/replay-gap.jsonl, and the
 * same as HAR) and the same gap live through the proxy are §4.6 findings.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandWords } from '../cli/command-line.ts';
import { startSimulator, type RunningSimulator } from '../simulator/start-simulator.ts';
import { runWatch } from './command.ts';
import type { WatchedExchange } from './exchange.ts';
import { readJsonl } from './jsonl.ts';
import { addDays, dateAt } from '../protocol/calendar.ts';
import { staff } from './test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'watch-gate-'));
const GAP = fileURLToPath(new URL('fixtures/replay-gap.jsonl', import.meta.url));

async function watch(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runWatch([...args, '--report-dir', join(dir, 'reports')], { out: (t) => void (out += t), err: (t) => void (err += t), env: {} });
  return { code, out, err };
}

function writeJsonl(name: string, exchanges: WatchedExchange[]): string {
  const file = join(dir, name);
  writeFileSync(file, exchanges.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

/** The exchanges as a HAR 1.2 log below `root`. */
function writeHar(name: string, exchanges: WatchedExchange[], root = '/api/integrations/v1'): string {
  const headers = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
  const entries = exchanges.map((e) => ({
    startedDateTime: e.at, time: e.ms,
    request: { method: e.method, httpVersion: 'HTTP/1.1', cookies: [], queryString: [], headersSize: -1, bodySize: 0, url: `http://platform.test${root}${e.path}`, headers: headers({ ...e.requestHeaders, Authorization: 'Bearer recorded-key' }) },
    response: { status: e.status ?? 0, statusText: '', httpVersion: 'HTTP/1.1', cookies: [], headers: headers(e.responseHeaders), redirectURL: '', headersSize: -1, bodySize: e.responseBody.length, content: { size: e.responseBody.length, mimeType: 'application/json', text: e.responseBody } },
    cache: {}, timings: { send: 0, wait: e.ms, receive: 0 },
  }));
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  return file;
}

const gap = readJsonl(GAP);
/** The same walk with sequence 6 where it belongs: nothing left out. */
const whole = gap.map((e) => (e.path.includes('after_sequence=5') ? { ...e, responseBody: e.responseBody.replace('"data":[', `"data":[${JSON.stringify({ ...JSON.parse(e.responseBody).data[0], sequence: 6, event: { ...JSON.parse(e.responseBody).data[0].event, sequence: 6, id: '01JEVENT000000000000000006' } })},`) } : e));

describe('the recorded replay gap (issue 41 item 2)', () => {
  it('pages read with include_superseded, the first ending at 5 and the second starting at 7: a §4.6 platform finding, as JSONL and as HAR', async () => {
    for (const args of [['--jsonl', GAP], ['--har', writeHar('gap.har', gap)]]) {
      const run = await watch(args);
      expect(run.code, run.out + run.err).toBe(1);
      expect(run.out).toMatch(/^finding platform 4\.6\.R4 ReplayGap: sequence 6 left out of GET \/events\?after_sequence=5/m);
      expect(run.out.match(/^finding /gm)).toHaveLength(1);
    }
  });

  it('the same walk with sequence 6 shown: no finding, exit 0', async () => {
    const run = await watch(['--jsonl', writeJsonl('whole.jsonl', whole)]);
    expect(run.out + run.err).not.toMatch(/^finding /m);
    expect(run.code, run.out + run.err).toBe(0);
  });

  it('the report replays watch where the user is, and its hint names watch, never conformance (issue 41 item 9)', async () => {
    await watch(['--jsonl', GAP]);
    const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8'));
    expect(report.results[0].replay).toBe(`npm run watch -- --jsonl ${GAP}`);
    const html = readFileSync(join(dir, 'reports', 'latest', 'index.html'), 'utf8');
    expect(html).toContain('installed: <code>npx partner-api watch</code> for <code>npm run watch --</code>');
    expect(html).not.toContain('npx partner-api conformance');
    expect([commandWords('watch', true), commandWords('watch', false)]).toEqual(['npx partner-api watch', 'npm run watch --']);
  });
});

describe('a run that judged nothing, or too little, is a setup problem (exit 2), never a pass', () => {
  it('a HAR whose API root is not --api-root: no exchange judged, exit 2 naming --api-root', async () => {
    const run = await watch(['--har', writeHar('elsewhere.har', whole, '/partner/v2')]);
    expect(run.code, run.out + run.err).toBe(2);
    expect(run.err).toMatch(/^error: watch judged nothing: no rule observed over 0 API calls.*No traffic reached watch/m);
    const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8'));
    expect(report.summary.verdict).toBe('insufficient');
  });

  it('calls at no path of the contract (the origin\'s paths as the API root\'s): named, not judged, exit 2', async () => {
    const astray = whole.map((e) => ({ ...e, path: `/api/integrations/v1${e.path}` }));
    const run = await watch(['--jsonl', writeJsonl('astray.jsonl', astray)]);
    expect(run.code, run.out + run.err).toBe(2);
    expect(run.err).toMatch(/3 API calls match no operation of the contract \(GET \/api\/integrations\/v1\/me, GET \/api\/integrations\/v1\/events/);
    expect(run.err).toMatch(/^error: watch judged nothing: no rule observed over 3 API calls: 3 matching no operation of the contract/m);
  });

  it('under half of the API calls judgeable: exit 2 even with a rule observed', async () => {
    const astray = whole.map((e, i) => (i === 0 ? e : { ...e, path: `/v0${e.path}` }));
    const run = await watch(['--jsonl', writeJsonl('mostly-astray.jsonl', astray)]);
    expect(run.code, run.out + run.err).toBe(2);
    expect(run.err).toMatch(/^error: watch judged only 1 of 3 API calls: 2 matching no operation/m);
  });
});

describe('--require-observed N (as conformance\'s --require-applicable)', () => {
  const file = () => writeJsonl('whole-gate.jsonl', whole);
  it.each([
    ['a count met', ['--require-observed', '3'], 0, null],
    ['a count not met: insufficient, exit 1', ['--require-observed', '20'], 1, /^insufficient: only \d+ of 25 rules were observed; --require-observed asks for 20$/m],
    ['a share not met: insufficient, exit 1', ['--require-observed', '0.9'], 1, /--require-observed asks for 23 \(90% of 25\)/],
  ] as const)('%s', async (_name, args, want, says) => {
    const run = await watch(['--jsonl', file(), ...args]);
    expect(run.code, run.out + run.err).toBe(want);
    if (says) expect(run.err).toMatch(says);
    const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8'));
    expect(report.summary.verdict).toBe(want === 0 ? 'passed' : 'insufficient');
  });

  it.each(['0', '-1', '1.5', 'x', ''])('--require-observed %j is a setup error naming the flag (exit 2)', async (value) => {
    const run = await watch(['--jsonl', file(), `--require-observed=${value}`]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('--require-observed must be a count of rules (1, 2, …) or a share between 0 and 1');
  });
});

describe('live', () => {
  let sim: RunningSimulator;
  let broken: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
    broken = await startSimulator({ faults: ['cursor-off-by-one'] });
  });
  afterAll(async () => {
    await sim?.stop();
    await broken?.stop();
  });

  /** A live watch in front of `upstream`; `work` gets the API root the partner is told to use. */
  async function live(upstream: string, work: (api: string) => Promise<void>, args: string[] = []): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    let listening!: (a: { api: string }) => void;
    const ready = new Promise<{ api: string }>((resolve) => (listening = resolve));
    const done = runWatch(['--upstream', upstream, '--port', '0', '--report-dir', join(dir, 'live'), ...args], { out: (t) => void (out += t), err: (t) => void (err += t), env: {}, stopped, onListening: listening });
    const started = await Promise.race([ready, done.then(() => null)]);
    if (started) {
      try {
        await work(started.api);
      } finally {
        stop();
      }
    }
    return { code: await done, out, err };
  }

  it('the origin as --upstream is refused at start, naming the API root (exit 2, nothing listens)', async () => {
    const origin = new URL(sim.baseUrl).origin;
    let worked = false;
    const run = await live(origin, async () => void (worked = true));
    expect(worked).toBe(false);
    expect(run.code, run.out + run.err).toBe(2);
    expect(run.err).toContain(`--upstream ${origin} is not a partner API root: GET ${origin}/me answered 404`);
    expect(run.err).toContain(`its API root answers at ${sim.baseUrl}: give --upstream ${sim.baseUrl}`);
  });

  it('the API root as --upstream and no traffic: exit 2, never 0', async () => {
    const run = await live(sim.baseUrl, async () => {});
    expect(run.code, run.out + run.err).toBe(2);
    expect(run.err).toMatch(/^error: watch judged nothing: no rule observed over 0 API calls.*No traffic reached watch/m);
  });

  it('calls at paths of no operation are said as they pass, and the run exits 2', async () => {
    const key = sim.fixtures.integrations[0]!.apiKey;
    const run = await live(sim.baseUrl, async (api) => {
      for (let i = 0; i < 4; i++) await (await fetch(`${api}/v0/me`, { headers: { Authorization: `Bearer ${key}` } })).text();
    });
    expect(run.code, run.out + run.err).toBe(2);
    expect(run.err.match(/matches no operation of the contract/g)).toHaveLength(3);
    expect(run.err).toContain('GET /v0/me matches no operation of the contract');
  });

  /** A replay walk with include_superseded, two rows a page, after rates changed so events exist. */
  async function walk(target: RunningSimulator, api: string): Promise<void> {
    const integration = target.fixtures.integrations[0]!;
    const property = integration.properties.find((p) => !p.archived)!.doorloom_id;
    const today = dateAt((await staff(target, 'GET', '/clock')).data.epoch_ms);
    for (let i = 0; i < 5; i++) await staff(target, 'PUT', `/properties/${property}/rates`, { from: addDays(today, 50 + i * 3), to: addDays(today, 50 + i * 3), base_rate: 4000 + i });
    expect((await staff(target, 'GET', `/integrations/${integration.id}`)).data.webhook.last_sequence).toBeGreaterThanOrEqual(5);
    let after = 0;
    for (let guard = 0; guard < 50; guard++) {
      const res = await fetch(`${api}/events?after_sequence=${after}&limit=2&include_superseded=true`, { headers: { Authorization: `Bearer ${integration.apiKey}` } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      after = body.cursor.next_after_sequence;
      if (!body.cursor.has_more) break;
    }
  }

  it('through the proxy, a platform whose full page\'s next_after_sequence skips one event (cursor-off-by-one): a §4.6 finding', async () => {
    const run = await live(broken.baseUrl, (api) => walk(broken, api));
    expect(run.out).toMatch(/^finding platform 4\.6\.R4 ReplayGap: sequence \d+ left out of GET \/events\?after_sequence=\d+&limit=2&include_superseded=true/m);
    expect(run.code, run.out + run.err).toBe(1);
  });

  it('through the proxy, the same walk on a correct platform: no finding, exit 0', async () => {
    const run = await live(sim.baseUrl, (api) => walk(sim, api));
    expect(run.out + run.err).not.toMatch(/^finding /m);
    expect(run.code, run.out + run.err).toBe(0);
  });
});
