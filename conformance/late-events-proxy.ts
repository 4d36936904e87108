/**
 * For tests: a partner API in front of another that shows each event only
 * `delayMs` after it occurred, as a platform that records a change's events
 * a moment after the change would (nothing in §1 or §6 says at once). An
 * event not yet shown is absent everywhere a partner could see it: from
 * replay pages, from `cursor.latest_sequence` and from `GET /me`'s
 * `webhook.last_sequence`. Everything else passes through unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LateEventsProxy {
  /** The API root to test against (`…/api/integrations/v1`). */
  baseUrl: string;
  close(): Promise<void>;
}

export async function lateEventsProxy(upstreamApiRoot: string, delayMs: number): Promise<LateEventsProxy> {
  const upstream = new URL(upstreamApiRoot);
  const root = upstream.pathname.replace(/\/$/, '');
  /** The lowest sequence not shown yet (Infinity when every event is), from the whole log as the caller's key reads it. */
  const firstHidden = async (authorization: string): Promise<number> => {
    let first = Infinity;
    for (let after = 0, more = true; more;) {
      const page = await fetch(`${upstream.origin}${root}/events?after_sequence=${after}&limit=200&include_superseded=true`, { headers: { Authorization: authorization } });
      const body = (await page.json()) as any;
      for (const r of body.data ?? []) if (Date.parse(r.event.occurred_at) > Date.now() - delayMs) first = Math.min(first, r.sequence);
      after = body.cursor?.next_after_sequence ?? after;
      more = body.cursor?.has_more === true;
    }
    return first;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const path = new URL(req.url!, 'http://proxy').pathname;
        const hiding = req.method === 'GET' && (path === `${root}/events` || path === `${root}/me`);
        const hidden = hiding ? await firstHidden(req.headers.authorization ?? '') : Infinity;
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
        const answer = await fetch(`${upstream.origin}${req.url}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
        let text = await answer.text();
        if (hiding && answer.status === 200 && hidden !== Infinity) {
          const body = JSON.parse(text);
          const latest = hidden - 1;
          if (path.endsWith('/me')) body.data.webhook.last_sequence = Math.min(body.data.webhook.last_sequence, latest);
          else {
            const shown = body.data.filter((r: any) => r.sequence < hidden);
            if (shown.length < body.data.length) body.cursor = { ...body.cursor, has_more: false, next_after_sequence: shown.at(-1)?.sequence ?? body.cursor.after_sequence };
            body.data = shown;
            body.cursor.latest_sequence = Math.min(body.cursor.latest_sequence, latest);
          }
          text = JSON.stringify(body);
        }
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') out[k] = v;
        });
        res.writeHead(answer.status, out).end(text);
      } catch (e) {
        res.writeHead(502).end(String(e));
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${root}`,
    close: () => new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
