/**
 * The runner's side of the staging control plane (spec/control-openapi.yaml):
 * the platform actions some checks need, by name. A check lists the actions
 * it needs as `control:<action>` capabilities; the runner reports it not
 * applicable, naming the missing ones, when the target's control plane does
 * not offer them (or there is none). In-process, the simulator's own control
 * plane offers every action.
 */
import { CREDENTIAL_VARIABLES } from './credential-variables.ts';
import { ApiClient, ExchangeLog, type RequestOptions } from './client.ts';

/** The actions of spec/control-openapi.yaml (conformance/control.test.ts keeps the two equal). */
export const CONTROL_ACTIONS = [
  'delivery.pause', 'delivery.resume', 'delivery.ping', 'webhook.set-url', 'webhook.set-event-types', 'integration.disable', 'integration.enable', 'rate-limit.set', 'api-key.rotate', 'webhook-secret.rotate',
  'coverage.set', 'property.archive', 'property.unarchive', 'unit.deactivate', 'unit.activate',
  'nights.set', 'rates.set', 'restrictions.set', 'booking.status', 'booking.dates', 'clock.advance', 'api.switch', 'create.latency',
] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** How a check names an action it needs, beside read/write/sync/burst. */
export type ControlNeed = `control:${ControlAction}`;
export const control = (action: ControlAction): ControlNeed => `control:${action}`;

/**
 * The action names a `GET /capabilities` answer lists (spec/control-openapi.yaml: `{success, data: {actions: [...]}}`),
 * or null when the answer is not a capabilities answer. The runner calls only the actions listed, in-process as live.
 */
export function offeredActions(body: unknown): string[] | null {
  const actions = (body as { data?: { actions?: unknown } } | null)?.data?.actions;
  return Array.isArray(actions) && actions.every((x: unknown) => typeof x === 'string') ? actions : null;
}

/** The offered actions the runner knows (a newer control plane may offer more; the run uses these). */
export function knownActions(offered: readonly string[]): ControlAction[] {
  return CONTROL_ACTIONS.filter((a) => offered.includes(a));
}

export interface ControlPlane {
  url: string;
  token: string;
  actions: string[];
}

/** An integration's general rate limit (§7), as rate-limit.set sets and reads it. */
export interface RateLimit {
  limit: number;
  window_seconds: number;
}

/** A control action the platform refused or failed: the run's own tooling, never a breach of the partner API. */
export class ControlError extends Error {}

export class ControlClient {
  private readonly http: ApiClient;
  private slug: string | null = null;
  /** The platform's clock minus this machine's, as the last clock answer showed it (0 until then). */
  clockOffsetMs = 0;
  /** Whether a clock answer has been read yet: until then `platformNow` knows nothing the target's Date headers do not. */
  clockRead = false;

  constructor(private readonly plane: ControlPlane, private readonly api: ApiClient, private readonly log: ExchangeLog, private readonly secrets: string[], private readonly credentialName?: (sent: string) => string | undefined) {
    // The control plane's token is named as such, even where it is also the run's non-integration token (in-process: the staff token).
    const named = (sent: string) => (sent.includes(plane.token) ? CREDENTIAL_VARIABLES.controlToken : credentialName?.(sent));
    this.http = new ApiClient({ baseUrl: plane.url, token: plane.token, secrets, log, credentialName: named, untimed: true });
  }

  /** The same control plane acting on the integration whose API key is `apiKey` (its slug read from its own GET /me). */
  forIntegration(apiKey: string): ControlClient {
    return new ControlClient(this.plane, this.api.withToken(apiKey), this.log, this.secrets, this.credentialName);
  }

  offers(action: ControlAction): boolean {
    return this.plane.actions.includes(action);
  }

  /** The platform's time now, as this machine reckons it from the clock offset (signature timestamps are judged against it). */
  platformNow(): number {
    return Date.now() + this.clockOffsetMs;
  }

  // Pause, resume, disable and enable each set a state (spec/control-openapi.yaml: the integration becomes paused,
  // active, disabled, enabled): sent twice they have the effect of once, so each is sent again when its connection
  // closed before any answer (RFC 9110 §9.2.2, resend.ts).

  pause(): Promise<unknown> {
    return this.integration('delivery.pause', 'POST', 'pause', undefined, { idempotent: true });
  }

  resume(): Promise<unknown> {
    return this.integration('delivery.resume', 'POST', 'resume', undefined, { idempotent: true });
  }

