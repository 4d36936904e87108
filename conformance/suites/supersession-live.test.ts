/**
 * §3.3: an undelivered event fully covered by a newer one is superseded; one
 * in flight is not. supersession.live-undelivered-covered refuses the first
 * create's event and covers it once the platform has recorded the refused
 * attempt. Here the webhook's answers reach the platform 6 s late (a proxy
 * in front of the runner's receiver), so the attempt stays in flight for 6 s:
 * the check used to cover it after 5 s, while still in flight, and failed
 * NotSuperseded (issue 38). It now waits for the platform's record of the
 * attempt, however slow, and passes.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance } from '../runner.ts';
import { serveSimulator } from '../served-simulator.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** An HTTP proxy to 127.0.0.1:`port` that passes each request on at once and its answer back `delayMs` late. */
async function lateAnswers(port: number, delayMs: number): Promise<Server> {
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => setTimeout(() => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        }, delayMs));
      });
      out.on('error', () => res.writeHead(502).end());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  return proxy;
}

describe('supersession made with a partner\'s powers, on a platform slow to record an attempt', () => {
  it('an attempt whose refusal reaches the platform 6 s late is waited for, then covered: superseded, and the check passes', async () => {
    const s = await serveSimulator();
    closers.push(() => s.close());
    const proxy = await lateAnswers(s.partner.webhookListenPort!, 6_000);
    closers.push(() => new Promise<void>((ok) => {
      proxy.closeAllConnections();
      proxy.close(() => ok());
    }));
    // The platform delivers to the proxy; the runner's receiver listens behind it, as behind any public URL.
    const publicUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/webhook`;
    const set = await fetch(`${s.origin}/_staff/integrations/1/webhook`, { method: 'PUT', headers: { Authorization: `Bearer ${s.sim.staffToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: publicUrl }) });
    expect(set.status).toBe(200);
    const report = await runConformance({ ...s.partner, webhookPublicUrl: publicUrl, checks: ['supersession.live-undelivered-covered'] });
    const result = report.results[0]!;
    expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
  });
});
