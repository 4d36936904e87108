/**
 * The partner's HTTP client for the API (§4, §5, §7): bearer auth, a new key
 * from the vault after a 401 (§5.3), waiting out 429 RATE_LIMITED for the
 * Retry-After it names, and GET /me at most once a minute (§5.7), enforced
 * here against the partner's clock.
 */
import type { Clock } from './clock.ts';
import type { Credentials } from './config.ts';
import type { ApiCall, PartnerObserver } from './observer.ts';
import type { EventRow, Me, Pagination, PropertyRecord, ReplayCursor, SnapshotEnvelope, Booking } from './api-types.ts';

/** §5.7: "polled no more than once a minute". */
export const ME_INTERVAL_MS = 60_000;
/** How many 429 RATE_LIMITED answers in a row the client waits out before giving up. */
export const MAX_RATE_LIMIT_WAITS = 5;
/**
 * A longer Retry-After is handed back to the caller instead of slept through
 * (the POST /sync daily cap answers RATE_LIMITED with up to a day to wait;
 * the caller has better things to do, such as snapshots).
 */
export const MAX_AUTO_WAIT_SECONDS = 120;

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or null. */
  body: T;
  text: string;
}

/** No answer came back (refused connection, reset, time-out): the request may or may not have been processed. */
export class NetworkError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'NetworkError';
  }
}

