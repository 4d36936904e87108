/**
 * §4.5 rules 1–3: idempotent create. The fingerprint is SHA-256 over
 * key-sorted JSON, so key order is irrelevant and any value change counts;
 * keys are remembered 24 hours; every answer given under a key, refusals
 * included, is stored and replayed byte for byte.
 */
import { createHash } from 'node:crypto';
import { DomainError } from './errors.ts';
import type { IdempotencyRecord } from './model.ts';
import type { StoreReader, Transaction } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';
import { scanJsonText } from './json-text.ts';
import { IDEMPOTENCY_KEY_LENGTH } from '../../protocol/idempotency-key.ts';

export const KEY_MEMORY_MS = 24 * 3_600_000;
const { min: KEY_MIN, max: KEY_MAX } = IDEMPOTENCY_KEY_LENGTH;

/**
 * A parsed body's fingerprint, its JSON text read as json-text.ts reads a body as sent: one canonical form of §4.5 rule 1.
 */
export function fingerprint(body: unknown): string {
  return fingerprintOfCanonical(scanJsonText(JSON.stringify(body)).canonical);
}

/** The fingerprint of a body already in canonical form (json-text.ts builds it from the text as sent). */
export function fingerprintOfCanonical(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** §4.5 rule 2: missing or unusable key (absent, repeated, or outside 8–128 characters). */
export function usableKey(header: string | string[] | undefined, faults: Faults = NO_FAULTS): string {
  // A release whose column is one character short: a key of exactly 128 is refused.
  const max = faults.has('idempotency-key-max-127') ? KEY_MAX - 1 : KEY_MAX;
  if (typeof header !== 'string' || header.length < KEY_MIN || header.length > max) {
    throw new DomainError('IDEMPOTENCY_KEY_REQUIRED', { 'Idempotency-Key': [`The Idempotency-Key header is required (${KEY_MIN} to ${KEY_MAX} characters).`] });
  }
  return header;
}

function recordKey(integrationId: number, key: string): string {
  return `${integrationId}:${key}`;
}

export type Claim =
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'proceed' };

/**
 * Claims a key for a create. Replays a finished answer for the same body;
 * refuses a different body (IDEMPOTENCY_KEY_REUSED) and an identical request
 * still in flight (IN_PROGRESS); otherwise marks the key in progress.
 */
export function claim(tx: Transaction, integrationId: number, key: string, print: string, now: number, faults: Faults = NO_FAULTS, owner?: string): Claim {
  // A release whose keys are one namespace for every integration (a fault): §1, another integration's key is not this one's.
  const existing = live(tx, integrationId, key, now, faults) ?? (faults.has('idempotency-key-global') ? anyIntegration(tx, key, now) : undefined);
  if (existing) {
    if (existing.fingerprint !== print) throw new DomainError('IDEMPOTENCY_KEY_REUSED', { 'Idempotency-Key': ['Already used with a different request body.'] });
    // A release that reads a key still in flight as used with another body (a fault).
    if (existing.state === 'in_progress') throw faults.has('in-progress-as-reused') ? new DomainError('IDEMPOTENCY_KEY_REUSED', { 'Idempotency-Key': ['Already used.'] }) : new DomainError('IN_PROGRESS');
    return { kind: 'replay', status: existing.status!, body: existing.body! };
  }
  tx.put('idempotency', recordKey(integrationId, key), {
    integration_id: integrationId, key, fingerprint: print, state: 'in_progress', status: null, body: null,
    // A release that remembers keys 23 hours (a fault).
    created_at: now, expires_at: now + (faults.has('idempotency-memory-23h') ? KEY_MEMORY_MS - 3_600_000 : KEY_MEMORY_MS),
    // Stryker disable next-line all: only a store several processes share (PgStore, issue 39) names the process that holds a claim (§4.5 rule 3 across processes): the memory store of every check names none
    ...(owner === undefined ? {} : { owner }),
  });
  return { kind: 'proceed' };
}

// Stryker disable all: only a store several processes share (PgStore, issue 39) names the process that holds a claim (§4.5 rule 3 across processes): the memory store of every check names none
/** The process that holds the key's claim while its create is in flight; null when the key is not in flight or its claim names no process. */
export function inFlightOwner(r: StoreReader, integrationId: number, key: string, now: number): string | null {
  const record = live(r, integrationId, key, now, NO_FAULTS);
  return record?.state === 'in_progress' ? record.owner ?? null : null;
}

/**
 * §4.5 rule 3: a claim whose process is gone (a shared store's PostgreSQL
 * session ended) belongs to a request no longer being processed, and never
 * will be: it is released, so the retry runs afresh, as after a restart
 * (recovery.ts). Only that owner's claim, and only while still in flight.
 */
export function releaseAbandoned(tx: Transaction, integrationId: number, key: string, owner: string): boolean {
  const record = tx.get('idempotency', recordKey(integrationId, key));
  if (record?.state !== 'in_progress' || record.owner !== owner) return false;
  tx.delete('idempotency', recordKey(integrationId, key));
  return true;
}
// Stryker restore all

/** Stores the answer given under a claimed key, exactly as it is sent. */
export function settle(tx: Transaction, integrationId: number, key: string, status: number, body: string): void {
  const record = tx.get('idempotency', recordKey(integrationId, key));
  if (!record) return;
  tx.put('idempotency', recordKey(integrationId, key), { ...record, state: 'done', status, body });
}

// Stryker disable all: runs only when a create crashed or failed inside (an internal failure), the simulator's own recovery
/** Forgets a claim whose request never got an answer (a crash or an internal failure). */
export function release(tx: Transaction, integrationId: number, key: string): void {
  const record = tx.get('idempotency', recordKey(integrationId, key));
  if (record?.state === 'in_progress') tx.delete('idempotency', recordKey(integrationId, key));
}
// Stryker restore all

/** Forgets keys past their 24 hours (§4.5 rule 1): a bounded sweep, so memory does not grow with every create. */
export function purgeExpired(tx: Transaction, now: number, budget = 10_000): number {
  let purged = 0;
  for (const record of tx.values('idempotency')) {
    if (purged >= budget) break;
    if (record.expires_at <= now && record.state === 'done') {
      tx.delete('idempotency', recordKey(record.integration_id, record.key));
      purged += 1;
    }
  }
  return purged;
}

/**
 * The record a key still answers with. §4.5 rule 1, §8: 24 hours, whatever the sweep (purgeExpired) has done: the
 * serving simulator sweeps every 10 minutes and a clock step sweeps only at its start, so an expired record may
 * still be stored here and is never served.
 */
function live(r: StoreReader, integrationId: number, key: string, now: number, faults: Faults): IdempotencyRecord | undefined {
  const record = r.get('idempotency', recordKey(integrationId, key));
  // A release that leaves expiry to the sweep (a fault): a key is honoured until its record is swept.
  return record && (record.expires_at > now || faults.has('key-expiry-left-to-sweep')) ? record : undefined;
}

// Stryker disable all: runs only under the idempotency-key-global fault (conformance --mutants proves it caught)
function anyIntegration(r: StoreReader, key: string, now: number): IdempotencyRecord | undefined {
  return Array.from(r.values('idempotency')).find((record) => record.key === key && record.expires_at > now);
}
// Stryker restore all
