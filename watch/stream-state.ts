/**
 * What watch remembers of one integration's traffic, windowed so a run of
 * weeks holds a bounded amount (limits below, documented in docs/watch.md):
 * the events seen by sequence, the replay gaps default pages left, the
 * creates by Idempotency-Key and external_booking_id, the delivery head, the
 * replay walk in progress, the last GET /me, the Retry-After in force.
 * Integrations are keyed by slug once an answer names it (GET /me, an event
 * envelope), by the credential id before.
 */
import { BoundedMap } from './bounded-map.ts';
import type { WatchedExchange } from './exchange.ts';

/** How much watch keeps per integration, and of how many integrations. */
export interface StreamLimits {
  /** Events remembered by sequence (their id, bytes digest, type, property, delivered or superseded). */
  sequences: number;
  /** Replay gaps (sequences a default page did not show) kept to judge against later deliveries. */
  omissions: number;
  /** Idempotency keys and external_booking_ids remembered (and never longer than 24 hours, §4.5 rule 1). */
  creates: number;
  /** Integrations followed at once (the least recently seen is forgotten). */
  integrations: number;
  /** Bookings whose owner is remembered, across integrations (§1 visibility). */
  bookings: number;
}

export const DEFAULT_LIMITS: StreamLimits = { sequences: 20_000, omissions: 1_000, creates: 20_000, integrations: 1_000, bookings: 200_000 };

export interface SequenceInfo {
  eventId?: string;
  /** SHA-256 of the envelope's bytes as delivered or as replayed (`JSON.stringify(row.event)`, as the suite compares). */
  bytes?: string;
  type?: string;
  property?: number;
  /** Seen delivered (a 2xx delivery, or a row `delivered` / with `delivered_at`): never superseded (§3.3). */
  delivered: boolean;
  /** Unix ms when a row first showed it `superseded`. */
  supersededAt?: number;
  /** Answered 2xx on a delivery watch forwarded. */
  posted?: boolean;
  /** The replay page that first showed it waiting (`pending` or `failed`). */
  shownWaiting?: WatchedExchange;
  /** Unix ms when a replay row last showed it: the log held it then (§6.7 retention). */
  shownAt?: number;
}

/** Sequences `from`..`to` a default replay page did not show, with that page's filters. */
export interface Omission {
  from: number;
  to: number;
  types: string[] | null;
  property: number | null;
  exchange: WatchedExchange;
}

/** A create under an Idempotency-Key: the first answer the platform stores (§4.5 rule 1). */
export interface KeyRecord {
  fingerprint: string;
  status: number;
  code: string | undefined;
  /** SHA-256 of the answer's body. */
  body: string;
  startedAt: number;
  endedAt: number;
  /** True when the platform stores this answer under the key (201, 200 duplicate, 409 UNAVAILABLE). */
  stored: boolean;
  externalId: string | undefined;
}

/** A create attempt for an external_booking_id (partner side: a retry reuses its key). */
export interface Attempt {
  key: string;
  fingerprint: string;
  at: number;
  /** The booking created for it, once a 201 or 200 named one. */
  bookingId?: number;
}

/** A replay walk in progress: the last page, whose next_after_sequence the next request should use. */
export interface ReplayWalk {
  after: number;
  next: number;
  hasMore: boolean;
}

export class IntegrationStream {
  slug: string | undefined;
  readonly sequences: BoundedMap<number, SequenceInfo>;
  readonly eventIds: BoundedMap<string, number>;
  omissions: Omission[] = [];
  readonly keys: BoundedMap<string, KeyRecord>;
  readonly attempts: BoundedMap<string, Attempt>;
  /** The highest sequence delivered (any answer) so far: §6.2 order. */
  highestDelivered: number | null = null;
  /** The latest end of a delivery seen: the next must not start before it (§6.2 one at a time). */
  deliveriesEnd = 0;
  /** Evidence of the newest sequence that existed, as (known from unix ms, sequence), rising. */
  private known: { at: number; sequence: number }[] = [];
  /** Snapshots answered, as (answered at unix ms, watermark), the newest few. */
  watermarks: { at: number; sequence: number; exchange: WatchedExchange }[] = [];
  /** Start of the last GET /me answered 200 (§5.7). */
  lastMe: number | null = null;
  /** Per operation (`POST /sync`): until when Retry-After said to wait, and the exchange that said so. */
  readonly retryAfter = new Map<string, { until: number; exchange: WatchedExchange }>();
  /**
   * The partner's cursor as its traffic shows it: the highest sequence it has
   * taken in (a delivery it answered 2xx, a replay page read from no further
   * on, a snapshot's watermark, §4.8 rule 9); null until traffic shows one.
   */
  partnerSeenThrough: number | null = null;
  /** Per replay filter (`types[]`, `property_id`, `include_superseded`): the walk in progress. */
  readonly walks = new BoundedMap<string, ReplayWalk>(64);

