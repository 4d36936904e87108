/**
 * The partner API's operations over the injected dependencies
 * `{ store, clock, entropy, vault, changes }`. Each operation is one store
 * transaction and answers a Reply (status + envelope) or throws a
 * DomainError; the HTTP layer only parses, calls and sends.
 */
import type { Clock } from './clock.ts';
import type { ChangeRecorder } from './changes.ts';
import { TokenDigests, type Vault } from './credentials.ts';
import { DomainError, type ErrorCode } from './errors.ts';
import { failure, success, type Reply } from './envelope.ts';
import type { Entropy } from './ids.ts';
import type { Brand, Integration, Settings } from './model.ts';
import type { Store, Transaction } from '../store/store.ts';
import { authenticate, integrationView } from './integrations.ts';
import { spend, type RateLimitHeaders } from './rate-limit.ts';
import { bookingByExternalId, bookingView, createBooking, listBookings, visibleBooking, type CreateBookingInput, type ListQuery } from './bookings.ts';
import { claim, fingerprint, fingerprintOfCanonical, inFlightOwner, release, releaseAbandoned, settle, usableKey } from './idempotency.ts';
import { NO_FAULTS, type Faults } from './faults.ts';
import { createHash } from 'node:crypto';

export interface PlatformDeps {
  store: Store;
  clock: Clock;
  entropy: Entropy;
  vault: Vault;
  changes: ChangeRecorder;
  /** Events waiting or being retried for an integration (§2.1 webhook.undelivered_events). */
  undeliveredEvents?: (integrationId: number) => number;
  /** Deliberate breaches for mutation testing; none in normal use. */
  faults?: Faults;
}

export interface Caller {
  integration: Integration;
  rateLimit: RateLimitHeaders;
}

/** A create whose key is claimed and whose answer is still to be decided. */
export interface ClaimedCreate {
  key: string;
}

export type CreateAnswer = { status: number; body: string };

/** A GET /me answer and what it was built from (§2.1): the same inputs give the same bytes. */
interface MeAnswer {
  brand: Brand | undefined;
  undelivered: number;
  reply: Reply;
}

export class Platform {
  private readonly digests = new TokenDigests();
  /** Keyed by the integration record itself: records are replaced, never changed in place, so a new record is a miss. */
  private readonly meAnswers = new WeakMap<Integration, MeAnswer>();

  constructor(readonly deps: PlatformDeps) {}

  private get faults(): Faults {
    return this.deps.faults ?? NO_FAULTS;
  }

  get store(): Store {
    return this.deps.store;
  }

  settings(): Settings | undefined {
    return this.deps.store.get('settings', 'platform');
  }

  /** §5.6: the platform-level switch. */
  apiEnabled(): boolean {
    return this.settings()?.api_enabled ?? true;
  }

  /** §5 then §7 RATE_LIMITED: who is calling, with one request charged to its window. */
  authenticate(authorization: string | undefined): Caller {
    return this.deps.store.transaction((tx) => {
      const integration = authenticate(tx, authorization, (token) => this.digests.of(token), this.faults);
      return { integration, rateLimit: spend(tx, integration, this.deps.clock.now()) };
    });
  }

  /** §4.1 */
  me(caller: Caller): Reply {
    const { integration } = caller;
    const undelivered = this.deps.undeliveredEvents?.(integration.id) ?? 0;
    const brand = this.deps.store.get('brands', String(integration.brand_id));
    const known = this.meAnswers.get(integration);
    // §5 rule 7: /me is the health check partners poll; serialised once per change of what it shows, not once per call.
    if (known && known.brand === brand && known.undelivered === undelivered) return known.reply;
    const view = integrationView(this.deps.store, integration, undelivered, brand);
    // A release that reports the previous version (a fault).
    if (this.faults.has('api-version-wrong')) view.api_version = '2026-08';
    if (this.faults.has('covered-count-brand-wide')) {
      view.covered_properties = [...this.deps.store.values('properties')].filter((p) => p.brand_id === integration.brand_id).length;
    }
    const body = success('Integration retrieved.', view);
    const reply = { status: 200, body, text: JSON.stringify(body) };
    this.meAnswers.set(integration, { brand, undelivered, reply });
    return reply;
  }

  /** §4.2 */
  getBooking(caller: Caller, id: number): Reply {
    if (this.faults.has('foreign-booking-403')) {
      const other = this.deps.store.get('bookings', String(id));
      if (other && other.integration_id !== caller.integration.id) throw new DomainError('NOT_INTEGRATION_TOKEN', {}, 'Forbidden.');
    }
    const booking = visibleBooking(this.deps.store, caller.integration, id);
    return { status: 200, body: success('Booking retrieved.', bookingView(this.deps.store, booking)) };
  }

  /** §4.3 */
  getBookingByExternalId(caller: Caller, externalId: string): Reply {
    const booking = bookingByExternalId(this.deps.store, caller.integration, externalId);
    return { status: 200, body: success('Booking retrieved.', bookingView(this.deps.store, booking)) };
  }

  /** §4.4: `pagination` is a top-level sibling of `data`. */
  listBookings(caller: Caller, query: ListQuery): Reply {
    const { items, pagination } = listBookings(this.deps.store, caller.integration, query, this.faults);
    return { status: 200, body: success('Bookings retrieved.', items.map((b) => bookingView(this.deps.store, b)), { pagination }) };
  }

