/**
 * preflight.ts: a setup mistake ends the run with exit 2 and a message naming
 * the cause, before any check is judged; it is never a check failure.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROOT } from '../simulator/http/app.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import { seedDemoWorld, type Fixtures } from '../simulator/demo-world.ts';
import { preflight, SetupError } from './preflight.ts';
import { runConformance } from './runner.ts';
import { serveSimulator } from './served-simulator.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeArgs } from '../build/node-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** The CLI in a child process (asynchronously: the servers it talks to live in this process). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [...nodeArgs('conformance/cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (error, out, err) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let sim: Simulator;
let fixtures: Fixtures;
let simServer: Server;
let apiRoot: string;
let origin: string;
const others: Server[] = [];
let htmlRoot: string;
let otherVersionRoot: string;
let deadRoot: string;
const dirs: string[] = [];

/** Reports of the runs that judge checks go under the system's temporary directory. */
function reportDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'preflight-'));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  sim = createSimulator();
  simServer = sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((ok) => simServer.once('listening', ok));
  origin = `http://127.0.0.1:${(simServer.address() as AddressInfo).port}`;
  apiRoot = origin + API_ROOT;
  fixtures = seedDemoWorld(sim, { baseUrl: apiRoot, staffToken: sim.staffToken! });
  // A web server that is not this API (python3 -m http.server answers HTML directory listings).
  const html = createServer((_, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE HTML><title>Directory listing for /</title>'));
  // Something that speaks the envelope but another version.
  const version = createServer((_, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: true, message: 'ok', data: { api_version: '2025-01' } })));
  others.push(html, version);
  htmlRoot = `${await listen(html)}/api/integrations/v1`;
  otherVersionRoot = `${await listen(version)}/api/integrations/v1`;
  const dead = createServer();
  deadRoot = `${await listen(dead)}/api/integrations/v1`;
  await new Promise<void>((ok) => dead.close(() => ok()));
});

afterAll(async () => {
  for (const s of [simServer, ...others]) {
    s.closeAllConnections();
    await new Promise<void>((ok) => s.close(() => ok()));
  }
  sim.webhooks.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const key = () => fixtures.integrations[0]!.apiKey;

describe('preflight: each setup mistake exits 2 with its cause, and no check is judged', () => {
  const cases: [string, () => { args: string[]; env?: Record<string, string> }, RegExp][] = [
    ['connection refused', () => ({ args: ['--target', deadRoot, '--api-key', key()] }), /error: cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/integrations\/v1\/me: ECONNREFUSED/],
    ['an unknown host (DNS)', () => ({ args: ['--target', 'http://no-such-host.invalid/api/integrations/v1', '--api-key', key()] }), /error: cannot reach http:\/\/no-such-host\.invalid\/api\/integrations\/v1\/me: (ENOTFOUND|EAI_AGAIN)/],
    ['TLS spoken to a plain HTTP port', () => ({ args: ['--target', apiRoot.replace('http:', 'https:'), '--api-key', key()] }), /error: cannot reach https:\/\/127\.0\.0\.1:\d+\/api\/integrations\/v1\/me: \S*(SSL|TLS|EPROTO)/],
    ['a refused key', () => ({ args: ['--target', apiRoot, '--api-key', 'dlk_0000000000000000000000000000000000'] }), /error: the API key was refused \(401 UNAUTHENTICATED\)/],
    ['a host that is not this API', () => ({ args: ['--target', htmlRoot, '--api-key', key()] }), /error: GET .*\/me answered 200 \(text\/html\) .*not the \/me envelope/],
    ['a root that is not the API root', () => ({ args: ['--target', `${origin}/nope`, '--api-key', key()] }), /error: GET .*\/nope\/me answered 404 .*not a partner API root/],
    ['a refused second key', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_OTHER_API_KEY: 'dlk_1111111111111111111111111111111111' } }), /error: the otherApiKey was refused \(401 UNAUTHENTICATED\)/],
    ['a second key of the same integration', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_OTHER_API_KEY: key() } }), /error: otherApiKey belongs to the same integration/],
    ['the API key given as the disabled one too', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_DISABLED_API_KEY: key() } }), /error: disabledApiKey: GET \/me answered 200 for integration \d+, the same integration as the API key/],
    ['the second key given as the non-integration token', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_OTHER_API_KEY: fixtures.integrations[1]!.apiKey, PARTNER_NON_INTEGRATION_TOKEN: fixtures.integrations[1]!.apiKey } }), /error: nonIntegrationToken: GET \/me answered 200 for integration \d+, the same integration as otherApiKey/],
    ['a property the integration does not cover', () => ({ args: ['--target', apiRoot, '--api-key', key(), '--property', '999999'] }), /error: --property 999999 is not covered by the integration/],
    ['a webhook secret that is not one', () => ({ args: ['--target', apiRoot, '--api-key', key(), '--webhook-secret', key()] }), /error: the webhook secret does not start with whsec_/],
  ];
  it.each(cases)('%s', async (_, make, message) => {
    const { args, env } = make();
    const { code, out, err } = await cli([...args, '--suite', 'schema'], env);
    expect(err).toMatch(message);
    expect(err).toContain('no check was run or judged');
    expect(err).not.toMatch(/\n\s+at /); // no stack trace
    expect(code).toBe(2);
    expect(out).not.toMatch(/✓ pass|✗ FAIL/);
  });

  it('the API switched off (§5.6 bare 404 on every route) is a setup error', async () => {
    const api = (on: boolean) => sim.store.transaction((tx) => tx.put('settings', 'platform', { ...tx.get('settings', 'platform')!, api_enabled: on }));
    api(false);
    try {
      await expect(preflight({ baseUrl: apiRoot, apiKey: key() })).rejects.toThrow(/answers a bare 404: switched off \(§5\.6\)/);
    } finally {
      api(true);
    }
  });

  it('the library throws a SetupError, not a report of failed checks', async () => {
    await expect(runConformance({ baseUrl: deadRoot, apiKey: key() })).rejects.toBeInstanceOf(SetupError);
  });

  it('passes good credentials and hands the checks what /me said', async () => {
    const result = await preflight({ baseUrl: apiRoot, apiKey: key(), otherApiKey: fixtures.integrations[1]!.apiKey, disabledApiKey: fixtures.integrations[2]!.apiKey, nonIntegrationToken: fixtures.staffToken, properties: [fixtures.integrations[0]!.properties[0]!.doorloom_id] });
    expect(result.me.api_version).toBe('2026-09');
    expect(result.other?.id).not.toBe(result.me.id);
  });
});

