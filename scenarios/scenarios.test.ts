/**
 * The scenarios as tests: every scenario converges with the reference
 * partner; breaking the partner in each named way makes the named scenario
 * fail with a divergence report; and the live-capable scenarios run through
 * the live mode (partner API only, real time) against a simulator served as
 * if it were a deployment.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { API_ROOT } from '../simulator/http/app.ts';
import { VirtualClock } from '../simulator/domain/clock.ts';
import { createSimulator } from '../simulator/simulator.ts';
import { seedDemoWorld } from '../simulator/demo-world.ts';
import { SCENARIOS, findScenario } from './catalogue.ts';
import { describeDifference, type Difference } from './kit/convergence.ts';
import { runScenario, type ScenarioResult } from './kit/scenario.ts';
import type { Breakages } from './partner/config.ts';

// The timelines go to a temporary directory: a test run leaves the work tree as it found it.
const reportDir = mkdtempSync(join(tmpdir(), 'scenario-reports-'));
afterAll(() => rmSync(reportDir, { recursive: true, force: true }));

function explain(r: ScenarioResult): string {
  const first = r.divergence?.differences[0];
  return `${r.name}: ${r.failure ?? 'passed'}${first ? `\nfirst divergence: ${describeDifference(first)}` : ''}\nsee ${r.files?.md}`;
}

describe('every scenario converges with the reference partner (simulator)', () => {
  it.each(SCENARIOS.map((s) => [`${s.number} ${s.name}`, s] as const))('%s', async (_label, scenario) => {
    const r = await runScenario(scenario, { reportDir });
    expect(r.ok, explain(r)).toBe(true);
    expect(r.divergence).toBeNull();
    const md = readFileSync(r.files!.md, 'utf8');
    expect(md).toContain('**PASSED**');
    expect(md).toContain('converged:');
    expect(readFileSync(r.files!.html, 'utf8')).toMatch(/^<!doctype html>/);
  });
});

/** [breakage, the scenario that must catch it, what the first divergence must be about] */
const BREAKAGES: [keyof Breakages, string, (d: Difference) => boolean][] = [
  // A superseded 7000 INR rate written over the 8000 that superseded it (§3.3).
  ['applySuperseded', 'supersession', (d) => d.type === 'rates' && d.field === 'base_rate' && d.expected === 8000 && d.actual === 7000],
  // The booking made during the repair is dropped: its event is below the stamp read after the download (§4.8).
  ['ignoreWatermark', 'drifted-property', (d) => d.type === 'availability' && d.where.startsWith('LAKE-HOUSE')],
  // The forged 1 INR rate was applied (§5.4).
  ['skipSignatureVerification', 'secret-rotation', (d) => d.type === 'rates' && d.actual === 1],
  // The second guest's create reused the first one's key: 422, a reservation the platform does not have (§4.5 rule 1).
  ['reuseKeyForNewBooking', 'overbooking-race', (d) => d.where.startsWith('reservation R-') && String(d.actual).includes('IDEMPOTENCY_KEY_REUSED')],
  // Restarted from the newest sequence: what happened during the outage is missing until the retries (§6.8).
  ['dropCursorOnRestart', 'webhook-outage', (d) => d.property !== undefined || d.where.startsWith('booking')],
];

describe('a broken reference partner is caught by the named scenario, with a divergence report', () => {
  it.each(BREAKAGES)('%s → %s', async (breakage, name, firstIsAbout) => {
    const r = await runScenario(findScenario(name)!, { breakages: { [breakage]: true }, reportDir, reportName: `${name}--broken-${breakage}` });
    expect(r.ok, `${name} passed with ${breakage} switched on`).toBe(false);
    expect(r.divergence, explain(r)).not.toBeNull();
    expect(r.divergence!.total).toBeGreaterThan(0);
    const first = r.divergence!.differences[0]!;
    expect(firstIsAbout(first), `unexpected first divergence: ${describeDifference(first)}`).toBe(true);
    const md = readFileSync(r.files!.md, 'utf8');
    expect(md).toContain('**FAILED**');
    expect(md).toContain(`Partner deliberately broken: **${breakage}**`);
    expect(md).toContain("Where the partner's state first diverged");
    expect(md).toContain(first.where.replace(/\|/g, '\\|'));
    expect(readFileSync(r.files!.html, 'utf8')).toContain('first diverged');
  });
});

/** A simulator on real time, delivering in real time, reached like a deployment: partner API only. */
async function liveTarget(): Promise<{ baseUrl: string; apiKey: string; webhookSecret: string; webhookUrl: string; port: number; close(): Promise<void> }> {
  const sim = createSimulator({ clock: new VirtualClock(() => Date.now()), staffToken: 'stf_live_test' });
  const server = sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((ok) => server.once('listening', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: 'stf_live_test' });
  // A free port for the partner's listener; platform staff register it as the webhook URL.
  const probe: Server = createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((ok) => probe.close(() => ok()));
  const webhookUrl = `http://127.0.0.1:${port}/hooks/platform`;
  const res = await fetch(`${origin}/_staff/integrations/1/webhook`, { method: 'PUT', headers: { Authorization: 'Bearer stf_live_test', 'Content-Type': 'application/json' }, body: JSON.stringify({ url: webhookUrl }) });
  expect(res.status).toBe(200);
  sim.webhooks.start(50);
  return {
    baseUrl: origin + API_ROOT, apiKey: fixtures.integrations[0]!.apiKey, webhookSecret: fixtures.integrations[0]!.webhookSecret, webhookUrl, port,
    async close() {
      sim.webhooks.stop();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

describe('live mode: the live-capable scenarios against a deployment, with no staff powers', () => {
  it('runs webhook-outage, drifted-property and overbooking-race on real time; refuses the others', async () => {
    const target = await liveTarget();
    try {
      const live = {
        baseUrl: target.baseUrl, apiKey: target.apiKey, webhookSecret: target.webhookSecret, webhookPublicUrl: target.webhookUrl,
        listenPort: target.port, property: 'HILLTOP', maxWaitMs: 300,
      };
      const capable = SCENARIOS.filter((s) => s.live.capable).map((s) => s.name);
      expect(capable).toEqual(['webhook-outage', 'drifted-property', 'overbooking-race']);
      // The outage last: its backlog keeps waiting for the platform's next retry (10 s of real time). Each delivery is
      // waited for under the live default cap (LIVE_DELIVERY_MS), a hang guard: a slow machine only waits longer.
      for (const s of ['drifted-property', 'overbooking-race', 'webhook-outage'].map((n) => findScenario(n)!)) {
        const r = await runScenario(s, { live, reportDir, reportName: `${s.name}--live` });
        expect(r.ok, explain(r)).toBe(true);
        expect(r.mode).toBe('live');
      }
      const refused = await runScenario(findScenario('happy-path')!, { live, reportDir: null });
      expect(refused.ok).toBe(false);
      expect(refused.failure).toMatch(/cannot run against a live target/);
    } finally {
      await target.close();
    }
  });

  it('refuses to start when the integration\'s webhook URL does not reach the partner', async () => {
    const target = await liveTarget();
    try {
      const r = await runScenario(findScenario('drifted-property')!, {
        live: { baseUrl: target.baseUrl, apiKey: target.apiKey, webhookSecret: target.webhookSecret, webhookPublicUrl: 'https://partner.example/hooks', listenPort: target.port, property: 'HILLTOP' },
        reportDir: null,
      });
      expect(r.ok).toBe(false);
      expect(r.failure).toContain('ask platform staff to set it to https://partner.example/hooks');
    } finally {
      await target.close();
    }
  });
});