  /**
   * §4.5 rules 1–3, first half: a usable key, then replay, reuse refusal,
   * IN_PROGRESS, or a claim. The body is fingerprinted as key-sorted JSON, so
   * key order and white space do not matter and any value change does: from
   * its canonical text when the HTTP layer has it (numbers as sent, see
   * json-text.ts), else from the parsed value.
   */
  claimCreate(caller: Caller, keyHeader: string | string[] | undefined, body: unknown, canonicalText?: string): CreateAnswer | ClaimedCreate {
    const key = usableKey(keyHeader, this.faults);
    const print = this.faults.has('fingerprint-key-order') ? createHash('sha256').update(JSON.stringify(body)).digest('hex')
      : canonicalText !== undefined ? fingerprintOfCanonical(canonicalText) : fingerprint(body);
    const outcome = this.deps.store.transaction((tx) => {
      if (this.faults.has('key-reuse-accepted')) {
        const existing = tx.get('idempotency', `${caller.integration.id}:${key}`);
        if (existing && existing.fingerprint !== print) tx.delete('idempotency', `${caller.integration.id}:${key}`);
      }
      return claim(tx, caller.integration.id, key, print, this.deps.clock.now(), this.faults, this.deps.store.owner);
    });
    if (outcome.kind === 'replay' && this.faults.has('replay-not-byte-identical')) return { status: outcome.status, body: JSON.stringify(JSON.parse(outcome.body), null, 1) };
    return outcome.kind === 'replay' ? { status: outcome.status, body: outcome.body } : { key };
  }

  // Stryker disable all: only a store several processes share (PgStore, issue 39) names the process that holds a claim (§4.5 rule 3 across processes): the memory store of every check names none
  /**
   * §4.5 rule 3 across processes: the process whose create holds this key in
   * flight, when that is another process of a shared store (Store.owner);
   * null otherwise. The caller asks the store whether that process is gone.
   */
  foreignClaimOwner(caller: Caller, keyHeader: string | string[] | undefined): string | null {
    const self = this.deps.store.owner;
    if (self === undefined || typeof keyHeader !== 'string') return null;
    const owner = inFlightOwner(this.deps.store, caller.integration.id, keyHeader, this.deps.clock.now());
    return owner !== null && owner !== self ? owner : null;
  }

  /** Releases a claim whose owning process the store saw gone (§4.5 rule 3: no longer being processed); its retry then runs afresh. */
  releaseAbandonedClaim(caller: Caller, key: string, owner: string): void {
    this.deps.store.transaction((tx) => releaseAbandoned(tx, caller.integration.id, key, owner));
  }
  // Stryker restore all

  /**
   * §4.5, second half: decides the answer (validation failure, refusal,
   * duplicate or creation) and stores it under the key in the same
   * transaction as the booking, so the two never disagree.
   */
  finishCreate(caller: Caller, claimed: ClaimedCreate, body: unknown, refusal: { code: string; errors: Record<string, string[]> } | null): CreateAnswer {
    const integrationId = caller.integration.id;
    const store = this.deps.store;
    const answer = (tx: Transaction, reply: Reply): CreateAnswer => {
      const text = JSON.stringify(reply.body);
      settle(tx, integrationId, claimed.key, reply.status, text);
      return { status: reply.status, body: text };
    };
    const refuse = (error: DomainError) => store.transaction((tx) => {
      if (!this.faults.has('refusal-not-stored')) return answer(tx, { status: error.status, body: failure(error) });
      // Stryker disable all: runs only under the refusal-not-stored fault (conformance --mutants proves it caught)
      release(tx, integrationId, claimed.key);
      return { status: error.status, body: JSON.stringify(failure(error)) };
      // Stryker restore all
    });
    // The code comes from the contract: VALIDATION_FAILED, or §7 PROPERTY_NOT_MAPPED for a missing property reference.
    if (refusal) return refuse(new DomainError(refusal.code as ErrorCode, refusal.errors));
    try {
      return store.transaction((tx) => {
        // Re-read the integration: coverage may have changed while the key was in progress.
        const integration = tx.get('integrations', String(integrationId)) ?? caller.integration;
        const result = createBooking(tx, { changes: this.deps.changes, now: this.deps.clock.now(), faults: this.faults }, integration, body as CreateBookingInput);
        return answer(tx, result.kind === 'created'
          ? { status: 201, body: success('Booking created.', bookingView(tx, result.booking)) }
          : { status: 200, body: success('Booking already exists.', { ...bookingView(tx, result.booking), duplicate: true }) });
      });
    } catch (e) {
      // The refused transaction was dropped whole (§4.5 rules 6, 7: nothing written); store the refusal alone.
      // Stryker disable next-line all: anything but a DomainError is a storage failure or a bug, not an answer the API defines
      if (e instanceof DomainError) {
        // A release that records the availability change before it knows whether the create holds.
        const window = (e.errors as { availability?: { property: { doorloom_id: number }; window: { from: string; to: string } } }).availability;
        if (this.faults.has('conflict-emits-availability') && e.code === 'UNAVAILABLE' && window) {
          store.transaction((tx) => this.deps.changes.record(tx, { kind: 'availability', property_id: window.property.doorloom_id, from: window.window.from, to: window.window.to }));
        }
        return refuse(e);
      }
      // Not an answer: free the key so a retry is not stuck behind IN_PROGRESS.
      // Stryker disable next-line all: a storage failure or a bug (see above)
      store.transaction((tx) => release(tx, integrationId, claimed.key));
      throw e;
    }
  }
}
