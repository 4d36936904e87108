/**
 * A request whose path goes on the wire exactly as written. `fetch` parses
 * its URL by the WHATWG rules, which remove `.` and `..` segments (and their
 * percent-encoded spellings `%2E`, `%2e`) before anything is sent, so a
 * check cannot ask a platform how it routes them through `fetch`; this sends
 * the request line as given (node:http), and hands back a fetch Response so
 * the client treats the answer as any other. node:http has no time-out of
 * its own: untimed-fetch.ts sends through it too.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RawPathRequest {
  method: string;
  /** The target's origin (`http://host:port`). */
  origin: string;
  /** The path and query, sent byte for byte. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export function fetchRawPath(req: RawPathRequest): Promise<globalThis.Response> {
  const origin = new URL(req.origin);
  const send = origin.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send({ protocol: origin.protocol, hostname: origin.hostname, port: origin.port || undefined, method: req.method, path: req.path, headers: req.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(new TypeError('fetch failed', { cause: e })));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
        }
        const status = res.statusCode ?? 0;
        // A fetch Response carries no body on a null-body status (RFC 9110: 204, 205, 304).
        const body = [204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers }));
      });
    });
    // Thrown as fetch throws (a TypeError whose cause is the socket error), so resend.ts and unreachable.ts read both alike.
    const failed = (e: Error) => reject(new TypeError('fetch failed', { cause: e }));
    outgoing.on('error', failed);
    outgoing.end(req.body);
  });
}
