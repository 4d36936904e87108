/**
 * The staff control plane under /_staff: what platform staff and hosts do
 * (world, coverage, credentials, pauses, bookings), plus the simulator's own
 * controls (clock, API switch, create latency). Guarded by the staff token.
 * Documented in spec/staff-openapi.yaml.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { addDays, dateAt, parseInstant, timestamp } from '../../protocol/calendar.ts';
import type { VirtualClock } from '../domain/clock.ts';
import { digestsEqual, hashToken } from '../domain/credentials.ts';
import { DomainError, invalid } from '../domain/errors.ts';
import { success } from '../domain/envelope.ts';
import { BOOKING_STATUSES, EVENT_TYPES, type EventType } from '../domain/model.ts';
import type { Platform } from '../domain/platform.ts';
import { bookingView, changeBookingDates, changeBookingStatus } from '../domain/bookings.ts';
import { purgeExpired } from '../domain/idempotency.ts';
import {
  createBrand, createProperty, createUnit, propertyById, setArchived, setCoverage, setNights, setRates, setRestrictions, setUnitActive,
} from '../domain/catalog.ts';
import {
  createIntegration, integrationById, integrationView, pause, resume, rotateApiKey, rotateWebhookSecret, updateIntegration,
} from '../domain/integrations.ts';
import { readJson, readNothing } from '../http/body.ts';
import { send } from '../http/send.ts';
import { asBody, bool, defined, int, intList, num, oneOf, str, type Body } from './input.ts';

// Stryker disable next-line StringLiteral: the staff plane's mount point, not the partner API (the control plane reaches it by this same constant)
export const STAFF_ROOT = '/_staff';
const SNAPSHOT_HORIZON_DAYS = 730;

/**
 * The instants the virtual clock may be set to: every timestamp and date the
 * simulator writes stays a plain four-digit-year ISO 8601 value (beyond them
 * `timestamp()` throws and every later request would fail).
 */
const CLOCK_EARLIEST = Date.parse('1970-01-01T00:00:00Z');
const CLOCK_LATEST = Date.parse('9999-12-31T00:00:00Z');
// Stryker disable next-line StringLiteral: message wording (§7: a field error is a string, never a text)
const CLOCK_RANGE_MESSAGE = 'The clock must stay between 1970-01-01T00:00:00Z and 9999-12-31T00:00:00Z.';
function clockCanShow(ms: number): boolean {
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it (a clock the simulator cannot write as a timestamp)
  return Number.isFinite(ms) && ms >= CLOCK_EARLIEST && ms <= CLOCK_LATEST;
}

/** The delivery worker as the staff plane drives it (simulator/webhooks/delivery-worker.ts). */
export interface StaffWebhooks {
  /** Moves the virtual clock, running every delivery and probe that falls due on the way. */
  advance(ms: number): Promise<void>;
  ping(integrationId: number): Promise<{ status: number } | { error: string }>;
  tick(): void;
  /** The integration's last `limit` delivery and ping attempts, oldest first (every process's, with a shared store). */
  recent(integrationId: number, limit: number): Promise<{ integration_id: number; kind: string; sequence: number | null; outcome: { status: number } | { error: string }; at: number }[]>;
}

/** Queued full re-syncs (simulator/sync-worker.ts): a clock step runs them to the end first. */
export interface StaffSyncs {
  /** Runs every queued sync job to the end, synchronously. */
  drain(): void;
}

export interface StaffDeps {
  platform: Platform;
  clock: VirtualClock;
  webhooks: StaffWebhooks;
  /** A clock step runs the queued syncs first. */
  syncs: StaffSyncs;
}

/** Lets a request through only with the staff token (the control plane's token too). */
export function staffTokenGuard(platform: Platform): Middleware {
  return async (ctx, next) => {
    // Stryker disable all: the control plane's own token check (spec/control-openapi.yaml Conventions), not the partner API: no rule of the document, and the run always holds the token
    const token = /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'))?.[1];
    const expected = platform.settings()?.staff_token_hash;
    if (!token || !expected || !digestsEqual(expected, hashToken(token))) throw new DomainError('UNAUTHENTICATED', {}, 'A valid staff token is required.');
    // Stryker restore all
    await next();
  };
}