  constructor(readonly id: string, readonly limits: StreamLimits) {
    this.sequences = new BoundedMap(limits.sequences);
    this.eventIds = new BoundedMap(limits.sequences);
    this.keys = new BoundedMap(limits.creates);
    this.attempts = new BoundedMap(limits.creates);
  }

  /** The integration's name in findings: its slug once known. */
  get name(): string {
    return this.slug ?? this.id;
  }

  sequence(n: number): SequenceInfo {
    let info = this.sequences.get(n);
    if (!info) {
      info = { delivered: false };
      this.sequences.set(n, info);
    }
    return info;
  }

  /** Records that `sequence` existed by `at` (unix ms). */
  knowSequence(sequence: number, at: number): void {
    const last = this.known.at(-1);
    if (last && sequence <= last.sequence) return;
    this.known.push({ at, sequence });
    if (this.known.length > 64) this.known.shift();
  }

  /** The highest sequence known to have existed at `at` (unix ms); 0 when none. */
  knownBy(at: number): number {
    let best = 0;
    for (const k of this.known) if (k.at <= at) best = Math.max(best, k.sequence);
    return best;
  }

  addOmission(o: Omission): void {
    this.omissions.push(o);
    if (this.omissions.length > this.limits.omissions) this.omissions.shift();
  }

  /** Takes over what `other` (the same integration under a credential id) learnt before its slug was known. */
  absorb(other: IntegrationStream): void {
    for (const [k, v] of other.sequences.entries()) if (!this.sequences.has(k)) this.sequences.set(k, v);
    for (const [k, v] of other.eventIds.entries()) if (!this.eventIds.has(k)) this.eventIds.set(k, v);
    for (const [k, v] of other.keys.entries()) if (!this.keys.has(k)) this.keys.set(k, v);
    for (const [k, v] of other.attempts.entries()) if (!this.attempts.has(k)) this.attempts.set(k, v);
    for (const o of other.omissions) this.addOmission(o);
    for (const k of other.known) this.knowSequence(k.sequence, k.at);
    this.lastMe = Math.max(this.lastMe ?? 0, other.lastMe ?? 0) || null;
    for (const [k, v] of other.retryAfter) if (!this.retryAfter.has(k)) this.retryAfter.set(k, v);
    for (const [k, v] of other.walks.entries()) if (!this.walks.has(k)) this.walks.set(k, v);
    if (other.partnerSeenThrough !== null) this.partnerSeenThrough = Math.max(this.partnerSeenThrough ?? 0, other.partnerSeenThrough);
    this.watermarks = [...this.watermarks, ...other.watermarks].slice(-16);
  }
}

/** Every integration's stream, found by credential id or by slug. */
export class Streams {
  private readonly byId: BoundedMap<string, IntegrationStream>;
  /** Credential id → slug, once an answer to that credential named its integration. */
  private readonly slugOf: BoundedMap<string, string>;

  constructor(readonly limits: StreamLimits = DEFAULT_LIMITS) {
    this.byId = new BoundedMap(limits.integrations);
    this.slugOf = new BoundedMap(limits.integrations * 4);
  }

  get size(): number {
    return this.byId.size;
  }

  /** The stream of the integration an API key belongs to. */
  forCredential(credential: string): IntegrationStream {
    const slug = this.slugOf.get(credential);
    return slug !== undefined ? this.forSlug(slug) : this.get(credential);
  }

  /** The stream of the integration a delivery names. */
  forSlug(slug: string): IntegrationStream {
    const stream = this.get(`slug:${slug}`);
    stream.slug = slug;
    return stream;
  }

  /** Learns that `credential` belongs to the integration `slug`; returns that integration's stream. */
  bind(credential: string, slug: string): IntegrationStream {
    const target = this.forSlug(slug);
    if (this.slugOf.get(credential) === slug) return target;
    this.slugOf.set(credential, slug);
    const before = this.byId.get(credential);
    if (before) {
      target.absorb(before);
      this.byId.delete(credential);
    }
    return target;
  }

  private get(id: string): IntegrationStream {
    let stream = this.byId.get(id);
    if (!stream) {
      stream = new IntegrationStream(id, this.limits);
      this.byId.set(id, stream);
    } else this.byId.set(id, stream);
    return stream;
  }
}
