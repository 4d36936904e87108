/**
 * What a partner deployment configures: where the API is, whose credentials
 * to use, its clock, where its state lives, its webhook listener, and (for
 * certification tests only) the deliberate breakages of `Breakages`.
 */
import type { Clock } from './clock.ts';
import type { StateStore } from './state-store.ts';
import type { PartnerObserver } from './observer.ts';

/**
 * The partner's secrets vault. Credentials are shown once by platform staff
 * (§5.2) and land here; the partner reads them when it starts and again
 * after a 401 (§5.3: a rotated-out key stops working at once).
 */
export interface Credentials {
  /** The API key the vault holds now. */
  apiKey(): string | Promise<string>;
  /** Every webhook secret to accept now: the old and the new one while rotating (§5.4). */
  webhookSecrets(): readonly string[];
}

/** A vault in memory; operators put new credentials in it (scenarios play the operator). */
export class CredentialVault implements Credentials {
  private key: string;
  private secrets: string[];

  constructor(apiKey: string, webhookSecrets: string[]) {
    this.key = apiKey;
    this.secrets = [...webhookSecrets];
  }

  apiKey(): string {
    return this.key;
  }

  webhookSecrets(): readonly string[] {
    return [...this.secrets];
  }

  /** Stores a rotated API key (shown once by staff). */
  setApiKey(key: string): void {
    this.key = key;
  }

  /** Starts accepting a new webhook secret next to the ones held (§5.4 rotation window). */
  addWebhookSecret(secret: string): void {
    if (!this.secrets.includes(secret)) this.secrets.push(secret);
  }

  /** Stops accepting a secret once deliveries carry the new one. */
  retireWebhookSecret(secret: string): void {
    this.secrets = this.secrets.filter((s) => s !== secret);
  }
}

/**
 * Deliberate mistakes, each one a real way integrations go wrong. All off in
 * the reference partner; the certification tests switch one on and expect a
 * named scenario to catch it with a divergence report.
 */
export interface Breakages {
  /**
   * Superseded replay rows are applied (§3.3 says they must not be): the
   * partner treats them as deliveries the platform gave up on and writes
   * them over what it holds once the page is done. (Applied in sequence order
   * under apply-if-newer they would be covered by the newer event; this is
   * the way the rule actually gets broken in practice.)
   */
  applySuperseded: boolean;
  /**
   * §3.3 broken the way it usually is: superseded replay rows go through the
   * handler in sequence order like any other row. A newer row later in the
   * walk covers each one, so the end state is right; between pages the
   * partner holds a value the platform had already replaced.
   */
  applySupersededInOrder: boolean;
  /**
   * The signature is checked over the re-serialised JSON
   * (`JSON.stringify(JSON.parse(body))`) instead of the raw bytes received:
   * every delivery the platform writes in another valid JSON form is refused.
   */
  reserialisedBodySignature: boolean;
  /** §4.8 broken: a snapshot is stamped with the latest sequence read after the payload, not its `data.sequence`. */
  ignoreWatermark: boolean;
  /**
   * §4.8 broken the way a cold start usually breaks it: the nights are
   * stamped with the snapshot's `data.sequence`, but the cursor is set to
   * "now" (latest_sequence read after the snapshots) instead of to their
   * watermark, so the replay that follows skips every event made while the
   * snapshots were being served.
   */
  snapshotWatermarkIgnored: boolean;
  /** Deliveries are applied without checking X-Service-Signature. */
  skipSignatureVerification: boolean;
  /** §4.5 rule 1 broken: each retry of a create gets a new Idempotency-Key. */
  newKeyPerRetry: boolean;
  /** The Idempotency-Key is derived from the stay (property and dates), so a new booking for the same stay reuses it. */
  reuseKeyForNewBooking: boolean;
  /** The replay cursor is not kept: after a restart the partner resumes from the newest sequence. */
  dropCursorOnRestart: boolean;
  /**
   * A delivery is answered 2xx before its data is stored: what deliveries
   * write (nights, records, bookings) goes to disk in a write-behind batch
   * once no delivery came for a few seconds, while the cursor is written at
   * once (catch-up and bookings write through). A crash between the 2xx and
   * the batch loses every event acknowledged since the last batch, and the
   * cursor on disk is already past them, so no replay fetches them again.
   */
  ackBeforeStore: boolean;
  /** After a restart the partner replays from sequence 0 instead of its stored cursor (§6.8: from the stored cursor). */
  cursorFromZeroOnRestart: boolean;
  /**
   * After a restart the partner resumes from "now" (the newest sequence)
   * instead of its stored cursor: what it had not acknowledged before the
   * crash is skipped (certification's name for the mistake the scenarios
   * call dropCursorOnRestart; the same behaviour).
   */
  cursorFromNowOnRestart: boolean;
}

export const BREAKAGE_NAMES = [
  'applySuperseded', 'ignoreWatermark', 'skipSignatureVerification', 'newKeyPerRetry', 'reuseKeyForNewBooking', 'dropCursorOnRestart',
  'applySupersededInOrder', 'reserialisedBodySignature', 'ackBeforeStore', 'cursorFromZeroOnRestart', 'cursorFromNowOnRestart',
  'snapshotWatermarkIgnored',
] as const satisfies readonly (keyof Breakages)[];

export const NO_BREAKAGES: Breakages = {
  applySuperseded: false,
  applySupersededInOrder: false,
  reserialisedBodySignature: false,
  ignoreWatermark: false,
  snapshotWatermarkIgnored: false,
  skipSignatureVerification: false,
  newKeyPerRetry: false,
  reuseKeyForNewBooking: false,
  dropCursorOnRestart: false,
  ackBeforeStore: false,
  cursorFromZeroOnRestart: false,
  cursorFromNowOnRestart: false,
};

export interface ReceiverConfig {
  /** Loopback by default; put a reverse proxy or tunnel in front for a public URL. */
  host?: string;
  /** 0 picks a free port; a restart passes the port it had. */
  port?: number;
  /** The path the platform posts to (the path of the registered webhook URL). */
  path?: string;
  /** Paths the partner no longer serves: answered 410 so the platform stops (§3.1 `gone`). */
  retiredPaths?: string[];
  /** Infrastructure in front of the partner (a load balancer in an outage): a status to answer instead, or null. */
  gate?: () => number | null;
}

export interface PartnerConfig {
  /** `{base_url}/api/integrations/v1`. */
  baseUrl: string;
  /** The integration slug; every delivery must carry it in X-Service-Integration (§6.3). */
  slug: string;
  credentials: Credentials;
  clock: Clock;
  /** How the partner waits (Retry-After, back-off). */
  sleep: (ms: number) => Promise<void>;
  store: StateStore;
  /** How many nights ahead, from today, the partner keeps a copy of (at most the integration's horizon_days). */
  horizonDays?: number;
  /** §6.8: how to rebuild on a cold start or after an outage beyond retention. */
  recovery?: 'snapshots' | 'sync';
  receiver?: ReceiverConfig;
  /** Signature timestamp tolerance in seconds. */
  toleranceSeconds?: number;
  /** The HTTP client (injected so tests can lose an answer on purpose). */
  fetch?: typeof fetch;
  observer?: PartnerObserver;
  breakages?: Partial<Breakages>;
}
