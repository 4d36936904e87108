/**
 * Integrations: authentication (§5), the record of GET /me (§2.1, §4.1),
 * status (§3.1) and the staff operations on credentials and delivery.
 */
import { timestamp } from '../../protocol/calendar.ts';
import { digestsEqual, hashToken, newApiKey, newWebhookSecret, WEBHOOK_SECRET_PREFIX, type Vault } from './credentials.ts';
import { DomainError, invalid, notFound } from './errors.ts';
import { nextId, type Entropy } from './ids.ts';
import { EVENT_TYPES, type EventType, type Integration, type IntegrationStatus, type PausedReason } from './model.ts';
import type { StoreReader, Transaction } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';

const HOUR_MS = 3_600_000;
/** §5.4: a rotated-out webhook secret keeps verifying for 24 hours. */
export const PREVIOUS_SECRET_MS = 24 * HOUR_MS;
export const DEFAULT_HORIZON_DAYS = 365;
/** Generous default (spec X-RateLimit-Limit x-assumption). */
// Stryker disable next-line all: the general rate limit's numbers are not shown (§8); a limit the run never reaches answers alike (auth.rate-limited-headers sets its own)
export const DEFAULT_RATE_LIMIT = { limit: 6000, window_seconds: 60 };

export function statusOf(integration: Integration): IntegrationStatus {
  // Stryker disable next-line all: a disabled integration is refused every call before its record is built (§3.1; authenticate): the partner API never shows 'disabled', only the staff view and the CLI read it
  if (integration.disabled) return 'disabled';
  return integration.webhook.paused_at !== null ? 'paused' : 'active';
}

/**
 * §5.1, §5.5: the integration a bearer token authenticates. The lookup is by
 * hash and the stored hash is compared in constant time; a staff token is
 * NOT_INTEGRATION_TOKEN, a disabled integration INTEGRATION_DISABLED.
 */
export function authenticate(r: StoreReader, authorization: string | undefined, digestOf: (token: string) => string = hashToken, faults: Faults = NO_FAULTS): Integration {
  const match = /^Bearer ([^\s]+)$/.exec(authorization ?? '');
  if (!match) throw new DomainError('UNAUTHENTICATED');
  const digest = digestOf(match[1]!);
  const staffHash = r.get('settings', 'platform')?.staff_token_hash;
  if (staffHash && digestsEqual(staffHash, digest)) throw new DomainError('NOT_INTEGRATION_TOKEN');
  const entry = r.get('apiKeys', digest);
  const integration = entry && r.get('integrations', String(entry.integration_id));
  if (!integration || !digestsEqual(integration.api_key_hash, digest)) throw new DomainError('UNAUTHENTICATED');
  // A release that treats a disabled integration's key as unknown (a fault).
  if (integration.disabled) throw new DomainError(faults.has('disabled-is-401') ? 'UNAUTHENTICATED' : 'INTEGRATION_DISABLED');
  return integration;
}

/** §2.1: the integration object. `undelivered_events` comes from the delivery queue. */
// Stryker disable next-line StringLiteral: the default brand lookup serves the staff view only (the partner's /me hands its brand in, platform.ts)
export function integrationView(r: StoreReader, integration: Integration, undeliveredEvents: number, brand = r.get('brands', String(integration.brand_id))): Record<string, unknown> {
  const w = integration.webhook;
  const ts = (ms: number | null) => (ms === null ? null : timestamp(ms));
  return {
    id: integration.id,
    slug: integration.slug,
    name: integration.name,
    status: statusOf(integration),
    brand: { id: integration.brand_id, name: brand?.name ?? '' },
    api_version: '2026-09',
    webhook: {
      configured: w.url !== null,
      url: w.url,
      event_types: w.event_types,
      last_sequence: integration.last_sequence,
      undelivered_events: undeliveredEvents,
      consecutive_failures: w.consecutive_failures,
      last_success_at: ts(w.last_success_at),
      last_failure_at: ts(w.last_failure_at),
      paused_at: ts(w.paused_at),
      paused_reason: w.paused_reason,
    },
    horizon_days: integration.horizon_days,
    covered_properties: integration.coverage.length,
  };
}

export interface NewIntegration {
  brand_id: number;
  name: string;
  slug?: string;
  webhook_url?: string | null;
  event_types?: EventType[];
  horizon_days?: number;
}

export interface Credentials {
  api_key: string;
  webhook_secret: string;
}