describe('breaches are not setup errors (issue 25 item 5): the run goes on and a check fails naming the clause', () => {
  it('another api_version on /me fails schema.read-operations-conform (9.R1a), exit 1, not 2', async () => {
    const { code, out, err } = await cli(['--target', otherVersionRoot, '--api-key', key(), '--check', 'schema.read-operations-conform', '--report-dir', reportDir()]);
    expect(err).not.toContain('no check was run or judged');
    expect(out).toMatch(/✗ FAIL\s+schema\.read-operations-conform/);
    expect(code).toBe(1);
  });

  it('a deployment answering another api_version (fault api-version-wrong) fails with WrongApiVersion (9.R1a)', async () => {
    const served = await serveSimulator(['api-version-wrong']);
    try {
      const report = await runConformance({ ...served.partner, allowWrites: false, checks: ['schema.read-operations-conform'] });
      expect(report.results.map((r) => [r.outcome, r.failure?.kind, r.failure?.clause, r.failure?.received])).toEqual([['failed', 'WrongApiVersion', '9.R1a', '2026-08']]);
    } finally {
      await served.close();
    }
  });

  it('a disabled key answered 401 (fault disabled-is-401) is not a setup error: auth.disabled-is-403 runs and fails, noting the credential may be wrong', async () => {
    const served = await serveSimulator(['disabled-is-401']);
    try {
      const report = await runConformance({ ...served.partner, allowWrites: false, disabledApiKey: served.platform.disabledApiKey, checks: ['auth.disabled-is-403'] });
      const [r] = report.results;
      expect(r?.outcome).toBe('failed');
      expect(r?.failure).toMatchObject({ kind: 'UnexpectedStatus', clause: '3.1.T5' });
      expect(r?.failure?.received).toMatch(/^401 UNAUTHENTICATED for GET \/me as a disabled integration/);
      expect(r?.failure?.note).toMatch(/the credential given as disabledApiKey may also be wrong/);
    } finally {
      await served.close();
    }
  });

  it('a refused disabled key is reported the same way (a wrong credential and a breach look alike; the note says so)', async () => {
    const { code, out, err } = await cli(['--target', apiRoot, '--api-key', key(), '--check', 'auth.disabled-is-403', '--report-dir', reportDir()], { PARTNER_DISABLED_API_KEY: 'dlk_2222222222222222222222222222222222' });
    expect(err).not.toContain('no check was run or judged');
    expect(out).toMatch(/✗ FAIL\s+auth\.disabled-is-403/);
    expect(out).toMatch(/Note:\s+the credential given as disabledApiKey may also be wrong/);
    expect(code).toBe(1);
  });
});

