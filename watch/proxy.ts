/**
 * A reverse proxy that changes nothing: each request is forwarded to the
 * upstream as it came (method, path below the root, headers, body streamed),
 * each answer back as it came (status, headers, body streamed), on kept-alive
 * connections. A copy of each body, up to a bound, is kept aside; once the
 * answer is complete the exchange is handed to `onExchange` (the judge). If
 * judging throws, forwarding goes on (the caller counts and says it). The
 * webhook forwarder is the same proxy in front of the partner's endpoint.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ExchangeKind, WatchedExchange } from './exchange.ts';
import { credentialOf } from './credential.ts';

/** Body bytes kept per direction for judging; a longer body is forwarded whole and judged as truncated. */
export const KEPT_BODY_BYTES = 1 << 20;

/** Hop-by-hop headers (RFC 9110 §7.6.1): they belong to one connection, not to the message. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

export interface ForwarderOptions {
  kind: ExchangeKind;
  /**
   * Where requests go: the platform's API root (`…/api/integrations/v1`:
   * every path goes to its origin unchanged, and only those below the root
   * are judged) or the partner's webhook URL (`exactTarget`).
   */
  upstream: string;
  /** Post every request to the upstream URL itself, whatever path it came on (the webhook forwarder: the partner's one endpoint). */
  exactTarget?: boolean;
  onExchange(e: WatchedExchange): void;
  /** Said once when forwarding itself fails (the upstream unreachable): the client gets 502. */
  onUpstreamError?(message: string): void;
  /** Unix ms now (injected for tests). */
  now?(): number;
}

/** Collects up to KEPT_BODY_BYTES of a stream's chunks without holding it back. */
class BodyCopy {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  add(chunk: Buffer): void {
    if (this.size >= KEPT_BODY_BYTES) {
      this.truncated = true;
      return;
    }
    const room = KEPT_BODY_BYTES - this.size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function headerRecord(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    out[name] = out[name] === undefined ? raw[i + 1]! : `${out[name]}, ${raw[i + 1]!}`;
  }
  return out;
}

/** The headers to send on, as received (names in their case, repeated ones kept), without hop-by-hop ones and Host. */
function forwardable(raw: string[], dropHost: boolean): OutgoingHttpHeaders {
  const connectionNamed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) connectionNamed.add(n.trim().toLowerCase());
  }
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connectionNamed.has(lower) || (dropHost && lower === 'host')) continue;
    const prev = out[name];
    out[name] = prev === undefined ? raw[i + 1]! : Array.isArray(prev) ? [...prev, raw[i + 1]!] : [prev, raw[i + 1]!];
  }
  return out;
}

/** The path below the API root (with its query), or null when `path` lies outside it. */
function belowRoot(path: string, root: string): string | null {
  if (root === '') return path;
  if (path === root || path.startsWith(`${root}?`)) return `/${path.slice(root.length)}`;
  return path.startsWith(`${root}/`) ? path.slice(root.length) : null;
}

/** A request handler that forwards to `upstream` and reports each completed exchange. */
export function createForwarder(options: ForwarderOptions): { handle(req: IncomingMessage, res: ServerResponse): void; close(): void } {
  const target = new URL(options.upstream);
  const secure = target.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 256 }) : new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const send = secure ? httpsRequest : httpRequest;
  const rootPath = target.pathname.replace(/\/$/, '');
  const now = options.now ?? Date.now;

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = now();
    const t0 = performance.now();
    const requestCopy = new BodyCopy();
    const responseCopy = new BodyCopy();
    const path = req.url ?? '/';
    const headers = forwardable(req.rawHeaders, true);
    headers.host = target.host;
    let status: number | null = null;
    let answerMs: number | undefined;
    let responseHeaders: Record<string, string> = {};
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      // What lies outside the API root is forwarded but is not the API's: not judged.
      if (below === null) return;
      const requestHeaders = headerRecord(req.rawHeaders);
      const { authorization, ...rest } = requestHeaders;
      const exchange: WatchedExchange = {
        kind: options.kind,
        at: new Date(started).toISOString(),
        ms: Math.ceil((performance.now() - t0) * 10) / 10,
        ...(answerMs !== undefined ? { answerMs } : {}),
        method: (req.method ?? 'GET').toUpperCase(),
        path: below,
        requestHeaders: options.kind === 'api' ? rest : requestHeaders,
        requestBody: requestCopy.text(),
        status,
        responseHeaders,
        responseBody: responseCopy.text(),
        ...(options.kind === 'api' ? { credential: credentialOf(authorization) } : {}),
        ...(requestCopy.truncated || responseCopy.truncated ? { truncated: true } : {}),
      };
      options.onExchange(exchange);
    };
    // The upstream path: the root's path, then the request's path below watch's root.
    // The API keeps its own paths: the partner's base URL is watch's origin with the platform's API root.
    const upstreamPath = options.exactTarget ? target.pathname + target.search : path;
    const below = options.kind === 'api' ? belowRoot(path, rootPath) : path;
    const upstreamReq = send({ protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: upstreamPath, headers, agent }, (upstreamRes) => {
      status = upstreamRes.statusCode ?? null;
      answerMs = Math.floor((performance.now() - t0) * 10) / 10;
      responseHeaders = headerRecord(upstreamRes.rawHeaders);
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, forwardable(upstreamRes.rawHeaders, false));
      // Streamed through as it comes (pipe keeps the back-pressure); the copy only looks.
      upstreamRes.on('data', (chunk: Buffer) => responseCopy.add(chunk));
      upstreamRes.pipe(res);
      res.on('finish', report);
      upstreamRes.on('error', () => {
        res.destroy();
        report();
      });
    });
    upstreamReq.on('error', (err) => {
      options.onUpstreamError?.(`cannot reach ${target.origin}: ${err.message}`);
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' }).end('watch: the upstream is unreachable\n');
      else res.destroy();
      report();
    });
    // A client that goes away takes the upstream request with it (a platform's delivery time-out, §6.2).
    res.on('close', () => {
      if (!res.writableFinished) {
        upstreamReq.destroy();
        report();
      }
    });
    req.on('data', (chunk: Buffer) => requestCopy.add(chunk));
    req.pipe(upstreamReq);
  }

  return { handle, close: () => agent.destroy() };
}
