/**
 * The real CLI (`npm start`), spawned as a child process: what it serves,
 * prints and writes, how it keeps a world in `--data`, and how it refuses
 * bad flags. Every wait is bounded and every child is killed afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from './domain/model.ts';
import type { Fixtures } from './demo-world.ts';
import { nodeArgs } from '../build/node-command.ts';
import { bounded } from './store/test-support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Hang guards, not speed targets: on a machine loaded many times over its cores a start alone can take 20 s. */
const START_TIMEOUT_MS = 300_000;
const EXIT_TIMEOUT_MS = 300_000;

interface Running {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
}

const children: ChildProcess[] = [];
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sim-cli-test-'));
  tempDirs.push(dir);
  return dir;
}

/** Spawns the CLI; `track` hands the child to afterEach to kill (concurrent tests kill their own). */
function launch(args: string[], track = true): Running {
  const child = spawn(process.execPath, [...nodeArgs('simulator/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  if (track) children.push(child);
  // 'close', not 'exit': on a loaded machine the exit can come before the last of stderr is read.
  const run: Running = { child, stdout: '', stderr: '', exit: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (run.stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (run.stderr += s));
  return run;
}

/** Starts the CLI and resolves once it has printed its banner (one write ending in a newline). */
async function start(args: string[]): Promise<Running & { baseUrl: string; origin: string }> {
  const run = launch(args);
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /base URL\s+(\S+)/.exec(run.stdout);
      if (m && run.stdout.endsWith('\n')) resolve(m[1]!);
    };
    run.child.stdout!.on('data', check);
    void run.exit.then((code) => reject(new Error(`the CLI exited with ${code} before serving\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)));
  });
  const baseUrl = await bounded(ready, START_TIMEOUT_MS, () => `waiting for the base URL of ${args.join(' ')}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return Object.assign(run, { baseUrl, origin: new URL(baseUrl).origin });
}

/** SIGTERM, then the exit code (SIGKILL in afterEach if it never comes). */
async function stop(run: Running): Promise<number | null> {
  run.child.kill('SIGTERM');
  return bounded(run.exit, EXIT_TIMEOUT_MS, () => 'waiting for the CLI to exit after SIGTERM');
}

/** Runs the CLI to its exit (killed if it does not exit in time). */
async function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = launch(args, false);
  try {
    const code = await bounded(run.exit, START_TIMEOUT_MS, () => `waiting for ${args.join(' ')} to exit\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    return { code, stdout: run.stdout, stderr: run.stderr };
  } finally {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  }
}

function readFixtures(path: string): Fixtures {
  return JSON.parse(readFileSync(path, 'utf8')) as Fixtures;
}

async function api(baseUrl: string, key: string, path: string, init: RequestInit = {}) {
  const res = await fetch(baseUrl + path, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });
  const text = await res.text();
  return { status: res.status, text, body: text === '' ? undefined : JSON.parse(text) };
}

/** A date `days` from today in the platform zone (the CLI runs on real time). */
function daysFromToday(days: number): string {
  return new Date(Date.now() + 330 * 60_000 + days * 86_400_000).toISOString().slice(0, 10);
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('npm start (simulator/cli.ts)', () => {
  it('--port 0 --memory --fixtures-out serves on 127.0.0.1, prints the base URL and credentials, and writes the fixtures file', async () => {
    const file = join(tempDir(), 'fixtures.json');
    const run = await start(['--port', '0', '--memory', '--fixtures-out', file, '--webhook-url', 'http://127.0.0.1:9/x']);
    expect(run.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/api\/integrations\/v1$/);
    expect(run.stdout).toContain('(demo world seeded)');
    expect(run.stdout).toContain('memory (nothing is written to disk)');

    const fixtures = readFixtures(file);
    expect(statSync(file).mode & 0o777, 'the fixtures file holds credentials: owner-only').toBe(0o600);
    // The exact shape (a public contract): these keys and no others, at every level.
    expect(Object.keys(fixtures).sort()).toEqual(['baseUrl', 'integrations', 'staffToken']);
    expect(fixtures.baseUrl).toBe(run.baseUrl);
    expect(fixtures.staffToken).toMatch(/^stf_[0-9a-f]{48}$/);
    expect(run.stdout).toContain(`Bearer ${fixtures.staffToken}`);
    expect(fixtures.integrations).toHaveLength(3);
    for (const i of fixtures.integrations) {
      expect(Object.keys(i).sort()).toEqual(['apiKey', 'id', 'properties', 'slug', 'status', 'webhookSecret']);
      expect(i).toMatchObject({ id: expect.any(Number), slug: expect.any(String), apiKey: expect.stringMatching(/^dlk_/), webhookSecret: expect.stringMatching(/^whsec_/) });
      expect(run.stdout).toContain(i.apiKey);
      expect(run.stdout).toContain(i.webhookSecret);
      for (const p of i.properties) {
        expect(Object.keys(p).sort()).toEqual(['archived', 'doorloom_id', 'external_id', 'units']);
        expect(p).toMatchObject({ doorloom_id: expect.any(Number), external_id: expect.any(String), archived: expect.any(Boolean) });
        for (const u of p.units) {
          expect(Object.keys(u).sort()).toEqual(['active', 'external_unit_id', 'inventory_id']);
          expect(u).toMatchObject({ inventory_id: expect.any(Number), active: expect.any(Boolean) });
          expect(u.external_unit_id === null || typeof u.external_unit_id === 'string').toBe(true);
        }
      }
    }

    // The demo-world contract.
    const [first, second, third] = fixtures.integrations as [Fixtures['integrations'][number], Fixtures['integrations'][number], Fixtures['integrations'][number]];
    const sellable = first.properties.filter((p) => !p.archived);
    expect(first.status).toBe('active');
    expect(sellable.length).toBeGreaterThanOrEqual(3);
    expect(sellable.some((p) => p.units.filter((u) => u.active).length >= 3)).toBe(true);
    expect(sellable.some((p) => p.units.length === 1)).toBe(true);
    expect(first.properties.some((p) => p.archived)).toBe(true);
    expect(sellable.some((p) => p.units.some((u) => !u.active))).toBe(true);
    expect(second.status).toBe('active');
    expect(second.properties.length).toBeGreaterThan(0);
    const firstIds = new Set(first.properties.map((p) => p.doorloom_id));
    expect(second.properties.filter((p) => firstIds.has(p.doorloom_id))).toEqual([]);
    expect(third.status).toBe('disabled');

    // The keys work against the printed base URL.
    const me = await api(run.baseUrl, first.apiKey, '/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body.data).toMatchObject({ id: first.id, slug: first.slug, status: 'active', covered_properties: first.properties.length });
    expect(me.body.data.webhook).toMatchObject({ configured: true, url: 'http://127.0.0.1:9/x' });
    expect([...me.body.data.webhook.event_types].sort()).toEqual([...EVENT_TYPES].sort());
    const meSecond = await api(run.baseUrl, second.apiKey, '/me');
    expect(meSecond.status).toBe(200);
    expect(meSecond.body.data).toMatchObject({ id: second.id, webhook: { url: null } });
    const disabled = await api(run.baseUrl, third.apiKey, '/me');
    expect(disabled.status).toBe(403);
    expect(disabled.body).toMatchObject({ success: false, code: 'INTEGRATION_DISABLED' });
    const world = await api(run.origin, fixtures.staffToken, '/_staff/world');
    expect(world.status).toBe(200);

    expect(await stop(run)).toBe(0);
  });

  it('--api-off makes GET /me a bare 404 with an empty body until staff switch the API on', async () => {
    const file = join(tempDir(), 'fixtures.json');
    const run = await start(['--port', '0', '--memory', '--api-off', '--fixtures-out', file]);
    expect(run.stdout).toContain('the partner API is switched OFF');
    const fixtures = readFixtures(file);
    const off = await api(run.baseUrl, fixtures.integrations[0]!.apiKey, '/me');
    expect(off.status).toBe(404);
    expect(off.text).toBe('');
    const on = await api(run.origin, fixtures.staffToken, '/_staff/api', { method: 'PUT', body: JSON.stringify({ enabled: true }) });
    expect(on.status, on.text).toBe(200);
    expect((await api(run.baseUrl, fixtures.integrations[0]!.apiKey, '/me')).status).toBe(200);
    expect(await stop(run)).toBe(0);
  });

  it('--data DIR keeps the world across a SIGTERM restart: the booking, the credentials and staff changes; the restart prints "state restored"', async () => {
    const data = tempDir();
    const firstFile = join(tempDir(), 'first.json');
    const first = await start(['--port', '0', '--data', data, '--fixtures-out', firstFile]);
    expect(first.stdout).toContain('(demo world seeded)');
    const before = readFixtures(firstFile);
    const [acme, , legacy] = before.integrations;
    const property = acme!.properties.find((p) => !p.archived && p.units.some((u) => u.active))!;
    const created = await api(first.baseUrl, acme!.apiKey, '/bookings', {
      method: 'POST',
      headers: { 'Idempotency-Key': `cli-test-${Date.now()}` },
      body: JSON.stringify({
        external_booking_id: 'CLI-PERSIST-1',
        property: { doorloom_id: property.doorloom_id },
        units: [{ adults: 2 }],
        check_in: daysFromToday(10),
        check_out: daysFromToday(12),
        guest: { name: 'Asha Rao', mobile: '9800000000' },
        pricing: { total: 12000 },
      }),
    });
    expect(created.status, created.text).toBe(201);
    const staff = (run: { origin: string }, method: 'POST' | 'PUT', path: string, body: unknown = {}) =>
      api(run.origin, before.staffToken, `/_staff${path}`, { method, body: JSON.stringify(body) });
    expect((await staff(first, 'POST', `/integrations/${legacy!.id}/enable`)).status).toBe(200);
    expect((await staff(first, 'PUT', '/api', { enabled: false })).status).toBe(200);
    expect(await stop(first)).toBe(0);

    const secondFile = join(tempDir(), 'second.json');
    const second = await start(['--port', '0', '--data', data, '--fixtures-out', secondFile]);
    expect(second.stdout).toContain('(state restored)');
    expect(second.stdout, 'a restart says the API is off when the saved world has it off').toContain('the partner API is switched OFF');
    const after = readFixtures(secondFile);
    expect(after.staffToken).toBe(before.staffToken);
    expect(after.integrations.map((i) => [i.id, i.apiKey, i.webhookSecret])).toEqual(before.integrations.map((i) => [i.id, i.apiKey, i.webhookSecret]));
    expect(after.integrations.map((i) => i.status), 'statuses as the restored world has them').toEqual(['active', 'active', 'active']);
    expect(after.baseUrl).toBe(second.baseUrl);

    expect((await staff(second, 'PUT', '/api', { enabled: true })).status).toBe(200);
    const read = await api(second.baseUrl, acme!.apiKey, `/bookings/${created.body.data.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({ external_booking_id: 'CLI-PERSIST-1', check_in: created.body.data.check_in, revision: 1 });
    expect((await api(second.baseUrl, legacy!.apiKey, '/me')).status, 'the integration enabled before the restart').toBe(200);
    expect(await stop(second)).toBe(0);
  });

  describe('bad flags exit with code 2 and a message naming the flag', () => {
    it.concurrent.each([
      ['--port abc', ['--port', 'abc'], ['--port']],
      ['an empty --port', ['--port='], ['--port']],
      ['--port 70000', ['--port', '70000'], ['--port']],
      ['an unknown flag --nope', ['--nope'], ['--nope']],
      ['--memory with --data', ['--memory', '--data', 'DATA_DIR'], ['--memory', '--data']],
      ['--webhook-url that is not http(s)', ['--memory', '--webhook-url', 'ftp://127.0.0.1/x'], ['--webhook-url']],
      ['--fixtures-out in a missing directory', ['--port', '0', '--memory', '--fixtures-out', 'DATA_DIR/fixtures.json'], ['--fixtures-out']],
      ['--fault without --enable-faults', ['--memory', '--fault', 'bad-body-500'], ['--fault', '--enable-faults']],
      ['an unknown --fault', ['--memory', '--fault', 'no-such-fault', '--enable-faults'], ['--fault', 'no-such-fault']],
    ])('%s', async (_name, args, named) => {
      const dataDir = join(tempDir(), 'never-created');
      const result = await runToExit(args.map((a) => a.replace('DATA_DIR', dataDir)));
      expect(result.code, result.stderr).toBe(2);
      for (const flag of named) expect(result.stderr).toContain(flag);
      expect(result.stdout).not.toContain('base URL');
      expect(existsSync(dataDir), 'nothing is written before the flags are accepted').toBe(false);
    });

    it.concurrent('--help prints every flag and exits 0', async () => {
      const result = await runToExit(['--help']);
      expect(result.code).toBe(0);
      for (const flag of ['--port', '--memory', '--data', '--fixtures-out', '--webhook-url', '--api-off', '--fault', '--enable-faults', '--help']) expect(result.stdout).toContain(flag);
    });
  });
});
