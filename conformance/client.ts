/**
 * The HTTP client checks use: records every exchange (secrets redacted),
 * validates every answer against spec/openapi.yaml (the schema suite runs
 * inside every check), and honours Retry-After on a live target.
 */
import { loadContract, type Contract } from '../spec/contract.ts';
import { ResponseCheck } from './response-check.ts';
import type { Exchange } from './types.ts';
import { type NoAnswer, sendResending } from './resend.ts';
import { TargetUnreachable, unreachableCause } from './unreachable.ts';
import { redact } from './redact.ts';
import { fetchRawPath } from './raw-path.ts';
import { untimedFetch } from './untimed-fetch.ts';
import type { PlatformTime } from './platform-time.ts';

export interface Response {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed body, or undefined when it is empty or not JSON. */
  body: any;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | (string | number)[] | undefined>;
  body?: unknown;
  /** Sent as is (for malformed bodies; bytes for text that is not UTF-8); wins over `body`. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Bearer token; null sends no Authorization header. Defaults to the client's key. */
  token?: string | null;
  /**
   * The caller's word that this POST is idempotent by its meaning (a pause, a clock advance of 0 s): sent once more
   * when its connection closed before any answer, as a GET, PUT or DELETE is by its method (resend.ts, RFC 9110 §9.2.2).
   * A create needs no word: its usable Idempotency-Key makes it so (§4.5, resend.ts `keyedCreate`).
   */
  idempotent?: boolean;
  /**
   * Send the path exactly as written: no removal of `.` and `..` segments or
   * their percent-encoded spellings, which `fetch` does before sending
   * (raw-path.ts). For probes of how a platform routes them.
   */
  rawPath?: boolean;
}

export interface SchemaProblem {
  operation: string;
  status: number;
  problems: string[];
  exchange: number;
}

export interface ClientOptions {
  baseUrl: string;
  token: string;
  secrets: string[];
  /** The environment variable naming the run's credential a request carries (conformance/credential-variables.ts), recorded with the exchange. */
  credentialName?: (sent: string) => string | undefined;
  /** Shared across the clients of a check so exchanges are numbered in order. */
  log: ExchangeLog;
  /** Told the platform's clock from every answer's `Date` header. */
  time?: PlatformTime;
  /** Wait and retry once on 429 with Retry-After (live targets), within this many seconds. */
  retryAfterBudgetSeconds?: number;
  /**
   * Wait for the answer however long it takes (untimed-fetch.ts), not fetch's 300 s for the headers: a control action
   * may do hours of platform work in one call; an answer that comes late is still the answer (issue 38).
   */
  untimed?: boolean;
  contract?: Contract;
}

/** A 429 RATE_LIMITED the client handed back to the check instead of retrying it (§7). */
export interface RateLimitedAnswer {
  exchange: number;
  operation: string;
  /** The Retry-After value as sent; null when the header is missing. */
  retryAfter: string | null;
  /** Seconds to wait, when Retry-After is a number of seconds or an HTTP date; null when absent or unreadable. */
  waitSeconds: number | null;
}

/** The exchanges of one check, in order, the schema problems seen, and the 429s not retried. */
export class ExchangeLog {
  readonly exchanges: Exchange[] = [];
  readonly schemaProblems: SchemaProblem[] = [];
  /** Bookings created (POST /bookings answered 201), counted for the report: a live run leaves them behind. */
  bookingsCreated = 0;
  readonly rateLimited: RateLimitedAnswer[] = [];
}

