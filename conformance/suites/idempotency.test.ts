/**
 * §4.5 rule 3: an identical create while the first is still being processed
 * answers 409 IN_PROGRESS. idempotency.in-progress sends two identical
 * creates a third of the way into the hold the control plane puts on each.
 * Here the first of each pair reaches the platform 1 s late (a proxy holds
 * it), so the second is the one the platform takes first: the check used to
 * read the order it sent them in as the order the platform saw, and failed
 * (issue 38: a slow network or machine turned into a breach). It now judges
 * the pair as the platform answered it, and passes.
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

/** A proxy to `origin` that holds the first create under each Idempotency-Key `delayMs` before passing it on. */
async function firstCreateLate(origin: string, delayMs: number): Promise<Server> {
  const upstream = new URL(origin);
  const seen = new Set<string>();
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      const late = req.method === 'POST' && typeof key === 'string' && !seen.has(key);
      if (typeof key === 'string') seen.add(key);
      setTimeout(() => {
        const out = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on('error', () => res.writeHead(502).end());
        out.end(Buffer.concat(chunks));
      }, late ? delayMs : 0);
    });
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  return proxy;
}

describe('idempotency.in-progress judges two identical creates as the platform saw them', () => {
  it('the first create reaching the platform 1 s late (after the second): the second is the original, the first 409 IN_PROGRESS, and the check passes', async () => {
    const s = await serveSimulator();
    closers.push(() => s.close());
    const proxy = await firstCreateLate(s.origin, 1_000);
    closers.push(() => new Promise<void>((ok) => {
      proxy.closeAllConnections();
      proxy.close(() => ok());
    }));
    const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${new URL(s.partner.baseUrl!).pathname}`;
    const report = await runConformance({ ...s.partner, ...s.platform, baseUrl, checks: ['idempotency.in-progress'] });
    const result = report.results[0]!;
    expect([result.outcome, result.failure ?? result.reason ?? result.error ?? '']).toEqual(['passed', '']);
  });
});
