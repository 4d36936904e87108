/**
 * docs/library.md's CI gate example is examples/staging-gate.test.ts, run here as
 * written: against `npm start` it passes; with API_ROOT unset it fails
 * instead of quietly testing the built-in simulator.
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROOT } from '../simulator/http/app.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import { seedDemoWorld, type Fixtures } from '../simulator/demo-world.ts';
import type { Server } from 'node:http';
import { runConformance } from './runner.ts';

const ROOT = new URL('..', import.meta.url).pathname;

function vitest(env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  const clean = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete clean[k];
  delete clean.VITEST; // a fresh vitest, not a worker of this one
  return new Promise((done) => {
    execFile(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'examples/vitest.config.ts'], { cwd: ROOT, env: clean }, (error, out, err) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out: out + err });
    });
  });
}

let sim: Simulator;
let server: Server;
let fixtures: Fixtures;
beforeAll(async () => {
  sim = createSimulator();
  server = sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((ok) => server.once('listening', ok));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
  fixtures = seedDemoWorld(sim, { baseUrl, staffToken: sim.staffToken! });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
  sim.webhooks.stop();
});

describe('the library refuses to guess', () => {
  it('docs/library.md shows examples/staging-gate.test.ts as it is', () => {
    const readme = readFileSync(new URL('../docs/library.md', import.meta.url), 'utf8');
    expect(readme).toContain(readFileSync(new URL('../examples/staging-gate.test.ts', import.meta.url), 'utf8').trim());
  });

  it('the example passes against a deployment named by API_ROOT', async () => {
    const { code, out } = await vitest({ API_ROOT: fixtures.baseUrl, PARTNER_API_KEY: fixtures.integrations[0]!.apiKey, PARTNER_PROPERTY: String(fixtures.integrations[0]!.properties[0]!.doorloom_id) });
    expect(out).toMatch(/1 passed/);
    expect(code).toBe(0);
  });

  it('the example fails with API_ROOT unset, naming what to set', async () => {
    const { code, out } = await vitest({ API_ROOT: undefined, PARTNER_API_KEY: fixtures.integrations[0]!.apiKey });
    expect(out).toContain('set API_ROOT');
    expect(code).toBe(1);
  });

  it('runConformance without a target is an error, not a run against the built-in simulator', async () => {
    await expect(runConformance({})).rejects.toThrow(/no target: pass baseUrl/);
    await expect(runConformance({ baseUrl: '' })).rejects.toThrow(/no target/);
    await expect(runConformance({ baseUrl: fixtures.baseUrl })).rejects.toThrow(/apiKey/);
  });
});
