/**
 * The suite's own live run (read and write, webhooks, a second key) with
 * watch between it and a correct simulator: the suite passes every
 * applicable check, and watch, judging the platform side (the suite breaks
 * partner guidance on purpose: GET /me in every check, keys reused with
 * other bodies), finds nothing.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runConformance } from '../conformance/runner.ts';
import { startSimulator, type RunningSimulator } from '../simulator/start-simulator.ts';
import { liveWatch } from './test-support.ts';

let sim: RunningSimulator | undefined;
afterAll(async () => sim?.stop());

it('the suite live through watch on a correct simulator: the suite passes and watch gives zero platform findings', async () => {
  sim = await startSimulator();
  const [a, b] = sim.fixtures.integrations;
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as { port: number };
      s.close(() => resolve(p));
    });
  });
  let verdict = '';
  let applicable = 0;
  const run = await liveWatch(sim, `http://127.0.0.1:${port}/webhook`, ['--webhook-secret', a!.webhookSecret, '--side', 'platform', '--report-dir', mkdtempSync(join(tmpdir(), 'watch-suite-'))], async (api, webhook) => {
    const report = await runConformance({ baseUrl: api, apiKey: a!.apiKey, webhookSecret: a!.webhookSecret, properties: [a!.properties[0]!.doorloom_id], allowWrites: true, otherApiKey: b!.apiKey, webhookPublicUrl: webhook, webhookListenPort: port });
    verdict = report.summary.verdict;
    applicable = report.summary.applicable;
  });
  expect(verdict).toBe('passed');
  expect(applicable).toBeGreaterThan(40);
  expect(run.out).not.toMatch(/^finding /m);
  expect(run.code, run.out).toBe(0);
});
