/**
 * The whole catalogue over HTTP against the simulator served as a live
 * deployment: first with what a partner has, then with what a platform team
 * adds on staging (a second key, a disabled key, a non-integration token and
 * the control plane of spec/control-openapi.yaml). Checks that need platform
 * actions name exactly the actions they miss.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { catalogue } from './catalogue.ts';
import { runConformance } from './runner.ts';
import { serveSimulator } from './served-simulator.ts';
import type { RotatedCredential } from './targets.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function served() {
  // A short rate-limit window: after the burst check the run waits out Retry-After, seconds instead of a minute.
  const s = await serveSimulator([], { rateLimit: { limit: 200, window_seconds: 2 } });
  closers.push(() => s.close());
  return s;
}

const outcome = (r: { id: string; outcome: string; reason?: string; failure?: { kind: string; received: string }; error?: string }) =>
  `${r.id}: ${r.outcome} ${r.failure ? `${r.failure.kind} ${r.failure.received}` : r.reason ?? r.error?.slice(0, 300) ?? ''}`;

describe('the catalogue against a live deployment', () => {
  it('with a partner\'s credentials (key, secret, property, writes, sync, burst): at least 35 checks applicable, all green; the others name the control action or credential they need', async () => {
    const s = await served();
    const report = await runConformance({ ...s.partner, allowSync: true, allowBurst: true, runs: 3 });
    expect(report.results.filter((r) => r.outcome !== 'passed' && r.outcome !== 'not_applicable').map(outcome)).toEqual([]);
    expect(report.summary.applicable).toBeGreaterThanOrEqual(35);
    // What is left needs what only a platform team hands out: a control action or a further credential, each named.
    for (const r of report.results.filter((x) => x.outcome === 'not_applicable')) {
      const needed = catalogue().find((c) => c.id === r.id)!.needs.filter((n) => n.startsWith('control:')).map((n) => n.slice(8));
      if (needed.length > 0) expect(r.reason, r.id).toContain(`control actions ${needed.join(', ')} (no control plane`);
      // The burst reaches 200 calls in 2 s only on a fast enough client; short of it, it says the rate it reached and
      // that a control plane's rate-limit.set would lower the limit (issue 38 item 3): a slow machine is not a failure.
      else if (r.id === 'auth.rate-limited-headers') expect(r.reason, r.id).toMatch(/this client reached [\d.]+ calls\/s .*rate-limit\.set/);
      // A retry the platform's real clock had not yet made when the drain's cap ran out (a loaded machine) is no
      // finding without clock.advance, and the reason says so: a cap that runs out is never a verdict (issue 38).
      else if (r.id === 'sequencing.reading-changes-nothing' && /were not retried within/.test(r.reason ?? '')) expect(r.reason, r.id).toMatch(/without clock\.advance that is no finding/);
      // The partner's receiver here is plain http: the https delivery says what to put before it.
      else if (r.id === 'webhooks.https-delivery') expect(r.reason, r.id).toMatch(/^needs an https:\/\/ --webhook-public-url/);
      else expect(r.reason, r.id).toMatch(/otherApiKey|PARTNER_OTHER_API_KEY|disabledApiKey|PARTNER_DISABLED_API_KEY|nonIntegrationToken|PARTNER_NON_INTEGRATION_TOKEN/);
    }
  });

  it('with the platform\'s credentials and control plane added: every check of the catalogue applicable and green but the https delivery, rotated credentials handed over', async () => {
    const s = await served();
    const rotated: [RotatedCredential, string][] = [];
    const report = await runConformance({ ...s.partner, ...s.platform, allowSync: true, allowBurst: true, runs: 3, onCredentialRotated: (kind, value) => rotated.push([kind, value]) });
    // The receiver's URL is plain http, so webhooks.https-delivery says what to put before it; its own test runs it live
    // behind an https:// URL. (The whole catalogue behind a TLS front was tried once, on a loaded machine: a clock.advance
    // met the client's 300 s headers time-out in two checks; why was not settled, so this run stays on http.)
    expect(report.results.filter((r) => r.outcome !== 'passed').map(outcome)).toEqual([expect.stringMatching(/^webhooks\.https-delivery: not_applicable needs an https:\/\/ --webhook-public-url/)]);
    expect(report.summary.applicable).toBe(catalogue().length - 1);
    // The run went on with the rotated key: the configured one is refused now, the handed-over one works.
    expect(rotated.map(([kind]) => kind).sort()).toEqual(['apiKey', 'webhookSecret', 'webhookSecret', 'webhookSecret']);
    const key = rotated.find(([kind]) => kind === 'apiKey')![1];
    expect((await fetch(`${s.partner.baseUrl}/me`, { headers: { Authorization: `Bearer ${s.partner.apiKey}` } })).status).toBe(401);
    expect((await fetch(`${s.partner.baseUrl}/me`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    expect(JSON.stringify(report)).not.toContain(key);
  });
});
