/**
 * One exchange of real traffic as watch judges it, and as a line of its JSONL
 * capture format: a partner's call to the API (`api`) or a webhook delivery
 * the platform posted to the partner (`delivery`), request and answer.
 * Secrets never appear in one: the API key is replaced by a credential id
 * (`credential.ts`), and the JSONL recorder redacts every secret-shaped token.
 */

export type ExchangeKind = 'api' | 'delivery';

export interface WatchedExchange {
  kind: ExchangeKind;
  /** When the request started, ISO 8601 (the order of judging). */
  at: string;
  /** Milliseconds from the request's start to the end of its answer (or to giving up). */
  ms: number;
  /** Milliseconds from the request's start to the answer's status line, when the recorder knew it (watch's own proxy does). */
  answerMs?: number;
  method: string;
  /** `api`: the path below the API root with its query (`/events?after_sequence=3`); `delivery`: the webhook path. */
  path: string;
  /** Header names in lower case; a repeated header joined with `, `. */
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** The answer's status; null when there was none (connection lost, time-out). */
  status: number | null;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** `api`: which API key made the call, as a digest (`key-…`), never the key. */
  credential?: string;
  /** True when a body was longer than the recorder keeps: byte judgements skip it. */
  truncated?: boolean;
}

/** Unix milliseconds of the request's start. */
export function startOf(e: WatchedExchange): number {
  // Judging one exchange asks for its start many times: the last one parsed is kept.
  if (e.at !== lastAt) {
    lastAt = e.at;
    lastStart = Date.parse(e.at);
  }
  return lastStart;
}
let lastAt = '';
let lastStart = Number.NaN;

/** Unix milliseconds by which the answer had begun (its status line; the end when that is not recorded). */
export function answeredBy(e: WatchedExchange): number {
  return startOf(e) + (e.answerMs ?? e.ms);
}

/** Unix milliseconds of the end of the answer. */
export function endOf(e: WatchedExchange): number {
  return startOf(e) + e.ms;
}

/** The body parsed as JSON, or undefined when it is empty or not JSON. */
export function jsonOf(text: string): any {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The path without its query, and the query's parameters. */
export function splitPath(path: string): { pathname: string; query: URLSearchParams } {
  // Judging one exchange splits its path more than once: the last split is kept (the query is only read).
  if (path === lastPath) return lastSplit;
  const i = path.indexOf('?');
  lastSplit = i < 0 ? { pathname: path, query: new URLSearchParams() } : { pathname: path.slice(0, i), query: new URLSearchParams(path.slice(i + 1)) };
  lastPath = path;
  return lastSplit;
}
let lastPath: string | undefined;
let lastSplit: { pathname: string; query: URLSearchParams } = { pathname: '', query: new URLSearchParams() };

/** `GET /events?after_sequence=3 at 2026-…`: where an exchange was, for a finding's line. */
export function whereOf(e: WatchedExchange): string {
  return `${e.kind === 'delivery' ? 'delivery ' : ''}${e.method} ${e.path} → ${e.status ?? 'no answer'} at ${e.at}`;
}