/** §5.2: creates an integration; its credentials are returned here once and never again. */
export function createIntegration(tx: Transaction, deps: { entropy: Entropy; vault: Vault; now: number }, input: NewIntegration): { integration: Integration; credentials: Credentials } {
  // Stryker disable all: the staff plane's own refusal or default on a staff call; no partner call reaches it (the seeded world names each slug)
  if (!tx.get('brands', String(input.brand_id))) throw invalid('brand_id', 'Unknown brand.');
  const id = nextId(tx, 'integration');
  const slug = input.slug ?? `${input.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${id}`;
  if (Array.from(tx.values('integrations')).some((i) => i.slug === slug)) throw invalid('slug', 'Already taken.');
  // Stryker restore all
  const credentials = { api_key: newApiKey(deps.entropy), webhook_secret: newWebhookSecret(deps.entropy) };
  const integration: Integration = {
    id,
    slug,
    name: input.name,
    brand_id: input.brand_id,
    disabled: false,
    api_key_hash: hashToken(credentials.api_key),
    webhook_secret: deps.vault.seal(credentials.webhook_secret),
    previous_webhook_secret: null,
    webhook: {
      // Stryker disable next-line all: the staff plane's own refusal or default on a staff call; no partner call reaches it
      url: input.webhook_url ?? null,
      event_types: input.event_types ?? [...EVENT_TYPES],
      consecutive_failures: 0,
      last_success_at: null,
      last_failure_at: null,
      paused_at: null,
      paused_reason: null,
    },
    last_sequence: 0,
    horizon_days: input.horizon_days ?? DEFAULT_HORIZON_DAYS,
    // Stryker disable all: a new integration's coverage is set by staff right after (setCoverage), and the default rate limit's numbers are not shown (§8)
    coverage: [],
    rate_limit: { ...DEFAULT_RATE_LIMIT },
    // Stryker restore all
    created_at: deps.now,
  };
  tx.put('integrations', String(id), integration);
  tx.put('apiKeys', integration.api_key_hash, { integration_id: id });
  return { integration, credentials };
}

export function integrationById(r: StoreReader, id: number): Integration {
  const integration = r.get('integrations', String(id));
  // Stryker disable next-line all: the staff plane's own refusal or default on a staff call; no partner call reaches it
  if (!integration) throw notFound();
  return integration;
}

/** §5.3: issuing a key rotates it; the previous key stops working immediately. */
export function rotateApiKey(tx: Transaction, entropy: Entropy, id: number): string {
  const integration = integrationById(tx, id);
  const apiKey = newApiKey(entropy);
  tx.delete('apiKeys', integration.api_key_hash);
  // Stryker disable next-line all: the call journal's record of a rotated-out key (app.ts), the simulator's own instrument
  tx.put('retiredKeys', integration.api_key_hash, { integration_id: id });
  const next = { ...integration, api_key_hash: hashToken(apiKey) };
  tx.put('integrations', String(id), next);
  tx.put('apiKeys', next.api_key_hash, { integration_id: id });
  return apiKey;
}

/**
 * §5.4: the previous secret keeps verifying for 24 hours; a second rotation
 * pushes the older one out at once (only one previous slot).
 */
export function rotateWebhookSecret(tx: Transaction, deps: { entropy: Entropy; vault: Vault; now: number; faults?: Faults }, id: number): string {
  const integration = integrationById(tx, id);
  // A release that mints the rotated secret without its prefix (a fault; §2.2: a string with prefix whsec_).
  const secret = deps.faults?.has('webhook-secret-unprefixed') ? newWebhookSecret(deps.entropy).slice(WEBHOOK_SECRET_PREFIX.length) : newWebhookSecret(deps.entropy);
  // Releases that get the 24 hours wrong by an hour either way (faults).
  const validity = PREVIOUS_SECRET_MS + (deps.faults?.has('previous-secret-dropped-early') ? -HOUR_MS : deps.faults?.has('previous-secret-kept-late') ? HOUR_MS : 0);
  tx.put('integrations', String(id), {
    ...integration,
    webhook_secret: deps.vault.seal(secret),
    previous_webhook_secret: { secret: integration.webhook_secret, expires_at: deps.now + validity },
  });
  return secret;
}

/** The secrets a delivery is signed with now: current first, then a still-valid previous one. */
export function signingSecrets(integration: Integration, vault: Vault, now: number): string[] {
  const secrets = [vault.open(integration.webhook_secret)];
  const prev = integration.previous_webhook_secret;
  if (prev && prev.expires_at > now) secrets.push(vault.open(prev.secret));
  return secrets;
}

export function updateIntegration(tx: Transaction, id: number, patch: (i: Integration) => Integration): Integration {
  const next = patch(integrationById(tx, id));
  tx.put('integrations', String(id), next);
  return next;
}

/** §3.1: pauses delivery with a reason; the API keeps full access. */
export function pause(integration: Integration, reason: PausedReason, now: number): Integration {
  if (integration.webhook.paused_at !== null) return integration;
  return { ...integration, webhook: { ...integration.webhook, paused_at: now, paused_reason: reason } };
}

export function resume(integration: Integration, now: number): Integration {
  return {
    ...integration,
    webhook: { ...integration.webhook, paused_at: null, paused_reason: null, consecutive_failures: 0, failing_since: null, next_probe_at: null, resumed_at: now },
  };
}
