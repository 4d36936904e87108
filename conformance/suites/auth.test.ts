/**
 * auth.rate-limited-headers (§7 RATE_LIMITED: `Retry-After` and `X-RateLimit-*`
 * are set) decides the same on any machine (issue 38 item 3). Where the
 * control plane offers rate-limit.set, the burst lowers the integration's
 * limit, so tens of calls reach it however slow the client or the target, and
 * puts back the limit it found, pass or fail. Without it, a client that
 * cannot reach the limit is not applicable, saying the rate it reached. The
 * target here is the simulator served over loopback behind a proxy that
 * holds each request a while: a slow machine, made on purpose.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultName } from '../../simulator/domain/faults.ts';
import { runConformance, type ConformanceOptions } from '../runner.ts';
import { serveSimulator } from '../served-simulator.ts';

const CHECK = 'auth.rate-limited-headers';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A proxy in front of `origin` that holds each request `delayMs` before passing it on, and records what passed. */
async function proxy(origin: string, delayMs: number): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, body: body.toString('utf8') });
      setTimeout(() => {
        const headers: IncomingHttpHeaders = { ...req.headers, host: new URL(origin).host };
        const up = request(origin + req.url, { method: req.method, headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      }, delayMs);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** The simulator served with `faults` (and a limit of its own, set by staff as a platform team would), closed after the test. */
async function served(faults: FaultName[], rateLimit?: { limit: number; window_seconds: number }) {
  const s = await serveSimulator(faults, rateLimit ? { rateLimit } : {});
  closers.push(() => s.close());
  return s;
}

async function run(options: ConformanceOptions) {
  const report = await runConformance({ ...options, allowBurst: true, checks: [CHECK], runs: 1, seed: 1 });
  const [r] = report.results;
  return { outcome: r!.outcome, kind: r!.failure?.kind, clause: r!.failure?.clause, reason: r!.reason ?? r!.error ?? '' };
}

/** The partner API calls of the burst (a one-row replay page each) that reached the target. */
const burstCalls = (seen: Seen[]) => seen.filter((s) => s.method === 'GET' && s.url.endsWith('/events?limit=1')).length;

describe(`${CHECK}: the burst reaches the limit on any machine (§7, issue 38)`, () => {
  // Each call held half a second, 16 at a time: about 32 calls a second, nowhere near the simulator's 6000 a minute.
  it.each([
    ['no-ratelimit-headers-on-429', { outcome: 'failed', kind: 'MissingRateLimitHeader', clause: '7.E16' }],
    ['no-retry-after-on-429', { outcome: 'failed', kind: 'RetryAfterMissing', clause: '7.E16' }],
    ['none', { outcome: 'passed', kind: undefined, clause: undefined }],
  ] as const)('with the control plane, a slowed target reaches the lowered limit in tens of calls and judges its 429: fault %s', async (fault, want) => {
    const s = await served(fault === 'none' ? [] : [fault]);
    const slow = await proxy(s.origin, 500);
    const got = await run({ ...s.partner, ...s.platform, baseUrl: slow.origin + new URL(s.partner.baseUrl!).pathname });
    expect({ outcome: got.outcome, kind: got.kind, clause: got.clause }, got.reason).toEqual(want);
    // The lowered limit (five) and two waves of 16 parallel calls at most: tens, not the thousands of the limit in force.
    expect(burstCalls(slow.seen)).toBeGreaterThan(5);
    expect(burstCalls(slow.seen)).toBeLessThanOrEqual(5 + 2 * 16);
  });

  it('without a control plane, a limit the client cannot reach is not applicable, saying the rate it reached', async () => {
    // 1000 calls in 2 s is 500 a second; the slowed client makes about 32.
    const s = await served([], { limit: 1000, window_seconds: 2 });
    const slow = await proxy(s.origin, 500);
    const got = await run({ ...s.partner, baseUrl: slow.origin + new URL(s.partner.baseUrl!).pathname });
    expect(got.outcome).toBe('not_applicable');
    expect(got.reason).toMatch(/^no 429 RATE_LIMITED: this client reached \d+(\.\d)? calls\/s \(about \d+ calls\/min; \d+ calls in \d+(\.\d)? s, 16 at a time\), short of the limit \(X-RateLimit-Limit 1000, X-RateLimit-Reset up to \d+ s\); the burst ended after 3 whole windows without one\. /);
    expect(got.reason).toContain('A control plane offering rate-limit.set would lower the limit for the burst');
    // It waited for windows to pass without its 429 (three of two seconds), not for a budget of its own.
    expect(burstCalls(slow.seen)).toBeLessThan(1000);
  });

  it('a control plane that offers rate-limit.set but cannot say the limit in force leaves it alone, and says so', async () => {
    const s = await served([], { limit: 1000, window_seconds: 2 });
    const slow = await proxy(s.origin, 500);
    const plane = await putOnlyControlPlane();
    const got = await run({ ...s.partner, baseUrl: slow.origin + new URL(s.partner.baseUrl!).pathname, controlUrl: plane.url, controlToken: 'ctl_test' });
    expect(got.outcome).toBe('not_applicable');
    expect(got.reason).toMatch(/calls\/s .* the control plane offers rate-limit.set but does not say the limit in force/i);
    expect(plane.seen.filter((r) => r.startsWith('PUT'))).toEqual([]);
  });

  it.each([
    ['passes', [] as FaultName[], 'passed'],
    ['fails', ['no-ratelimit-headers-on-429'] as FaultName[], 'failed'],
  ])('the limit found is put back after the burst when the check %s, in a fresh window', async (_, faults, outcome) => {
    const s = await served(faults, { limit: 321, window_seconds: 7 });
    const plane = await proxy(s.origin, 0);
    const got = await run({ ...s.partner, ...s.platform, controlUrl: plane.origin + new URL(s.platform.controlUrl!).pathname });
    expect(got.outcome, got.reason).toBe(outcome);
    const limits = plane.seen.filter((r) => r.method === 'PUT' && r.url.endsWith('/rate-limit')).map((r) => JSON.parse(r.body));
    expect(limits).toEqual([{ limit: 5, window_seconds: 3600 }, { limit: 321, window_seconds: 7 }]);
    const me = (await (await fetch(`${s.partner.baseUrl}/me`, { headers: { Authorization: `Bearer ${s.partner.apiKey}` } })).json()) as { data: { slug: string } };
    const now = await fetch(`${s.platform.controlUrl}/integrations/${me.data.slug}/rate-limit`, { headers: { Authorization: `Bearer ${s.platform.controlToken}` } });
    expect(((await now.json()) as { data: { rate_limit: unknown } }).data.rate_limit).toEqual({ limit: 321, window_seconds: 7 });
    // The key is not left throttled for the checks after: the window started afresh with the limit put back.
    const next = await fetch(`${s.partner.baseUrl}/events?limit=1`, { headers: { Authorization: `Bearer ${s.partner.apiKey}` } });
    expect([next.status, next.headers.get('x-ratelimit-limit')]).toEqual([200, '321']);
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(318);
  });
});

/** A control plane that lists rate-limit.set but serves only its PUT (an older one): the read answers 501. */
async function putOnlyControlPlane(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/capabilities') return res.end(JSON.stringify({ success: true, message: 'Offered.', data: { actions: ['rate-limit.set'] } }));
    if (req.method === 'PUT') return res.end(JSON.stringify({ success: true, message: 'Rate limit set.', data: {} }));
    res.statusCode = 501;
    res.end(JSON.stringify({ success: false, code: 'NOT_OFFERED', message: 'Not offered here.', errors: {} }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  closers.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}
