/**
 * Platform staff and hosts, through the simulator's staff plane (/_staff,
 * spec/staff-openapi.yaml). Every call is on the timeline, named for what
 * it does in the story.
 */
import { type Call, type NoAnswer, sendResending } from '../../conformance/resend.ts';
import { unreachableCause } from '../../conformance/unreachable.ts';
import { untimedFetch } from '../../conformance/untimed-fetch.ts';
import type { Actor, Timeline } from './timeline.ts';

export class StaffError extends Error {}

export class Staff {
  constructor(private readonly root: string, private readonly token: string, private readonly timeline: Timeline | null) {}

  /**
   * One staff-plane call; resolves to `data`, throws on a non-2xx answer or none. A call whose connection closed
   * before any answer is sent once more when it is idempotent: a GET or PUT, or a POST whose caller says so
   * (`how.idempotent`); any other POST is not, and its failure says so (conformance/resend.ts, RFC 9110 §9.2.2).
   */
  async call<T = any>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, log?: { actor: Actor; action: string; outcome?: (data: T) => string }, how?: Pick<Call, 'idempotent'>): Promise<T> {
    const res = await sendResending({ method, idempotent: how?.idempotent }, () => untimedFetch(this.root + path, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })).catch((e: NoAnswer) => {
      this.timeline?.add(log?.actor ?? 'staff', log?.action ?? `${method} ${path}`, 'no answer', { level: 'fail' });
      throw new StaffError(`staff ${method} ${path} gave no answer: ${unreachableCause(e.cause)}${e.note}`);
    });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!res.ok) {
      this.timeline?.add(log?.actor ?? 'staff', log?.action ?? `${method} ${path}`, `${res.status} ${parsed?.code ?? ''}`, { level: 'fail' });
      throw new StaffError(`staff ${method} ${path} answered ${res.status}: ${text}`);
    }
    if (log) this.timeline?.add(log.actor, log.action, log.outcome ? log.outcome(parsed.data) : `${res.status}`);
    return parsed.data as T;
  }

  setWebhook(integrationId: number, url: string | null): Promise<unknown> {
    return this.call('PUT', `/integrations/${integrationId}/webhook`, { url }, { actor: 'staff', action: `sets the webhook URL to ${url}` });
  }

  integration(integrationId: number): Promise<{ status: string; webhook: { paused_reason: string | null; last_sequence: number; undelivered_events: number; consecutive_failures: number }; coverage: number[] }> {
    return this.call('GET', `/integrations/${integrationId}`);
  }

  async rotateApiKey(integrationId: number): Promise<string> {
    const data = await this.call<{ api_key: string }>('POST', `/integrations/${integrationId}/rotate-api-key`, undefined, { actor: 'staff', action: 'rotates the API key (§5.3)', outcome: () => '200 · new key shown once; the old one stops at once' });
    return data.api_key;
  }

  async rotateWebhookSecret(integrationId: number): Promise<string> {
    const data = await this.call<{ webhook_secret: string }>('POST', `/integrations/${integrationId}/rotate-webhook-secret`, undefined, { actor: 'staff', action: 'rotates the webhook secret (§5.4)', outcome: () => '200 · new secret shown once; the previous one verifies for 24 hours' });
    return data.webhook_secret;
  }

  setRateLimit(integrationId: number, limit: number, windowSeconds: number): Promise<unknown> {
    return this.call('PUT', `/integrations/${integrationId}/rate-limit`, { limit, window_seconds: windowSeconds }, { actor: 'staff', action: `sets the rate limit to ${limit} requests per ${windowSeconds} s` });
  }

  setCoverage(integrationId: number, propertyIds: number[]): Promise<unknown> {
    return this.call('PUT', `/integrations/${integrationId}/coverage`, { property_ids: propertyIds }, { actor: 'staff', action: `sets coverage to properties ${propertyIds.join(', ')}` });
  }

  setCreateLatency(ms: number): Promise<unknown> {
    return this.call('PUT', '/settings', { create_latency_ms: ms }, { actor: 'staff', action: `keeps every create in progress ${ms} ms (so two creates overlap)` });
  }

  deliveries(integrationId: number): Promise<{ kind: string; sequence: number | null; outcome: { status?: number; error?: string }; at: string }[]> {
    return this.call('GET', `/integrations/${integrationId}/deliveries`);
  }

  setRates(propertyId: number, label: string, from: string, to: string, patch: Record<string, number>): Promise<unknown> {
    return this.call('PUT', `/properties/${propertyId}/rates`, { from, to, ...patch }, { actor: 'host', action: `${label}: rates ${from}..${to} ${describe(patch)}` });
  }

  setRestrictions(propertyId: number, label: string, from: string, to: string, patch: Record<string, number | boolean>): Promise<unknown> {
    return this.call('PUT', `/properties/${propertyId}/restrictions`, { from, to, ...patch }, { actor: 'host', action: `${label}: restrictions ${from}..${to} ${describe(patch)}` });
  }

  setNights(propertyId: number, label: string, from: string, to: string, patch: Record<string, unknown>): Promise<unknown> {
    return this.call('PUT', `/properties/${propertyId}/nights`, { from, to, ...patch }, { actor: 'host', action: `${label}: nights ${from}..${to} ${describe(patch)}` });
  }

  bookingStatus(bookingId: number, status: string): Promise<unknown> {
    return this.call('POST', `/bookings/${bookingId}/status`, { status }, { actor: 'host', action: `booking ${bookingId} → ${status}` });
  }

  bookingDates(bookingId: number, checkIn: string, checkOut: string): Promise<unknown> {
    return this.call('POST', `/bookings/${bookingId}/dates`, { check_in: checkIn, check_out: checkOut }, { actor: 'host', action: `moves booking ${bookingId} to ${checkIn}..${checkOut}` });
  }

  deactivateUnit(unitId: number, label: string): Promise<unknown> {
    return this.call('POST', `/units/${unitId}/deactivate`, undefined, { actor: 'host', action: `deactivates unit ${unitId} (${label})` });
  }

  async createProperty(brandId: number, name: string, externalId: string): Promise<{ id: number }> {
    return this.call('POST', '/properties', { brand_id: brandId, name, external_id: externalId }, { actor: 'host', action: `creates property ${externalId} (${name})`, outcome: (p: { id: number }) => `201 · doorloom_id ${p.id}` });
  }

  addUnit(propertyId: number, name: string, externalUnitId: string): Promise<{ id: number }> {
    return this.call('POST', `/properties/${propertyId}/units`, { name, external_unit_id: externalUnitId }, { actor: 'host', action: `adds unit ${externalUnitId} to property ${propertyId}`, outcome: (u: { id: number }) => `201 · inventory_id ${u.id}` });
  }

  /** Moves the clock; an advance of 0 s moves nothing and sends what is due, so it is idempotent (sent again on a lost connection). */
  advanceClock(seconds: number): Promise<unknown> {
    return this.call('POST', '/clock/advance', { seconds }, undefined, { idempotent: seconds === 0 });
  }

  setClock(nowIso: string): Promise<unknown> {
    return this.call('PUT', '/clock', { now: nowIso });
  }
}

function describe(patch: Record<string, unknown>): string {
  return Object.entries(patch).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ');
}