/** The API answered with something the partner cannot continue from. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string | null, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  credentials: Credentials;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
  observer?: PartnerObserver;
}

export interface Envelope<T> {
  success: boolean;
  code?: string;
  message?: string;
  errors?: Record<string, unknown>;
  data: T;
}

export class PartnerApi {
  private key: string | null = null;
  private lastMe: { at: number; data: Me | null } | null = null;
  /** How many GET /me requests actually left the partner (tests prove the throttle with it). */
  meRequests = 0;

  constructor(private readonly o: ApiClientOptions) {}

  /**
   * One API call. After a 401 the vault is read again and the call repeated
   * once with a newer key; a 429 RATE_LIMITED is waited out (Retry-After)
   * and repeated. Other answers are returned as they are.
   */
  async request<T = unknown>(method: 'GET' | 'POST', path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
    let refreshed = false;
    let resent = false;
    for (let waits = 0; ; ) {
      const key = this.key ?? (this.key = await this.o.credentials.apiKey());
      const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${key}`, ...init.headers };
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      let res: Response;
      try {
        res = await (this.o.fetch ?? fetch)(this.o.baseUrl + path, { method, headers, body: init.body });
      } catch (e) {
        if (!(e instanceof TypeError) && (e as Error).name !== 'AbortError') throw e;
        // RFC 9110 §9.2.2: a GET whose connection closed before any answer (a keep-alive socket the platform closed as
        // idle just as it went out, common on a busy machine) is sent once more; a POST never is (the booking desk
        // retries a create itself, with its Idempotency-Key).
        const code = (e as { cause?: { code?: string } }).cause?.code;
        if (method === 'GET' && !resent && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')) {
          resent = true;
          continue;
        }
        const reason = String((e as { cause?: unknown }).cause ?? (e as Error).message);
        await this.o.observer?.call?.({ method, path, status: null, error: reason, body: null, headers: {}, requestBody: init.body, idempotencyKey: init.headers?.['Idempotency-Key'] });
        throw new NetworkError(`${method} ${path}: no answer (${reason})`, e);
      }
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = null;
      }
      const responseHeaders = Object.fromEntries(res.headers.entries());
      const code = typeof (body as { code?: unknown } | null)?.code === 'string' ? (body as { code: string }).code : undefined;
      await this.o.observer?.call?.({ method, path, status: res.status, code, body, headers: responseHeaders, requestBody: init.body, idempotencyKey: init.headers?.['Idempotency-Key'] });
      if (res.status === 401 && !refreshed) {
        // §5.3: the key was rotated; the operator has put the new one in the vault.
        refreshed = true;
        const next = await this.o.credentials.apiKey();
        if (next !== key) {
          this.key = next;
          this.o.observer?.note?.('API key rejected (401); using the newer key from the vault');
          continue;
        }
        this.o.observer?.note?.('API key rejected (401) and the vault holds no newer key');
      }
      const seconds = Number(responseHeaders['retry-after'] ?? '1');
      if (res.status === 429 && code === 'RATE_LIMITED' && waits < MAX_RATE_LIMIT_WAITS && !(seconds > MAX_AUTO_WAIT_SECONDS)) {
        waits += 1;
        this.o.observer?.note?.(`rate limited; waiting the ${seconds} s Retry-After asks for`);
        await this.o.sleep(Math.max(1, Number.isFinite(seconds) ? seconds : 1) * 1000);
        continue;
      }
      return { status: res.status, headers: responseHeaders, body: body as T, text };
    }
  }

  /** A call that must succeed; anything else is an ApiError naming what came back. */
  async ok<T>(method: 'GET' | 'POST', path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<Envelope<T>>> {
    const res = await this.request<Envelope<T>>(method, path, init);
    if (res.status < 200 || res.status >= 300) {
      const code = (res.body as { code?: string } | null)?.code ?? null;
      throw new ApiError(res.status, code, `${method} ${path} answered ${res.status}${code ? ` ${code}` : ''}`);
    }
    return res;
  }

  /**
   * §4.1, at most once a minute (§5.7): within a minute of the last request
   * the last answer is returned again and nothing is sent. Null when there is
   * no answer to give (the last attempt failed).
   */
  async me(): Promise<Me | null> {
    const now = this.o.clock.now();
    if (this.lastMe && now - this.lastMe.at < ME_INTERVAL_MS) return this.lastMe.data;
    this.lastMe = { at: now, data: null };
    this.meRequests += 1;
    const res = await this.request<Envelope<Me>>('GET', '/me');
    if (res.status !== 200) return null;
    this.lastMe = { at: now, data: res.body.data };
    return res.body.data;
  }

  /** §4.6 one page. Superseded rows are included so a retention gap can be seen; the caller skips them. */
  async events(afterSequence: number, limit = 200): Promise<{ rows: EventRow[]; cursor: ReplayCursor }> {
    const res = await this.ok<EventRow[]>('GET', `/events?after_sequence=${afterSequence}&limit=${limit}&include_superseded=true`);
    return { rows: res.body.data, cursor: (res.body as unknown as { cursor: ReplayCursor }).cursor };
  }

  /** The newest sequence of the integration, without reading a page of events. */
  async latestSequence(): Promise<number> {
    const res = await this.ok<EventRow[]>('GET', '/events?after_sequence=0&limit=1');
    return (res.body as unknown as { cursor: ReplayCursor }).cursor.latest_sequence;
  }

  /** §4.8 (and the rates/restrictions snapshots at the contract's paths). */
  async snapshot(type: 'availability' | 'rates' | 'restrictions', property: number, from: string, to: string): Promise<SnapshotEnvelope> {
    return (await this.ok<SnapshotEnvelope>('GET', `/properties/${property}/${type}?from=${from}&to=${to}`)).body.data;
  }

  /** The property list, every page (spec listProperties). */
  async properties(): Promise<PropertyRecord[]> {
    const out: PropertyRecord[] = [];
    for (let page = 1; ; page++) {
      const res = await this.ok<PropertyRecord[]>('GET', `/properties?page=${page}&per_page=200`);
      out.push(...res.body.data);
      const pagination = (res.body as unknown as { pagination: Pagination }).pagination;
      if (page >= pagination.last_page) return out;
    }
  }

  /** §4.4 every page, oldest update first. */
  async bookings(updatedSince: string | null): Promise<Booking[]> {
    const out: Booking[] = [];
    const since = updatedSince === null ? '' : `&updated_since=${encodeURIComponent(updatedSince)}`;
    for (let page = 1; ; page++) {
      const res = await this.ok<Booking[]>('GET', `/bookings?page=${page}&per_page=200${since}`);
      out.push(...res.body.data);
      const pagination = (res.body as unknown as { pagination: Pagination }).pagination;
      if (page >= pagination.last_page) return out;
    }
  }

  /** §4.5: the caller owns the key and the exact body text (identical on every retry). */
  createBooking(idempotencyKey: string, body: string): Promise<ApiResponse<Envelope<Booking> | null>> {
    return this.request('POST', '/bookings', { body, headers: { 'Idempotency-Key': idempotencyKey } });
  }

  /** §4.7 */
  sync(body: { property_ids?: number[]; types?: string[] } = {}): Promise<ApiResponse<Envelope<unknown>>> {
    return this.request('POST', '/sync', { body: JSON.stringify(body) });
  }
}