/** §7 Retry-After: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when missing or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export class ApiClient {
  private readonly contract: Contract;
  private readonly responses: ResponseCheck;

  constructor(private readonly options: ClientOptions) {
    this.contract = options.contract ?? loadContract();
    this.responses = new ResponseCheck(this.contract);
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  withToken(token: string): ApiClient {
    return new ApiClient({ ...this.options, token });
  }

  /** The same client with some options changed (another log, no waiting on 429). */
  withOptions(options: Partial<Pick<ClientOptions, 'log' | 'retryAfterBudgetSeconds'>>): ApiClient {
    return new ApiClient({ ...this.options, contract: this.contract, ...options });
  }

  get(path: string, options: RequestOptions = {}): Promise<Response> {
    return this.request('GET', path, options);
  }

  post(path: string, options: RequestOptions = {}): Promise<Response> {
    return this.request('POST', path, options);
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const token = options.token === undefined ? this.options.token : options.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    const raw = options.rawBody;
    let body: string | undefined = typeof raw === 'string' ? raw : raw === undefined ? undefined : new TextDecoder().decode(raw);
    if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';

    // As written, dot segments and all (raw-path.ts); `url` is what fetch would have sent.
    const rawPath = options.rawPath ? `${new URL(this.options.baseUrl).pathname.replace(/\/$/, '')}${path.split('?')[0]}${url.search}` : null;
    const shown = rawPath === null ? url : { toString: () => url.origin + rawPath, pathname: rawPath.split('?')[0]! };
    // Waits out one 429 (attempt); a call whose connection closed before any answer is sent again when idempotent:
    // by its method, by the caller's word, or as a create under a usable Idempotency-Key (resend.ts, §4.5).
    for (let attempt = 0; ;) {
      const t0 = performance.now();
      let res: globalThis.Response;
      let resent = false;
      try {
        // Bytes are sent as they are; the exchange records them decoded (an invalid sequence as U+FFFD).
        const sent = raw instanceof Uint8Array ? raw : body;
        const call = { method, idempotent: options.idempotent, path: shown.pathname, headers };
        res = await sendResending(call, (n) => {
          resent = n > 1;
          return options.rawPath
            ? fetchRawPath({ method, origin: url.origin, path: rawPath!, headers, body: sent })
            : this.options.untimed ? untimedFetch(url.toString(), { method, headers, body: sent }) : fetch(url, { method, headers, body: sent, redirect: 'manual' });
        });
        this.options.time?.observe(res.headers.get('date'));
      } catch (e) {
        const lost = e as NoAnswer;
        throw new TargetUnreachable(`cannot reach ${redact(url.origin + url.pathname, this.options.secrets)}: ${unreachableCause(lost.cause)}${lost.note}`);
      }
      const text = await res.text();
      const response: Response = { status: res.status, headers: Object.fromEntries(res.headers), text, body: parse(text) };
      const n = this.record(method, shown, headers, body, response, performance.now() - t0);
      if (method === 'POST' && response.status === 201 && url.pathname.endsWith('/bookings')) this.options.log.bookingsCreated += 1;
      this.checkSchema(method, shown.pathname, response, n);
      if (resent && response.status === 409 && response.body?.code === 'IN_PROGRESS') {
        // §4.5 rule 3: the platform is still processing the first sending, whose connection closed before any answer.
        // A correct answer, but not the create's: what became of it is not known yet, so the check cannot be judged on
        // it (an error of the run, as a lost answer is), never a 409 handed to a check that sent one create.
        throw new TargetUnreachable(`cannot reach ${redact(url.origin + url.pathname, this.options.secrets)}: the connection closed before any answer; sent again under its Idempotency-Key, the create was answered 409 IN_PROGRESS (exchange ${n}: §4.5 rule 3, the first is still being processed), so its outcome is not known`);
      }
      if (response.status === 429 && response.body?.code === 'RATE_LIMITED') {
        // Waited out once when Retry-After says how long and it fits the budget; otherwise recorded and handed back as is.
        const budget = this.options.retryAfterBudgetSeconds ?? 0;
        const wait = retryAfterSeconds(response.headers['retry-after']);
        if (attempt === 0 && wait !== null && wait <= budget) {
          await new Promise((r) => setTimeout(r, wait * 1000));
          attempt += 1;
          continue;
        }
        this.options.log.rateLimited.push({ exchange: n, operation: `${method} ${url.pathname}`, retryAfter: response.headers['retry-after'] ?? null, waitSeconds: wait });
      }
      return response;
    }
  }

  private record(method: string, url: { toString(): string }, headers: Record<string, string>, body: string | undefined, res: Response, ms: number): number {
    const log = this.options.log;
    const clean = (s: string) => redact(s, this.options.secrets);
    // Checked before redaction: the header names the credential it carried first, then the URL and the body.
    const credential = this.options.credentialName?.([headers.Authorization ?? '', url.toString(), body ?? ''].join('\n'));
    const exchange: Exchange = {
      n: log.exchanges.length + 1,
      method,
      url: clean(url.toString()),
      requestHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, clean(v)])),
      requestBody: body === undefined ? undefined : clean(truncate(body)),
      status: res.status,
      responseHeaders: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, clean(v)])),
      responseBody: clean(truncate(res.text)),
      ms: Math.round(ms * 10) / 10,
      ...(credential !== undefined ? { credential } : {}),
    };
    log.exchanges.push(exchange);
    return exchange.n;
  }

  private checkSchema(method: string, pathname: string, res: Response, n: number): void {
    const base = new URL(this.options.baseUrl).pathname.replace(/\/$/, '');
    const path = pathname.startsWith(base) ? pathname.slice(base.length) : pathname;
    const verdict = this.responses.judge(method, path, res.status, res.text, res.headers);
    if (verdict && verdict.problems.length > 0) this.options.log.schemaProblems.push({ operation: verdict.operation, status: res.status, problems: verdict.problems, exchange: n });
  }
}

function parse(text: string): any {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const MAX_BODY = 16_000;
function truncate(s: string): string {
  return s.length > MAX_BODY ? `${s.slice(0, MAX_BODY)}… (${s.length - MAX_BODY} more characters)` : s;
}
