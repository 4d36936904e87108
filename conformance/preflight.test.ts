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

const ROOT = new URL('..', import.meta.url).pathname;

/** The CLI in a child process (asynchronously: the servers it talks to live in this process). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (error, out, err) => {
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
});

const key = () => fixtures.integrations[0]!.apiKey;

describe('preflight: each setup mistake exits 2 with its cause, and no check is judged', () => {
  const cases: [string, () => { args: string[]; env?: Record<string, string> }, RegExp][] = [
    ['connection refused', () => ({ args: ['--target', deadRoot, '--api-key', key()] }), /error: cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/integrations\/v1\/me: ECONNREFUSED/],
    ['an unknown host (DNS)', () => ({ args: ['--target', 'http://no-such-host.invalid/api/integrations/v1', '--api-key', key()] }), /error: cannot reach http:\/\/no-such-host\.invalid\/api\/integrations\/v1\/me: (ENOTFOUND|EAI_AGAIN)/],
    ['TLS spoken to a plain HTTP port', () => ({ args: ['--target', apiRoot.replace('http:', 'https:'), '--api-key', key()] }), /error: cannot reach https:\/\/127\.0\.0\.1:\d+\/api\/integrations\/v1\/me: \S*(SSL|TLS|EPROTO)/],
    ['a refused key', () => ({ args: ['--target', apiRoot, '--api-key', 'dlk_0000000000000000000000000000000000'] }), /error: the API key was refused \(401 UNAUTHENTICATED\)/],
    ['a host that is not this API', () => ({ args: ['--target', htmlRoot, '--api-key', key()] }), /error: GET .*\/me answered 200 \(text\/html\) .*not the \/me envelope/],
    ['another api_version', () => ({ args: ['--target', otherVersionRoot, '--api-key', key()] }), /error: GET .*\/me answered api_version "2025-01"; this suite tests 2026-09/],
    ['a root that is not the API root', () => ({ args: ['--target', `${origin}/nope`, '--api-key', key()] }), /error: GET .*\/nope\/me answered 404 .*not a partner API root/],
    ['a refused second key', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_OTHER_API_KEY: 'dlk_1111111111111111111111111111111111' } }), /error: the otherApiKey was refused \(401 UNAUTHENTICATED\)/],
    ['a second key of the same integration', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_OTHER_API_KEY: key() } }), /error: otherApiKey belongs to the same integration/],
    ['an active key given as the disabled one', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_DISABLED_API_KEY: fixtures.integrations[1]!.apiKey } }), /error: disabledApiKey: GET \/me answered 200/],
    ['an integration key given as the non-integration token', () => ({ args: ['--target', apiRoot, '--api-key', key()], env: { PARTNER_NON_INTEGRATION_TOKEN: fixtures.integrations[1]!.apiKey } }), /error: nonIntegrationToken: GET \/me answered 200/],
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
