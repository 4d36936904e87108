/**
 * The package's library as a user imports it (library/index.ts,
 * library/vitest.ts): startSimulator serves the demo world over HTTP, the
 * conformance runner judges it as a live deployment, itConforms wraps that
 * in one vitest test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, startSimulator, type RunningSimulator } from './index.ts';
import { itConforms } from './vitest.ts';

let running: RunningSimulator;
beforeAll(async () => {
  running = await startSimulator();
});
afterAll(async () => {
  await running.stop();
});

describe('startSimulator', () => {
  it('serves the demo world on a free loopback port and hands out its fixtures', async () => {
    expect(running.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/integrations\/v1$/);
    expect(running.fixtures.baseUrl).toBe(running.baseUrl);
    const me = await fetch(`${running.baseUrl}/me`, { headers: { Authorization: `Bearer ${running.fixtures.integrations[0]!.apiKey}` } });
    expect(me.status).toBe(200);
    const staff = await fetch(`${running.staffUrl}/world`, { headers: { Authorization: `Bearer ${running.fixtures.staffToken}` } });
    expect(staff.status).toBe(200);
  });

  it.each([
    ['a port out of range', { port: 70000 }, /port must be an integer from 0 to 65535/],
    ['an unknown fault', { faults: ['no-such-fault' as never] }, /"no-such-fault" is not a fault/],
  ])('refuses %s, naming the option', async (_what, options, message) => {
    await expect(startSimulator(options)).rejects.toThrow(message);
  });

  it('stop() closes the port', async () => {
    const other = await startSimulator();
    await other.stop();
    await expect(fetch(`${other.baseUrl}/me`)).rejects.toThrow();
  });
});

describe('runConformance against startSimulator, reached as a live deployment (read-only)', () => {
  it('passes the auth suite with the demo key', async () => {
    const report = await runConformance({ baseUrl: running.baseUrl, apiKey: running.fixtures.integrations[0]!.apiKey, suites: ['auth'], runs: 3, seed: 1 });
    expect(report.summary.verdict).toBe('passed');
    expect(report.results.filter((r) => r.outcome === 'passed').length).toBeGreaterThan(0);
  });

  it('fails a check when the simulator serves a deliberate fault', async () => {
    const broken = await startSimulator({ faults: ['unauthenticated-403'] });
    try {
      const report = await runConformance({ baseUrl: broken.baseUrl, apiKey: broken.fixtures.integrations[0]!.apiKey, checks: ['auth.missing-key-is-401'], runs: 3, seed: 1 });
      expect(report.results.map((r) => r.outcome)).toEqual(['failed']);
    } finally {
      await broken.stop();
    }
  });
});

describe('itConforms (the vitest helper)', () => {
  itConforms('the served simulator conforms (auth suite)', () => ({ baseUrl: running.baseUrl, apiKey: running.fixtures.integrations[0]!.apiKey, suites: ['auth'], runs: 3, seed: 2 }));
});
