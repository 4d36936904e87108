/**
 * How a delivery leaves the simulator. Injected into the worker, so tests
 * can use nock or a fake without mocking modules (HOUSE-STYLE: Transport).
 */
import http, { Agent as HttpAgent, type ClientRequest, type RequestOptions } from 'node:http';
import https, { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Outcome } from '../domain/delivery.ts';

export interface Transport {
  /** `method` is POST (§2.6: the envelope is posted) unless a fault says otherwise. */
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, method?: string): Promise<Outcome>;
}

/**
 * Deliveries go one at a time per integration (§6.2), so each one's round
 * trip bounds the rate: the connection is kept for the next post instead of
 * being opened again. Idle sockets are dropped after 4 s (undici's default,
 * which the fetch transport used to rely on) or earlier when the receiver
 * announces a shorter Keep-Alive timeout, so a receiver that closes idle
 * connections is not handed a dead one. At most one post per integration is
 * in flight (§6.2), so a receiver gets at most one connection per
 * integration pointing at it; the cap is a guard set well above that, so a
 * post does not wait in the agent's queue while its time-out runs.
 */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 4_000 };

export interface NodeTransportOptions {
  /**
   * PEM certificates trusted for https:// webhook URLs besides Node's bundled
   * roots: a test receiver's own (conformance/receiver-tls.ts). Without it the
   * https agent keeps Node's default trust (NODE_EXTRA_CA_CERTS included).
   */
  ca?: string[];
}

/**
 * node:http(s) over keep-alive agents. A time-out (no answer within
 * `timeoutMs`, connecting included) or a refused connection is an outcome
 * without a status; any answer is its status, redirects included (a 3xx is
 * not followed: like any answer but a 2xx or 410 it is a failed attempt,
 * spec webhooks responses). The answer's body is read to its end, within the
 * same time-out, so the socket can carry the next post.
 */
export function nodeTransport(options: NodeTransportOptions = {}): Transport {
  const httpAgent = new HttpAgent(AGENT_OPTIONS);
  // A given `ca` replaces Node's trust, so the bundled roots go with it: a public https URL still verifies.
  const httpsAgent = new HttpsAgent(options.ca ? { ...AGENT_OPTIONS, ca: [...rootCertificates, ...options.ca] } : AGENT_OPTIONS);
  const open = (url: string, request: RequestOptions): ClientRequest => {
    const target = new URL(url);
    // request is looked up at call time, not bound at import: an interceptor installed after this module loaded (nock,
    // in a test worker that loaded it for an earlier file) still sees the call.
    // §2.1 webhook.url is the delivery target, http or https alike: webhooks.https-delivery registers an https:// URL
    // (its receiver behind a TLS front) and fails when this line does not send it (issue 40).
    if (target.protocol === 'https:') return https.request(target, { ...request, agent: httpsAgent });
    if (target.protocol === 'http:') return http.request(target, { ...request, agent: httpAgent });
    // Stryker disable next-line StringLiteral: unreachable from the API: the staff plane accepts only http(s) webhook URLs (staff/routes.ts webhookUrl)
    throw new Error(`unsupported webhook URL scheme ${target.protocol}`);
  };
  return {
    post(url, headers, body, timeoutMs, method = 'POST') {
      return new Promise<Outcome>((resolve) => {
        let req: ClientRequest | null = null;
        let settled = false;
        const finish = (outcome: Outcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve(outcome);
        };
        let status: number | null = null;
        const deadline = setTimeout(() => {
          // An answer whose body is still arriving keeps its status, as it did under fetch.
          finish(status === null ? { error: `no answer within ${timeoutMs} ms` } : { status });
          req?.destroy();
        }, timeoutMs);
        deadline.unref();
        try {
          req = open(url, { method, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } });
        }
        // Stryker disable next-line all: open() throws only for a webhook URL the staff plane let through that URL() cannot parse: a staff configuration error, not the API
        // (Stryker reads only a node's leading comments: here, between the try block and its catch, this one leads the catch clause.)
        catch (e) {
          finish({ error: (e as Error).message });
          return;
        }
        req.on('response', (res) => {
          const answered = { status: res.statusCode ?? 0 };
          status = answered.status;
          res.on('end', () => finish(answered));
          // Cut off mid-body: the status was already answered.
          res.on('close', () => finish(answered));
          res.resume();
        });
        req.on('error', (e) => finish(status === null ? { error: e.message } : { status }));
        req.end(body);
      });
    },
  };
}

/** The default transport: Node's own trust for https:// webhook URLs. */
export const httpTransport: Transport = nodeTransport();
