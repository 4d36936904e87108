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

// ---------------------------------------------------------------- live

import { addDays, dateAt } from '../protocol/calendar.ts';
import { type NoAnswer, sendResending } from '../conformance/resend.ts';
import { unreachableCause } from '../conformance/unreachable.ts';
import type { RunningSimulator } from '../simulator/start-simulator.ts';
import type { Receiver } from '../simulator/webhooks/receiver.ts';
import { runWatch } from './command.ts';

/** A staff-plane call to the simulator (the webhook URL, rates): GETs and PUTs, sent once more when their connection closed before any answer (conformance/resend.ts). */
export async function staff(sim: RunningSimulator, method: 'GET' | 'PUT', path: string, body?: unknown): Promise<any> {
  const res = await sendResending({ method }, () => fetch(sim.staffUrl + path, { method, headers: { Authorization: `Bearer ${sim.fixtures.staffToken}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }))
    .catch((e: NoAnswer) => {
      throw new Error(`staff ${method} ${path} gave no answer: ${unreachableCause(e.cause)}${e.note}`);
    });
  if (!res.ok) throw new Error(`staff ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * A live watch in front of the simulator (API) and of `webhookForward`
 * (deliveries): the first integration's webhook is registered at watch's
 * listener, `work` runs against the proxy's API root, then watch is stopped
 * as SIGTERM would; its exit code and output come back.
 */
export async function liveWatch(sim: RunningSimulator, webhookForward: string, args: string[], work: (api: string, webhook: string) => Promise<void>): Promise<{ code: number; out: string }> {
  let out = '';
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let listening!: (a: { proxy: string; api: string; webhook?: string }) => void;
  const ready = new Promise<{ proxy: string; api: string; webhook?: string }>((resolve) => (listening = resolve));
  const done = runWatch(['--upstream', sim.baseUrl, '--port', '0', '--webhook-port', '0', '--webhook-forward', webhookForward, ...args], {
    out: (t) => void (out += t), err: (t) => void (out += t), env: {}, stopped, onListening: listening,
  });
  const addresses = await Promise.race([ready, done.then((code) => Promise.reject(new Error(`watch ended with ${code} before listening: ${out}`)))]);
  await staff(sim, 'PUT', `/integrations/${sim.fixtures.integrations[0]!.id}/webhook`, { url: `${addresses.webhook}/webhook` });
  try {
    await work(addresses.api, `${addresses.webhook}/webhook`);
  } finally {
    stop();
  }
  return { code: await done, out };
}

/** Waits until `done` or `seconds` pass; true when done. */
export async function until(done: () => boolean, seconds: number): Promise<boolean> {
  const end = Date.now() + seconds * 1000;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/**
 * A well-behaved partner's traffic through `api` (watch's proxy): GET /me
 * once, a create, its retry under the same key, the same booking under a new
 * key (200 duplicate), rates changed by staff so events flow, every delivery
 * awaited, a replay walk of two rows a page along next_after_sequence, a
 * snapshot and the catch-up after it, a poll by updated_since, a lookup that
 * finds nothing. Nothing a correct platform answers breaks a rule.
 */
export async function partnerWorkload(sim: RunningSimulator, api: string, receiver: Receiver, o: { waitSeconds?: number } = {}): Promise<void> {
  const integration = sim.fixtures.integrations[0]!;
  const property = integration.properties.find((p) => !p.archived)!.doorloom_id;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(api + path, { method, headers: { Authorization: `Bearer ${integration.apiKey}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
  };
  await call('GET', '/me');
  const today = dateAt((await staff(sim, 'GET', '/clock')).data.epoch_ms);
  const stay = { check_in: addDays(today, 40), check_out: addDays(today, 42) };
  const booking = { external_booking_id: `watch-${Date.now()}`, property: { doorloom_id: property }, units: [{ adults: 2 }], ...stay, guest: { name: 'Watch Test', mobile: '9000000000' }, pricing: { total: 1000 } };
  await call('POST', '/bookings', booking, { 'Idempotency-Key': 'watch-key-000001' });
  await call('POST', '/bookings', booking, { 'Idempotency-Key': 'watch-key-000001' });
  await call('POST', '/bookings', { ...booking, notes: 'a second attempt of the same booking' }, { 'Idempotency-Key': 'watch-key-000002' });
  for (let i = 0; i < 3; i++) await staff(sim, 'PUT', `/properties/${property}/rates`, { from: addDays(today, 50 + i * 3), to: addDays(today, 50 + i * 3), base_rate: 4000 + i });
  const last = (await staff(sim, 'GET', `/integrations/${integration.id}`)).data.webhook.last_sequence as number;
  // Ends on an event: the last delivery answered, or the receiver refusing one (a faulty platform's signature, header
  // or order), after which the rest may never come. The cap is a hang guard: a slow machine only waits longer.
  await until(() => receiver.received.some((d) => d.sequence === last && d.answered !== null) || receiver.problems.length > 0, o.waitSeconds ?? 300);
  let after = 0;
  for (let guard = 0; guard < 50; guard++) {
    const page = await call('GET', `/events?after_sequence=${after}&limit=2`);
    if (page.status !== 200) break;
    after = page.body.cursor.next_after_sequence;
    if (!page.body.cursor.has_more) break;
  }
  await call('GET', `/properties/${property}/availability?from=${stay.check_in}&to=${stay.check_out}`);
  // Catching up after the snapshot, from the cursor (§4.8: events above the watermark apply on top).
  await call('GET', `/events?after_sequence=${after}&limit=2`);
  // Reconciliation by polling, and a lookup of a booking the platform does not have (§4.3: 404).
  await call('GET', `/bookings?updated_since=${encodeURIComponent(`${today}T00:00:00+05:30`)}&per_page=5`);
  await call('GET', '/bookings/external/watch-never-created');
}