  ping(): Promise<unknown> {
    return this.integration('delivery.ping', 'POST', 'ping');
  }

  /** `null` removes the URL (§2.1: `webhook.configured` false, nothing delivered until one is set). */
  setWebhookUrl(url: string | null): Promise<unknown> {
    return this.integration('webhook.set-url', 'PUT', 'webhook', { url });
  }

  setEventTypes(eventTypes: string[]): Promise<unknown> {
    return this.integration('webhook.set-event-types', 'PUT', 'webhook/event-types', { event_types: eventTypes });
  }

  disableIntegration(): Promise<unknown> {
    return this.integration('integration.disable', 'POST', 'disable', undefined, { idempotent: true });
  }

  enableIntegration(): Promise<unknown> {
    return this.integration('integration.enable', 'POST', 'enable', undefined, { idempotent: true });
  }

  setRateLimit(limit: number, windowSeconds: number): Promise<unknown> {
    return this.integration('rate-limit.set', 'PUT', 'rate-limit', { limit, window_seconds: windowSeconds });
  }

  /**
   * The integration's rate limit in force (GET of rate-limit.set), so a check that lowers it puts back what it
   * found; the partner API shows the limit but never the window (§7). Null where the control plane answers 404,
   * 405 or 501: it offers the PUT alone.
   */
  async rateLimit(): Promise<RateLimit | null> {
    if (!this.offers('rate-limit.set')) throw new ControlError('the control plane does not offer rate-limit.set');
    const path = `/integrations/${encodeURIComponent(await this.integrationSlug('rate-limit.set'))}/rate-limit`;
    const res = await this.http.request('GET', path);
    if (res.status === 404 || res.status === 405 || res.status === 501) return null;
    const found = res.body?.data?.rate_limit;
    const whole = (n: unknown) => Number.isInteger(n) && (n as number) >= 1;
    if (res.status !== 200 || !whole(found?.limit) || !whole(found?.window_seconds)) {
      throw new ControlError(`control rate-limit.set (GET ${path}) answered ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}, not data.rate_limit {limit, window_seconds}: ${res.text.slice(0, 200)}`);
    }
    return { limit: found.limit, window_seconds: found.window_seconds };
  }

  /**
   * The integration's coverage in force, by doorloom_id (GET of coverage.set), so a check that narrows it puts back
   * what it found: the partner API shows only its count (§2.1 covered_properties).
   */
  async coverage(): Promise<number[]> {
    const path = `/integrations/${encodeURIComponent(await this.integrationSlug('coverage.set'))}/coverage`;
    const found = ((await this.call('coverage.set', 'GET', path)) as { coverage?: unknown } | undefined)?.coverage;
    if (!Array.isArray(found) || !found.every((p) => Number.isInteger(p))) throw new ControlError(`control coverage.set (GET ${path}) answered no data.coverage array of property ids`);
    return found as number[];
  }

  /** Sets the properties the integration can touch (§1: staff set coverage); a PUT, so sent again when its connection closed before any answer. */
  setCoverage(propertyIds: number[]): Promise<unknown> {
    return this.integration('coverage.set', 'PUT', 'coverage', { property_ids: propertyIds });
  }

  // Archive and unarchive, deactivate and activate each set a state (spec/control-openapi.yaml): sent again as pause is.

  archiveProperty(property: number): Promise<unknown> {
    return this.call('property.archive', 'POST', `/properties/${property}/archive`, undefined, { idempotent: true });
  }

  unarchiveProperty(property: number): Promise<unknown> {
    return this.call('property.unarchive', 'POST', `/properties/${property}/unarchive`, undefined, { idempotent: true });
  }

  deactivateUnit(unit: number): Promise<unknown> {
    return this.call('unit.deactivate', 'POST', `/units/${unit}/deactivate`, undefined, { idempotent: true });
  }

  activateUnit(unit: number): Promise<unknown> {
    return this.call('unit.activate', 'POST', `/units/${unit}/activate`, undefined, { idempotent: true });
  }

  async rotateApiKey(): Promise<string> {
    return ((await this.integration('api-key.rotate', 'POST', 'rotate-api-key')) as { api_key: string }).api_key;
  }

  async rotateWebhookSecret(): Promise<string> {
    return ((await this.integration('webhook-secret.rotate', 'POST', 'rotate-webhook-secret')) as { webhook_secret: string }).webhook_secret;
  }