export function staffRouter({ platform, clock, webhooks, syncs }: StaffDeps): Router {
  const router = new Router({ prefix: STAFF_ROOT });
  const { store, entropy, vault, changes } = platform.deps;
  const now = () => clock.now();
  // The envelope is built by `success` at each call: its message is wording (§7), the data is the answer.
  const ok = (ctx: Context, body: ReturnType<typeof success>, status = 200) => send(ctx, { status, body });
  const body = async (ctx: Context): Promise<Body> => asBody(await readJson(ctx, {}));
  const id = (ctx: Context, name = 'id'): number => {
    const raw = String(ctx.params[name]);
    // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
    if (!/^[0-9]{1,15}$/.test(raw)) throw new DomainError('NOT_FOUND');
    return Number(raw);
  };
  // Stryker disable next-line all: the window of the availability.changed a unit's (de)activation records; which events a staff or host change emits is not shown (§6.5 names only a booking create and POST /sync as emitters), as catalog.ts's setUnitActive says
  const horizon = () => ({ from: dateAt(now()), to: addDays(dateAt(now()), SNAPSHOT_HORIZON_DAYS) });
  const view = (integrationId: number) => {
    const i = integrationById(store, integrationId);
    // Stryker disable next-line LogicalOperator,OptionalChaining: the staff answer's own count of waiting events (the partner's /me is the partner routes'); no partner call reads it. Its coverage and rate_limit are what the control plane's coverage.set and rate-limit.set read
    return { ...integrationView(store, i, platform.deps.undeliveredEvents?.(i.id) ?? 0), coverage: i.coverage, rate_limit: i.rate_limit };
  };

  router.use(staffTokenGuard(platform));

  // Stryker disable all: a staff-plane route no control action offers (spec/control-openapi.yaml): the simulator's own world building or inspection (the credentials a created integration answers with are the staff's, §5 rule 2; the partner's side of that rule is /me's), which no conformance run can call and the document does not describe
  router.get('/world', (ctx) => {
    ok(ctx, success('World retrieved.', {
      now: timestamp(now()),
      api_enabled: platform.apiEnabled(),
      brands: Array.from(store.values('brands')),
      integrations: Array.from(store.values('integrations')).map((i) => view(i.id)),
      properties: Array.from(store.values('properties')).map((p) => ({
        ...p,
        units: (store.get('propertyUnits', String(p.id))?.unit_ids ?? []).map((u) => store.get('units', String(u))),
      })),
    }));
  });

  router.post('/brands', async (ctx) => {
    const b = await body(ctx);
    ok(ctx, success('Brand created.', store.transaction((tx) => createBrand(tx, str(b, 'name')))), 201);
  });

  router.post('/integrations', async (ctx) => {
    const b = await body(ctx);
    const types = b.event_types === undefined ? undefined : eventTypes(b.event_types);
    const created = store.transaction((tx) => createIntegration(tx, { entropy, vault, now: now() }, defined({
      brand_id: int(b, 'brand_id'),
      name: str(b, 'name'),
      slug: str(b, 'slug', { optional: true, max: 64 }),
      webhook_url: webhookUrl(b),
      event_types: types,
      horizon_days: int(b, 'horizon_days', { optional: true, min: 1, max: 730 }),
    }) as Parameters<typeof createIntegration>[2]));
    // §5.2: credentials are shown exactly once, here.
    ok(ctx, success('Integration created. The credentials are shown once.', { ...view(created.integration.id), ...created.credentials }), 201);
  });

  // Stryker restore all
  router.get('/integrations/:id', (ctx) => ok(ctx, success('Integration retrieved.', view(id(ctx)))));

  router.put('/integrations/:id/coverage', async (ctx) => {
    const b = await body(ctx);
    store.transaction((tx) => setCoverage(tx, id(ctx), intList(b, 'property_ids')));
    ok(ctx, success('Coverage set.', view(id(ctx))));
  });

  router.put('/integrations/:id/webhook', async (ctx) => {
    const b = await body(ctx);
    const url = webhookUrl(b);
    const types = b.event_types === undefined ? undefined : eventTypes(b.event_types);
    store.transaction((tx) => updateIntegration(tx, id(ctx), (i) => {
      const next = { ...i, webhook: { ...i.webhook, url: url === undefined ? i.webhook.url : url, event_types: types ?? i.webhook.event_types } };
      // A new URL ends a `gone` pause: the old endpoint said it no longer exists (§3.1).
      return url !== undefined && url !== i.webhook.url && i.webhook.paused_reason === 'gone' ? resume(next, now()) : next;
    }));
    webhooks.tick();
    ok(ctx, success('Webhook set.', view(id(ctx))));
  });

  router.put('/integrations/:id/rate-limit', async (ctx) => {
    const b = await body(ctx);
    // Stryker disable next-line ObjectLiteral: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
    const limit = { limit: int(b, 'limit', { min: 1 }), window_seconds: int(b, 'window_seconds', { min: 1, max: 86_400 }) };
    store.transaction((tx) => {
      updateIntegration(tx, id(ctx), (i) => ({ ...i, rate_limit: limit }));
      // Stryker disable next-line StringLiteral: the control contract's own rule (spec/control-openapi.yaml setRateLimit: the current window starts afresh), which the partner API document does not state
      tx.delete('rateWindows', String(id(ctx)));
    });
    ok(ctx, success('Rate limit set.', view(id(ctx))));
  });

  router.post('/integrations/:id/rotate-api-key', async (ctx) => {
    await readNothing(ctx);
    const apiKey = store.transaction((tx) => rotateApiKey(tx, entropy, id(ctx)));
    ok(ctx, success('API key rotated; the previous key no longer works. Shown once.', { api_key: apiKey }));
  });

  router.post('/integrations/:id/rotate-webhook-secret', async (ctx) => {
    await readNothing(ctx);
    const secret = store.transaction((tx) => rotateWebhookSecret(tx, { entropy, vault, now: now(), faults: platform.deps.faults }, id(ctx)));
    ok(ctx, success('Webhook secret rotated; the previous one verifies for 24 hours. Shown once.', { webhook_secret: secret }));
  });

  router.post('/integrations/:id/pause', async (ctx) => {
    await readNothing(ctx);
    // A release that records every pause as automatic (a fault).
    store.transaction((tx) => updateIntegration(tx, id(ctx), (i) => pause(i, platform.deps.faults?.has('manual-pause-recorded-auto') ? 'auto' : 'manual', now())));
    ok(ctx, success('Delivery paused.', view(id(ctx))));
  });

  router.post('/integrations/:id/resume', async (ctx) => {
    await readNothing(ctx);
    store.transaction((tx) => updateIntegration(tx, id(ctx), (i) => resume(i, now())));
    webhooks.tick();
    ok(ctx, success('Delivery resumed.', view(id(ctx))));
  });

  router.post('/integrations/:id/ping', async (ctx) => {
    await readNothing(ctx);
    integrationById(store, id(ctx));
    const outcome = await webhooks.ping(id(ctx));
    // Stryker disable next-line ObjectLiteral: the data of a staff answer; no partner call reads it (the ping itself is what a partner sees)
    ok(ctx, success('Ping sent (it consumes no sequence).', { outcome }));
  });

  // Stryker disable all: a staff-plane route no control action offers (spec/control-openapi.yaml): the simulator's own world building or inspection, which no conformance run can call and the document does not describe
  router.get('/integrations/:id/deliveries', async (ctx) => {
    integrationById(store, id(ctx));
    // Every process's attempts with a shared store (issue 39), this process's otherwise.
    const attempts = (await webhooks.recent(id(ctx), 200)).map((d) => ({ ...d, at: timestamp(d.at) }));
    ok(ctx, success('Recent delivery attempts, oldest first.', attempts));
  });

  // Stryker restore all
  router.post('/integrations/:id/disable', async (ctx) => {
    await readNothing(ctx);
    store.transaction((tx) => updateIntegration(tx, id(ctx), (i) => ({ ...i, disabled: true })));
    ok(ctx, success('Integration disabled.', view(id(ctx))));
  });

  router.post('/integrations/:id/enable', async (ctx) => {
    await readNothing(ctx);
    store.transaction((tx) => updateIntegration(tx, id(ctx), (i) => ({ ...i, disabled: false })));
    ok(ctx, success('Integration enabled.', view(id(ctx))));
  });

  // Stryker disable all: a staff-plane route no control action offers (spec/control-openapi.yaml): the simulator's own world building or inspection, which no conformance run can call and the document does not describe
  router.post('/properties', async (ctx) => {
    const b = await body(ctx);
    const property = store.transaction((tx) => createProperty(tx, defined({
      brand_id: int(b, 'brand_id'),
      name: str(b, 'name'),
      external_id: str(b, 'external_id', { optional: true, max: 128 }),
      city: str(b, 'city', { optional: true, max: 64 }),
      ownership: oneOf(b, 'ownership', ['owned', 'cohosted'] as const, { optional: true }),
    }) as Parameters<typeof createProperty>[1]));
    ok(ctx, success('Property created.', property), 201);
  });

  router.post('/properties/:id/units', async (ctx) => {
    const b = await body(ctx);
    const unit = store.transaction((tx) => createUnit(tx, { changes }, id(ctx), defined({
      name: str(b, 'name'),
      external_unit_id: str(b, 'external_unit_id', { optional: true, nullable: true, max: 128 }),
      max_adults: int(b, 'max_adults', { optional: true, min: 1, max: 50 }),
      max_children: int(b, 'max_children', { optional: true, min: 0, max: 50 }),
    }) as Parameters<typeof createUnit>[3]));
    ok(ctx, success('Unit created.', unit), 201);
  });

  // Stryker restore all
  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    router.post(`/properties/:id/${action}`, async (ctx) => {
      await readNothing(ctx);
      // The message names the action done (its wording is no rule, §7): one template, not a choice to mutate.
      ok(ctx, success(`Property ${action}d.`, store.transaction((tx) => setArchived(tx, { changes }, id(ctx), archived))));
    });
  }

  for (const [action, active] of [['deactivate', false], ['activate', true]] as const) {
    router.post(`/units/:id/${action}`, async (ctx) => {
      await readNothing(ctx);
      ok(ctx, success(`Unit ${action}d.`, store.transaction((tx) => setUnitActive(tx, { changes }, id(ctx), active, horizon()))));
    });
  }

  router.put('/properties/:id/nights', async (ctx) => {
    const b = await body(ctx);
    const patch = defined({
      is_blocked: bool(b, 'is_blocked', { optional: true }),
      block_scope: oneOf(b, 'block_scope', ['everywhere', 'ota_only'] as const, { optional: true, nullable: true }),
      units_cap: int(b, 'units_cap', { optional: true, nullable: true, min: 0 }),
    });
    store.transaction((tx) => setNights(tx, { changes }, id(ctx), str(b, 'from'), str(b, 'to'), patch));
    // Stryker disable next-line ObjectLiteral: the data of a staff answer; no partner call reads it (the snapshot shows the change)
    ok(ctx, success('Nights set.', { property_id: id(ctx), from: b.from, to: b.to, ...patch }));
  });

  router.put('/properties/:id/rates', async (ctx) => {
    const b = await body(ctx);
    const patch = defined({
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
      base_rate: num(b, 'base_rate', { optional: true, min: 0 }),
      extra_adult_rate: num(b, 'extra_adult_rate', { optional: true, min: 0 }),
      extra_child_rate: num(b, 'extra_child_rate', { optional: true, min: 0 }),
    });
    store.transaction((tx) => setRates(tx, { changes }, id(ctx), str(b, 'from'), str(b, 'to'), patch));
    // Stryker disable next-line ObjectLiteral: the data of a staff answer; no partner call reads it (the snapshot shows the change)
    ok(ctx, success('Rates set.', { property_id: id(ctx), from: b.from, to: b.to, ...patch }));
  });

  router.put('/properties/:id/restrictions', async (ctx) => {
    const b = await body(ctx);
    const patch = defined({
      min_stay: int(b, 'min_stay', { optional: true, min: 1 }),
      max_stay: int(b, 'max_stay', { optional: true, min: 1 }),
      closed_to_arrival: bool(b, 'closed_to_arrival', { optional: true }),
      closed_to_departure: bool(b, 'closed_to_departure', { optional: true }),
      stop_sell: bool(b, 'stop_sell', { optional: true }),
    });
    store.transaction((tx) => setRestrictions(tx, { changes }, id(ctx), str(b, 'from'), str(b, 'to'), patch));
    // Stryker disable next-line ObjectLiteral: the data of a staff answer; no partner call reads it (the snapshot shows the change)
    ok(ctx, success('Restrictions set.', { property_id: id(ctx), from: b.from, to: b.to, ...patch }));
  });

  // Stryker disable all: a staff-plane route no control action offers (spec/control-openapi.yaml): the simulator's own world building or inspection, which no conformance run can call and the document does not describe
  router.get('/properties/:id', (ctx) => ok(ctx, success('Property retrieved.', propertyById(store, id(ctx)))));

  router.get('/bookings/:id', (ctx) => {
    const booking = store.get('bookings', String(id(ctx)));
    if (!booking) throw new DomainError('NOT_FOUND');
    ok(ctx, success('Booking retrieved.', bookingView(store, booking)));
  });

  // Stryker restore all
  router.post('/bookings/:id/status', async (ctx) => {
    const b = await body(ctx);
    const status = oneOf(b, 'status', BOOKING_STATUSES);
    const booking = store.transaction((tx) => changeBookingStatus(tx, { changes, now: now(), faults: platform.deps.faults }, id(ctx), status));
    ok(ctx, success('Booking status changed.', bookingView(store, booking)));
  });

  router.post('/bookings/:id/dates', async (ctx) => {
    const b = await body(ctx);
    const booking = store.transaction((tx) => changeBookingDates(tx, { changes, now: now(), faults: platform.deps.faults }, id(ctx), str(b, 'check_in'), str(b, 'check_out')));
    ok(ctx, success('Booking dates changed.', bookingView(store, booking)));
  });

  // Stryker disable next-line ConditionalExpression,EqualityOperator: the clock as a staff answer shows it; the run reads only epoch_ms
  const clockView = () => ({ now: timestamp(now()), epoch_ms: now(), frozen: clock.snapshot().frozenAt !== null, offset_ms: clock.snapshot().offsetMs });
  // Stryker disable all: the clock's durability across a restart (npm start with a data directory); a conformance run starts a fresh world per check and never restarts
  const persistClock = () => store.transaction((tx) => {
    const settings = tx.get('settings', 'platform');
    if (settings) tx.put('settings', 'platform', { ...settings, clock: clock.snapshot() });
  });

  // Stryker restore all
  // Stryker disable all: a staff-plane route no control action offers (spec/control-openapi.yaml): the simulator's own world building or inspection, which no conformance run can call and the document does not describe
  router.get('/clock', (ctx) => ok(ctx, success('Clock retrieved.', clockView())));

  router.put('/clock', async (ctx) => {
    const b = await body(ctx);
    // Validate everything before touching the clock: a refused request changes nothing.
    const frozen = bool(b, 'frozen', { optional: true });
    if (b.now !== undefined) {
      const at = parseInstant(str(b, 'now', { max: 64 }));
      if (at === null) throw invalid('now', 'Must be a parseable timestamp.');
      if (!clockCanShow(at)) throw invalid('now', CLOCK_RANGE_MESSAGE);
      clock.set(at);
    }
    if (frozen === true) clock.freeze();
    if (frozen === false) clock.unfreeze();
    persistClock();
    ok(ctx, success('Clock set.', clockView()));
  });

  // Stryker restore all
  router.post('/clock/advance', async (ctx) => {
    const b = await body(ctx);
    // Stryker disable next-line ObjectLiteral: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
    const seconds = num(b, 'seconds', { min: 0 });
    const ms = Math.round(seconds * 1000);
    // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it (a clock the simulator cannot write as a timestamp)
    if (!clockCanShow(now() + ms)) throw invalid('seconds', CLOCK_RANGE_MESSAGE);
    // Everything due happens before the answer, in order (spec/control-openapi.yaml clock.advance): a queued sync is
    // due at once, so its events are recorded first, then every delivery due on the way is made. A step (even of 0 s)
    // is then an event a check can wait for: what it did not bring was not due, whatever the machine's speed.
    // The key sweep npm start runs every 10 minutes of platform time (expiry of idempotency keys is due in the span,
    // spec/control-openapi.yaml) runs at the step's start: it forgets keys already past their 24 hours (§4.5 rule 1).
    // At its end it would forget the keys this step expired too, so a release that leaves expiry to its sweep, which
    // honours a key until then, would go unseen (issue 40); a key the step expired is refused when read (live()).
    store.transaction((tx) => purgeExpired(tx, now()));
    syncs.drain();
    await webhooks.advance(ms);
    persistClock();
    ok(ctx, success('Clock advanced.', clockView()));
  });

  router.put('/api', async (ctx) => {
    const b = await body(ctx);
    const enabled = bool(b, 'enabled');
    store.transaction((tx) => tx.put('settings', 'platform', { ...tx.get('settings', 'platform')!, api_enabled: enabled }));
    // Stryker disable next-line StringLiteral,ObjectLiteral: message wording (§7) and the data of a staff answer; no partner call reads either
    ok(ctx, success(enabled ? 'API switched on.' : 'API switched off: every partner route answers a bare 404.', { api_enabled: enabled }));
  });

  router.put('/settings', async (ctx) => {
    const b = await body(ctx);
    // Stryker disable next-line ObjectLiteral: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
    const latency = int(b, 'create_latency_ms', { min: 0, max: 60_000 });
    store.transaction((tx) => tx.put('settings', 'platform', { ...tx.get('settings', 'platform')!, create_latency_ms: latency }));
    // Stryker disable next-line ObjectLiteral: the data of a staff answer; no partner call reads it
    ok(ctx, success('Settings saved.', { create_latency_ms: latency }));
  });

  return router;
}

/** `webhook_url` (or its alias `url`); a refusal names the field that was sent. */
function webhookUrl(b: Body): string | null | undefined {
  // Stryker disable next-line StringLiteral: the staff plane's own alias of its field (spec/staff-openapi.yaml); the control plane's body names url
  const field = 'webhook_url' in b ? 'webhook_url' : 'url';
  const url = str(b, field, { optional: true, nullable: true, max: 2048 });
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (url && !/^https?:\/\/[^\s]+$/.test(url)) throw invalid(field, 'Must be an http(s) URL.');
  return url;
}

function eventTypes(value: unknown): EventType[] {
  // Stryker disable all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (!Array.isArray(value) || value.some((t) => !EVENT_TYPES.includes(t as EventType))) {
    throw invalid('event_types', `Must be an array of: ${EVENT_TYPES.join(', ')}.`);
  }
  // Stryker restore all
  return [...new Set(value as EventType[])];
}
