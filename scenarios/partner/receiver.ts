/**
 * The webhook listener: plain node:http on loopback. It only does HTTP: reads
 * the raw body (signatures are over the raw bytes), answers 410 on retired
 * paths, 404 elsewhere, and hands deliveries on its path to the partner,
 * whose verdict becomes the answer. Answers close the connection, so a
 * restart never leaves the platform holding a dead keep-alive socket.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceiverConfig } from './config.ts';

/** Bodies above this are refused (the largest event, a month of availability, is a few kilobytes). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface IncomingDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export interface DeliveryAnswer {
  status: number;
}

export interface Receiver {
  /** `http://host:port/path` as the listener sees itself (loopback). */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startReceiver(config: ReceiverConfig, handle: (d: IncomingDelivery) => Promise<DeliveryAnswer>, onGated?: (d: IncomingDelivery, status: number) => void): Promise<Receiver> {
  const path = config.path ?? '/webhook';
  const host = config.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      const reply = (status: number) => res.writeHead(status, { 'Content-Type': 'text/plain', Connection: 'close' }).end(String(status));
      const delivery: IncomingDelivery = { path: (req.url ?? '/').split('?')[0]!, headers: req.headers, rawBody: Buffer.concat(chunks) };
      const gated = config.gate?.() ?? null;
      if (gated !== null) {
        onGated?.(delivery, gated);
        return reply(gated);
      }
      if (req.method !== 'POST') return reply(405);
      // §3.1: a path we no longer serve says so; the platform pauses delivery as `gone`.
      if (config.retiredPaths?.includes(delivery.path)) {
        onGated?.(delivery, 410);
        return reply(410);
      }
      if (delivery.path !== path) return reply(404);
      if (size > MAX_BODY_BYTES) return reply(413);
      handle(delivery).then((a) => reply(a.status), () => reply(500));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(config.port ?? 0, host, () => {
      server.off('error', fail);
      ok();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}${path}`,
    port,
    close: () => new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
