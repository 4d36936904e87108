/**
 * A loopback webhook receiver for people and tests: verifies signatures with
 * the given secrets, checks X-Service-Integration when told the slug, keeps
 * what it received, and can be switched to fail, time out or answer 410 so
 * every delivery path of the simulator can be watched.
 *
 * Every delivery it refuses is kept with the reason (a bad or missing
 * signature, a stale timestamp, a missing or wrong X-Service-Integration),
 * and a delivery whose sequence is below one already received is kept as out
 * of order (§6.2), so a conformance check names the breach instead of seeing
 * "nothing arrived". An out-of-order delivery is still answered as the mode
 * says: refusing it would only make the platform retry it (receivers drop
 * older events themselves, §6.4).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INTEGRATION_HEADER, SIGNATURE_HEADER, verifySignature, type Verdict } from '../../protocol/signature.ts';
import { deliveryProblems, type DeliveryProblem } from '../../protocol/delivery-problems.ts';
import { SERVER_TIMEOUTS } from '../http/server-timeouts.ts';

export type { DeliveryProblem };

/** How the receiver answers: 200, 500, never, 410, or 300 (`multiple-choices`: a 3xx, which is no 2xx either, §6.2). */
export type ReceiverMode = 'ok' | 'fail' | 'timeout' | 'gone' | 'multiple-choices';

export interface ReceivedDelivery {
  /** The HTTP method it came with (§2.6: envelopes are posted). */
  method: string;
  body: string;
  type: string;
  sequence: number | null;
  verdict: Verdict;
  slugOk: boolean;
  /** The X-Service-Integration value as sent; null when the header is missing. */
  integrationHeader: string | null;
  /** The signature header as sent (its v1 values are counted during a rotation, §5.4); null when missing. */
  signature: string | null;
  /** The Content-Type header as sent; null when missing. */
  contentType: string | null;
  /** Every problem found, empty when the delivery is in order, signed and named (§5.4, §6.2, §6.3). */
  problems: DeliveryProblem[];
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
  /** The deliveries that had a problem (refused, or out of order), in arrival order. */
  readonly problems: ReceivedDelivery[];
  setMode(mode: ReceiverMode): void;
  /** Overrides the mode per delivery (e.g. fail only one sequence); undefined falls back to the mode. */
  setPolicy(policy: ((d: ReceivedDelivery) => ReceiverMode | undefined) | null): void;
  close(): Promise<void>;
}

const STATUS: Record<Exclude<ReceiverMode, 'timeout'>, number> = { ok: 200, fail: 500, gone: 410, 'multiple-choices': 300 };

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  let mode: ReceiverMode = options.mode ?? 'ok';
  let policy: ((d: ReceivedDelivery) => ReceiverMode | undefined) | null = null;
  const received: ReceivedDelivery[] = [];
  let highest: number | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const now = options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
      const signature = (req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined) ?? null;
      const verdict = verifySignature(signature ?? undefined, body, options.secrets, now, options.toleranceSeconds);
      const raw = req.headers[INTEGRATION_HEADER.toLowerCase()];
      const integrationHeader = raw === undefined ? null : String(raw);
      const slugOk = options.slug === undefined || integrationHeader === options.slug;
      let parsed: { type?: string; sequence?: number } = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        // Recorded as received; refused below by its signature check anyway.
      }
      const sequence = typeof parsed.sequence === 'number' ? parsed.sequence : null;
      const method = req.method ?? '?';
      const problems = deliveryProblems(method, verdict, integrationHeader, options.slug, sequence, highest);
      if (sequence !== null) highest = Math.max(highest ?? sequence, sequence);
      const contentType = (req.headers['content-type'] as string | undefined) ?? null;
      const delivery: ReceivedDelivery = { method, body, type: parsed.type ?? '?', sequence, verdict, slugOk, integrationHeader, signature, contentType, problems, answered: null };
      received.push(delivery);
      const answer = policy?.(delivery) ?? mode;
      if (answer === 'timeout') return void options.onDelivery?.(delivery);
      delivery.answered = !verdict.ok || !slugOk ? 400 : STATUS[answer];
      res.writeHead(delivery.answered, { 'Content-Type': 'text/plain' }).end(delivery.answered === 200 ? 'ok' : 'refused');
      options.onDelivery?.(delivery);
    });
  });
  // An idle keep-alive connection outlives a platform client's (as the simulator's own, server-timeouts.ts): the platform
  // closes it first and never posts on a socket the receiver is closing, so a failure without a request is the platform's.
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveMs;
  await new Promise<void>((ok, ko) => server.once('error', ko).listen(options.port ?? 0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    server,
    received,
    get problems() {
      return received.filter((d) => d.problems.length > 0);
    },
    setMode: (m) => void (mode = m),
    setPolicy: (p) => void (policy = p),
    close: () => new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
