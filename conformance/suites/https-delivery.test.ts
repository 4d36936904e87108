/**
 * webhooks.https-delivery (§2.1 webhook.url, §1, §6): an https:// webhook URL
 * is delivered to as an http one is. It passes against the simulator, fails
 * against one whose https line is broken (the mutant of transport.ts that
 * used to survive, issue 40), and live it is not applicable without an
 * https:// public URL, saying what to add; with one (a TLS front of the
 * partner's own) it runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkOnSimulator } from '../check-on-simulator.ts';
import { runConformance } from '../runner.ts';
import { serveSimulator, type ServedSimulator } from '../served-simulator.ts';
import { RECEIVER_TLS } from '../receiver-tls.ts';
import { createSimulator } from '../../simulator/simulator.ts';
import { VirtualClock } from '../../simulator/domain/clock.ts';
import { nodeTransport, type Transport } from '../../simulator/webhooks/transport.ts';

const ID = 'webhooks.https-delivery';

const served: ServedSimulator[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.close();
});

/** A simulator trusting the receiver's certificate whose transport is `transport`. */
function simulator(transport?: Transport) {
  return createSimulator({ clock: new VirtualClock(() => Date.now()), webhookCa: [RECEIVER_TLS.cert], ...(transport ? { transport } : {}) });
}

/** What the mutant of transport.ts's https line does: an https:// URL goes to node:http, which refuses its scheme. */
function httpsBroken(): Transport {
  const real = nodeTransport({ ca: [RECEIVER_TLS.cert] });
  return {
    post: (url, headers, body, timeoutMs, method) => (new URL(url).protocol === 'https:'
      ? Promise.resolve({ error: 'Protocol "https:" not supported. Expected "http:"' })
      : real.post(url, headers, body, timeoutMs, method)),
  };
}

describe(ID, () => {
  it('passes against the simulator: the create\'s pair is delivered over TLS, signed and named', async () => {
    const result = await checkOnSimulator(ID, simulator());
    expect([result.outcome, result.failure, result.reason]).toEqual(['passed', undefined, undefined]);
  });

  it('fails against a simulator that cannot deliver to https:// URLs, naming what the receiver got', async () => {
    const result = await checkOnSimulator(ID, simulator(httpsBroken()));
    expect(result.outcome).toBe('failed');
    expect(result.failure).toMatchObject({ kind: 'NotDeliveredOverHttps', clause: '1.R3' });
    expect(result.failure!.received).toMatch(/^to https:\/\/127\.0\.0\.1:\d+\/webhook the receiver got nothing/);
  });

  it('fails against a simulator that does not trust the receiver\'s certificate: the TLS is real, not a pass-through', async () => {
    const result = await checkOnSimulator(ID, createSimulator({ clock: new VirtualClock(() => Date.now()) }));
    expect(result.failure).toMatchObject({ kind: 'NotDeliveredOverHttps' });
  });

  it('live with an http:// public URL: not applicable, saying what to add', async () => {
    const s = await serveSimulator();
    served.push(s);
    const report = await runConformance({ ...s.partner, checks: [ID] });
    expect(report.results[0]!.outcome).toBe('not_applicable');
    expect(report.results[0]!.reason).toMatch(/^needs an https:\/\/ --webhook-public-url, not http:\/\/127\.0\.0\.1:\d+\/webhook: .*forwards to --webhook-listen-port$/);
  });

  it('live with an https:// public URL in front of the listen port: passes', async () => {
    const s = await serveSimulator([], { webhookTls: true });
    served.push(s);
    expect(s.partner.webhookPublicUrl).toMatch(/^https:\/\//);
    const report = await runConformance({ ...s.partner, checks: [ID] });
    expect(report.results.map((r) => [r.id, r.outcome, r.failure?.received ?? r.reason ?? ''])).toEqual([[ID, 'passed', '']]);
  });
});
