/**
 * `fetch` without its own time-out: undici gives up on an answer whose
 * headers take longer than 300 s, and a staff or control call can do hours of
 * platform work in one request (a clock advanced through a month of retries),
 * which a loaded machine may take longer than that over. The answer is waited
 * for however long it takes (node:http has no time-out of its own), as any
 * event a verdict waits for (issue 38); the caller's own cap, where it has
 * one, still ends the wait. Errors are thrown as fetch throws them
 * (raw-path.ts), so resend.ts reads both alike.
 */
import { fetchRawPath } from './raw-path.ts';

export function untimedFetch(url: string, init: { method: string; headers: Record<string, string>; body?: string | Uint8Array }): Promise<Response> {
  const target = new URL(url);
  return fetchRawPath({ method: init.method, origin: target.origin, path: `${target.pathname}${target.search}`, headers: init.headers, body: init.body });
}
