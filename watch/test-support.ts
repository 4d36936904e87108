/**
 * Exchanges for watch's tests, shaped as the simulator answers (so the
 * response check finds nothing but what a test breaks on purpose), on a
 * clock that moves one second per exchange.
 */
import type { WatchedExchange } from './exchange.ts';

export const SLUG = 'acme-channel';
export const CREDENTIAL = 'key-000000000001';

export class Traffic {
  private t = Date.parse('2026-10-01T10:00:00.000Z');

  constructor(private readonly stepMs = 1_000) {}

  /** The next exchange's start. */
  private next(): string {
    this.t += this.stepMs;
    return new Date(this.t).toISOString();
  }

  /** Moves the clock on (minutes of quiet between exchanges). */
  wait(ms: number): this {
    this.t += ms;
    return this;
  }

  api(method: string, path: string, status: number, body: unknown, o: { request?: unknown; headers?: Record<string, string>; responseHeaders?: Record<string, string>; credential?: string } = {}): WatchedExchange {
    return {
      kind: 'api', at: this.next(), ms: 5, method, path,
      requestHeaders: { accept: 'application/json', ...(o.request !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
      requestBody: o.request === undefined ? '' : JSON.stringify(o.request),
      status, responseHeaders: { 'content-type': 'application/json; charset=utf-8', ...o.responseHeaders },
      responseBody: typeof body === 'string' ? body : JSON.stringify(body),
      credential: o.credential ?? CREDENTIAL,
    };
  }

  delivery(envelope: Record<string, unknown>, status = 200, headers: Record<string, string> = { 'x-service-integration': SLUG }): WatchedExchange {
    return {
      kind: 'delivery', at: this.next(), ms: 3, method: 'POST', path: '/webhook',
      requestHeaders: { 'content-type': 'application/json', ...headers }, requestBody: JSON.stringify(envelope),
      status, responseHeaders: { 'content-type': 'text/plain' }, responseBody: status === 200 ? 'ok' : 'refused',
    };
  }
}

/** An event envelope (§2.5) of the demo world's first integration. */
export function envelope(sequence: number, o: { type?: string; id?: string; property?: number; from?: string; to?: string; data?: unknown } = {}): Record<string, unknown> {
  return {
    id: o.id ?? `01JEVENT${String(sequence).padStart(18, '0')}`,
    type: o.type ?? 'rates.changed', version: '2026-09', sequence, occurred_at: '2026-10-01T10:00:00+05:30',
    integration: { id: 1, slug: SLUG },
    property: { doorloom_id: o.property ?? 101, external_id: 'SEA-VIEW', master_property_id: 101 },
    window: { from: o.from ?? '2026-11-01', to: o.to ?? '2026-11-01' },
    data: o.data ?? [{ date: o.from ?? '2026-11-01', base_rate: 4000 }],
  };
}

/** A replay row (§2.6). */
export function row(event: Record<string, unknown>, status = 'delivered'): Record<string, unknown> {
  return { sequence: event.sequence, status, delivered_at: status === 'delivered' ? '2026-10-01T10:00:01+05:30' : null, event };
}

/** A GET /events answer (§4.6). */
export function page(after: number, rows: Record<string, unknown>[], o: { next?: number; hasMore?: boolean; latest?: number } = {}): Record<string, unknown> {
  const last = rows.length > 0 ? (rows.at(-1)!.sequence as number) : after;
  return {
    success: true, message: 'Events retrieved.', data: rows,
    cursor: { after_sequence: after, next_after_sequence: o.next ?? last, has_more: o.hasMore ?? false, latest_sequence: o.latest ?? Math.max(last, o.next ?? 0), retention_days: 30 },
  };
}

/** GET /me's answer naming the integration. */
export function me(lastSequence = 0): Record<string, unknown> {
  return {
    success: true, message: 'Integration retrieved.',
    data: {
      id: 1, slug: SLUG, name: 'Acme Channel Manager', status: 'active', brand: { id: 1, name: 'Seaside Stays' }, api_version: '2026-09',
      webhook: { configured: true, url: 'http://127.0.0.1:9/webhook', event_types: ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed'], last_sequence: lastSequence, undelivered_events: 0, consecutive_failures: 0, last_success_at: null, last_failure_at: null, paused_at: null, paused_reason: null },
      horizon_days: 365, covered_properties: 4,
    },
  };
}