  setNights(property: number, body: { from: string; to: string; is_blocked?: boolean; block_scope?: 'everywhere' | 'ota_only' | null; units_cap?: number | null }): Promise<unknown> {
    return this.call('nights.set', 'PUT', `/properties/${property}/nights`, body);
  }

  /** `extra` sets the per-night extra adult and extra child rates too (spec/control-openapi.yaml rates.set). */
  setRates(property: number, from: string, to: string, baseRate: number, extra: { extra_adult_rate?: number; extra_child_rate?: number } = {}): Promise<unknown> {
    return this.call('rates.set', 'PUT', `/properties/${property}/rates`, { from, to, base_rate: baseRate, ...extra });
  }

  setRestrictions(property: number, body: { from: string; to: string; min_stay?: number; max_stay?: number; closed_to_arrival?: boolean; closed_to_departure?: boolean; stop_sell?: boolean }): Promise<unknown> {
    return this.call('restrictions.set', 'PUT', `/properties/${property}/restrictions`, body);
  }

  async setBookingStatus(booking: number, status: string): Promise<{ revision?: number }> {
    return (await this.call('booking.status', 'POST', `/bookings/${booking}/status`, { status })) as { revision?: number };
  }

  /** Moves a booking's stay (staff); false when the control plane answers 409, the new nights cannot be held (nothing changed). */
  async setBookingDates(booking: number, checkIn: string, checkOut: string): Promise<boolean> {
    if (!this.offers('booking.dates')) throw new ControlError('the control plane does not offer booking.dates');
    const path = `/bookings/${booking}/dates`;
    const res = await this.http.request('POST', path, { body: { check_in: checkIn, check_out: checkOut } });
    if (res.status === 409) return false;
    if (res.status < 200 || res.status > 299) throw new ControlError(`control booking.dates (POST ${path}) answered ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}: ${res.text.slice(0, 200)}`);
    return true;
  }

  /**
   * Moves the platform's clock; everything due on the way happens (retries, expiry). An advance of 0 s moves nothing
   * and sends what is due, so it is idempotent and sent again when its connection closed before any answer; any other
   * advance is not (sent twice, it moves the clock twice).
   */
  async advanceClock(seconds: number): Promise<void> {
    const data = (await this.call('clock.advance', 'POST', '/clock/advance', { seconds }, { idempotent: seconds === 0 })) as { epoch_ms?: unknown };
    if (typeof data?.epoch_ms === 'number') {
      this.clockOffsetMs = data.epoch_ms - Date.now();
      this.clockRead = true;
    }
  }

  setApiEnabled(enabled: boolean): Promise<unknown> {
    return this.call('api.switch', 'PUT', '/api', { enabled });
  }

  /** Holds every create this long once its key is claimed (§4.5 rule 3: what IN_PROGRESS is for); 0 turns it off. */
  setCreateLatency(ms: number): Promise<unknown> {
    return this.call('create.latency', 'PUT', '/create-latency', { create_latency_ms: ms });
  }

  private async integration(action: ControlAction, method: string, tail: string, body?: unknown, call?: Pick<RequestOptions, 'idempotent'>): Promise<unknown> {
    return this.call(action, method, `/integrations/${encodeURIComponent(await this.integrationSlug(action))}/${tail}`, body, call);
  }

  /** The integration's slug, as GET /me shows it (read once). */
  private async integrationSlug(action: ControlAction): Promise<string> {
    if (this.slug === null) {
      const me = await this.api.get('/me');
      if (me.status !== 200 || typeof me.body?.data?.slug !== 'string') throw new ControlError(`the integration's slug is needed for ${action}, and GET /me answered ${me.status}`);
      this.slug = me.body.data.slug as string;
    }
    return this.slug;
  }

  /** One action; `call.idempotent` is the caller's word that a POST is idempotent by its meaning (resend.ts). */
  private async call(action: ControlAction, method: string, path: string, body?: unknown, call: Pick<RequestOptions, 'idempotent'> = {}): Promise<unknown> {
    if (!this.offers(action)) throw new ControlError(`the control plane does not offer ${action}`);
    const res = await this.http.request(method, path, { ...call, ...(body === undefined ? {} : { body }) });
    if (res.status < 200 || res.status > 299) throw new ControlError(`control ${action} (${method} ${path}) answered ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}: ${res.text.slice(0, 200)}`);
    return res.body?.data;
  }
}
