/**
 * `npm run sandbox -- --processes 2 --port 0` (issue 39 item 5), spawned from
 * the test build: it starts a PostgreSQL cluster of its own in a temporary
 * directory, two simulator processes on it and a round-robin proxy; requests
 * through the proxy alternate between the processes and see one world; a
 * killed process is started again while the other serves (the fixtures file
 * names each process's pid and base URL, and follows a restart); SIGTERM
 * stops everything and removes the cluster's directory.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../build/node-command.ts';
import { addDays } from '../protocol/calendar.ts';
import type { SandboxFixtures } from './sandbox.ts';
import { bounded } from './store/test-support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A hang guard, not a budget: each wait is for an event, and only a sandbox that never gets there reaches it. */
const HANG_GUARD_MS = 300_000;
const dir = mkdtempSync(join(tmpdir(), 'sim-sandbox-test-'));
const kill: (() => void)[] = [];

afterAll(() => {
  for (const k of kill) k();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the sandbox and resolves once its banner is out. */
async function startSandbox(args: string[]) {
  const child = spawn(process.execPath, [...nodeArgs('simulator/sandbox.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  // A failed test kills the sandbox outright: its simulators follow it (IPC), its cluster's watchdog removes the cluster.
  kill.push(() => child.exitCode === null && child.kill('SIGKILL'));
  const run = { child, stdout: '', stderr: '', exit: new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (run.stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (run.stderr += s));
  await bounded(new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => /webhook secret/.test(run.stdout) && run.stdout.endsWith('\n') && resolve());
    void run.exit.then((code) => reject(new Error(`the sandbox exited with ${code}\n${run.stdout}\n${run.stderr}`)));
  }), HANG_GUARD_MS, () => `waiting for the sandbox\n${run.stdout}\n${run.stderr}`);
  return run;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run sandbox', () => {
  it('killed outright (SIGKILL, no handler runs): its simulators stop and its cluster is stopped and removed all the same', async () => {
    const run = await startSandbox(['--processes', '2', '--port', '0']);
    const clusterDir = /a cluster of its own in (\S+),/.exec(run.stdout)![1]!;
    const pids = [...run.stdout.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(2);
    run.child.kill('SIGKILL');
    await run.exit;
    await bounded((async () => {
      while (existsSync(clusterDir) || pids.some(alive)) await new Promise((r) => setTimeout(r, 200));
    })(), HANG_GUARD_MS, () => `waiting for ${clusterDir} to go (exists: ${existsSync(clusterDir)}) and pids ${pids.join(', ')} to end (alive: ${pids.filter(alive).join(', ')})`);
  });

  it('two processes behind one proxy serve one world; a killed one comes back; SIGTERM stops all and removes its own cluster', async () => {
    const fixturesFile = join(dir, 'sandbox.json');
    const run = await startSandbox(['--processes', '2', '--port', '0', '--fixtures-out', fixturesFile]);
    const { child, exit } = run;
    const { stdout } = run;
    const clusterDir = /a cluster of its own in (\S+),/.exec(stdout)?.[1];
    expect(clusterDir, stdout).toBeDefined();
    expect(existsSync(clusterDir!)).toBe(true);
    const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as SandboxFixtures;
    // Each process, as the banner names it (issue 39 item 5: `processes: [{ pid, baseUrl }]`).
    const banner = [...stdout.matchAll(/process (\d+) +(\S+) \(pid (\d+)\)/g)].map((m) => ({ index: Number(m[1]), pid: Number(m[3]), baseUrl: `${m[2]}/api/integrations/v1` }));
    expect(banner).toHaveLength(2);
    expect(fixtures.processes).toEqual(banner);
    for (const p of fixtures.processes) expect((await fetch(`${p.baseUrl}/me`, { headers: { Authorization: `Bearer ${fixtures.integrations[0]!.apiKey}` } })).status).toBe(200);
    const { apiKey, properties } = fixtures.integrations[0]!;
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(fixtures.baseUrl + path, {
        method, headers: { Authorization: `Bearer ${apiKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, process: res.headers.get('x-sandbox-process'), text: await res.text() };
    };

    // Round robin: four calls, two to each process.
    const served = [];
    for (let i = 0; i < 4; i++) {
      const me = await call('GET', '/me');
      expect(me.status, me.text).toBe(200);
      served.push(me.process);
    }
    expect(served.sort()).toEqual(['0', '0', '1', '1']);
    // A create through one process is read through the other.
    const checkIn = addDays(new Date().toISOString().slice(0, 10), 100);
    const created = await call('POST', '/bookings', {
      external_booking_id: 'SANDBOX-1', property: { doorloom_id: properties[0]!.doorloom_id }, units: [{ adults: 2 }], check_in: checkIn, check_out: addDays(checkIn, 2),
      guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
    }, { 'Idempotency-Key': 'sandbox-1' });
    expect(created.status, created.text).toBe(201);
    const id = JSON.parse(created.text).data.id as number;
    for (let i = 0; i < 2; i++) expect((await call('GET', `/bookings/${id}`)).status).toBe(200);

    // A process killed: the other answers everything meanwhile, and the sandbox starts it again.
    const pid = fixtures.processes[1]!.pid;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 4; i++) expect((await call('GET', `/bookings/${id}`)).status).toBe(200);
    await bounded((async () => {
      while (!/process 1\] exited/.test(run.stderr)) await new Promise((r) => setTimeout(r, 100));
      for (;;) {
        const answers = await Promise.all([call('GET', '/me'), call('GET', '/me')]);
        if (answers.some((a) => a.process === '1')) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    })(), HANG_GUARD_MS, () => `waiting for process 1 to serve again\n${run.stderr}`);
    // The fixtures file names the process started again: its new pid and port, the other's unchanged.
    const after = JSON.parse(readFileSync(fixturesFile, 'utf8')) as SandboxFixtures;
    expect(after.processes[0]).toEqual(fixtures.processes[0]);
    expect(after.processes[1]!.pid).not.toBe(pid);
    expect(alive(after.processes[1]!.pid)).toBe(true);
    expect((await fetch(`${after.processes[1]!.baseUrl}/me`, { headers: { Authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    expect({ ...after, processes: undefined }).toEqual({ ...fixtures, processes: undefined });

    child.kill('SIGTERM');
    expect(await bounded(exit, HANG_GUARD_MS, () => `waiting for the sandbox to stop\n${run.stderr}`)).toBe(0);
    expect(existsSync(clusterDir!)).toBe(false);
  });
});
