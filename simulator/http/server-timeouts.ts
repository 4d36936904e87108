/**
 * Time limits of the listening server (issue 17: a slow request body was
 * held for Node's default 300 s, so a few slow clients could pin sockets and
 * memory). Whole request (headers and body) within 30 s, headers within
 * 10 s, an idle keep-alive socket closed after 65 s. Node answers a request
 * that overruns with 408 and closes the socket. docs/simulator.md documents them.
 *
 * The idle time-out is longer than any common client's (fetch/undici keeps an idle socket 4 s, browsers and load
 * balancers up to 60 s), so the client closes an idle connection first, provided the server does not announce it
 * (keepAliveUnannounced: fetch follows an announced limit to within 2 s). At 5 s, a loaded one-core machine saw the
 * server close a socket just as a client sent a create on it: ECONNRESET on a POST, then never resent (RFC 9110
 * §9.2.2), and the check that made it errored (issue 38). An idle socket costs a file descriptor, not a request
 * slot; the header and request limits still bound a slow client.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface ServerTimeouts {
  /** The whole request, headers and body, must arrive within this (Node's `requestTimeout`). */
  requestMs: number;
  /** The headers must arrive within this (Node's `headersTimeout`). */
  headersMs: number;
  /** An idle keep-alive connection is closed after this (Node's `keepAliveTimeout`). */
  keepAliveMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 65_000 };

export function applyTimeouts(server: Server, limits: ServerTimeouts = SERVER_TIMEOUTS): Server {
  server.requestTimeout = limits.requestMs;
  server.headersTimeout = limits.headersMs;
  server.keepAliveTimeout = limits.keepAliveMs;
  // Node checks the two request limits on this interval (default 30 s): no longer than the shortest of them.
  (server as Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(limits.headersMs, 1_000);
  return server;
}

/**
 * The idle limit unannounced. Node's server announces it (`Keep-Alive: timeout=65`) and fetch (undici) then keeps an
 * idle socket until 2 s before it, so a client stalled 2 s on a loaded machine sent a request on a socket the server was
 * closing: ECONNRESET, and only an idempotent request is sent again. Unannounced, fetch keeps an idle socket its own
 * 4 s, far inside the server's 65. Node leaves the hint out of an answer that names its connection itself; only a
 * request that keeps its connection (HTTP/1.1 without `Connection: close`) is answered so, the others as Node would.
 */
export function keepAliveUnannounced(req: IncomingMessage, res: ServerResponse): void {
  if (req.httpVersion === '1.1' && !/\bclose\b/i.test(req.headers.connection ?? '')) res.setHeader('Connection', 'keep-alive');
}
