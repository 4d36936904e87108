/**
 * A loopback webhook receiver for people and tests: verifies signatures with
 * the given secrets, checks X-Service-Integration when told the slug, keeps
 * what it received, and can be switched to fail, time out or answer 410 so
 * every delivery path of the simulator can be watched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INTEGRATION_HEADER, SIGNATURE_HEADER, verifySignature, type Verdict } from './signature.ts';

export type ReceiverMode = 'ok' | 'fail' | 'timeout' | 'gone';

export interface ReceivedDelivery {
  body: string;
  type: string;
  sequence: number | null;
  verdict: Verdict;
  slugOk: boolean;
  answered: number | null;
}

export interface ReceiverOptions {
  secrets: string[];
  slug?: string;
  mode?: ReceiverMode;
  port?: number;
  /** Unix seconds now; the receiver's own clock by default. */
  nowSeconds?: () => number;
  toleranceSeconds?: number;
  onDelivery?: (d: ReceivedDelivery) => void;
}

export interface Receiver {
  url: string;
  server: Server;
  received: ReceivedDelivery[];
  setMode(mode: ReceiverMode): void;
  close(): Promise<void>;
}

const STATUS: Record<Exclude<ReceiverMode, 'timeout'>, number> = { ok: 200, fail: 500, gone: 410 };

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  let mode: ReceiverMode = options.mode ?? 'ok';
  const received: ReceivedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const now = options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
      const verdict = verifySignature(req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined, body, options.secrets, now, options.toleranceSeconds);
      const slugOk = options.slug === undefined || req.headers[INTEGRATION_HEADER.toLowerCase()] === options.slug;
      let parsed: { type?: string; sequence?: number } = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        // Recorded as received; refused below by its signature check anyway.
      }
      const delivery: ReceivedDelivery = { body, type: parsed.type ?? '?', sequence: parsed.sequence ?? null, verdict, slugOk, answered: null };
      received.push(delivery);
      if (mode === 'timeout') return void options.onDelivery?.(delivery);
      delivery.answered = !verdict.ok || !slugOk ? 400 : STATUS[mode];
      res.writeHead(delivery.answered, { 'Content-Type': 'text/plain' }).end(delivery.answered === 200 ? 'ok' : 'refused');
      options.onDelivery?.(delivery);
    });
  });
  await new Promise<void>((ok) => server.listen(options.port ?? 0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    server,
    received,
    setMode: (m) => void (mode = m),
    close: () => new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
