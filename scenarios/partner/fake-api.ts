/**
 * A scripted API for unit tests: answers requests in order from a script
 * and records what the partner sent (method, path, headers, body). Injected
 * as the partner's `fetch`, so nothing is mocked.
 */
export interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'network-error' | 'reset-before-answer';

export function scriptedFetch(answers: Answer[]): { fetch: typeof fetch; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const impl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    sent.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, headers: { ...(init?.headers as Record<string, string>) }, body: init?.body as string | undefined });
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unscripted request ${init?.method} ${url.pathname}`);
    if (answer === 'network-error') throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
    // What undici throws when a kept-alive socket was closed by the server just as the request went out.
    if (answer === 'reset-before-answer') throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': 'application/json', ...answer.headers } });
  };
  return { fetch: impl as typeof fetch, sent };
}

export const envelope = (data: unknown, siblings: Record<string, unknown> = {}) => ({ success: true, message: 'ok', data, ...siblings });
export const failure = (code: string, errors: Record<string, unknown> = {}) => ({ success: false, code, message: code, errors });
