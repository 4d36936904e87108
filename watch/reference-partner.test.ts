/**
 * The reference partner (scenarios/partner/) running the live-capable
 * scenarios through watch — its API calls through the proxy, its webhook
 * behind the forwarder — gives zero findings on a correct simulator, both
 * sides judged; its deliberate breaks that show in traffic are partner
 * findings naming their clause.
 */
import { freePort } from '../conformance/served-simulator.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findScenario } from '../scenarios/catalogue.ts';
import { runScenario } from '../scenarios/kit/scenario.ts';
import type { Breakages } from '../scenarios/partner/config.ts';
import { startSimulator, type RunningSimulator } from '../simulator/start-simulator.ts';
import { liveWatch } from './test-support.ts';

const reports = mkdtempSync(join(tmpdir(), 'watch-partner-'));


let sim: RunningSimulator | undefined;
afterEach(async () => sim?.stop());

/** The scenario against the simulator through watch; watch's exit code and output, and whether the scenario passed. */
async function throughWatch(name: string, property: string, breakages: Partial<Breakages> = {}): Promise<{ code: number; out: string; ok: boolean }> {
  sim = await startSimulator();
  const integration = sim.fixtures.integrations[0]!;
  const port = await freePort();
  let ok = false;
  const run = await liveWatch(sim, `http://127.0.0.1:${port}/webhook`, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], async (api, webhook) => {
    const result = await runScenario(findScenario(name)!, {
      live: { baseUrl: api, apiKey: integration.apiKey, webhookSecret: integration.webhookSecret, webhookPublicUrl: webhook, listenPort: port, property, maxWaitMs: 3_000 },
      reportDir: null, breakages,
    });
    ok = result.ok;
  });
  return { ...run, ok };
}

describe('the reference partner through watch', () => {
  it.each([['webhook-outage', '101'], ['drifted-property', '101'], ['overbooking-race', '102']])('%s on a correct simulator: the scenario passes and watch finds nothing on either side', async (name, property) => {
    const { code, out, ok } = await throughWatch(name, property);
    expect(ok).toBe(true);
    expect(out).not.toMatch(/^finding /m);
    expect(code, out).toBe(0);
  });

  it.each([
    ['overbooking-race', 'reuseKeyForNewBooking', '4.5.Q2', '102'],
    ['webhook-outage', 'cursorFromNowOnRestart', '6.R8', '101'],
    ['webhook-outage', 'dropCursorOnRestart', '6.R8', '101'],
  ] as const)('%s with --break %s: a partner finding naming %s', async (name, breakage, clause, property) => {
    const { code, out } = await throughWatch(name, property, { [breakage]: true });
    expect(code, out).toBe(1);
    expect(out).toMatch(new RegExp(`^finding partner ${clause.replace(/\./g, '\\.')} `, 'm'));
    expect(out).not.toMatch(/^finding platform /m);
  });
});
