/** Handlers of the partner API, keyed by the contract's operationId. */
import type { Context } from 'koa';
import type { Contract, Operation } from '../../spec/contract.ts';
import { isIsoDate, parseInstant } from '../../protocol/calendar.ts';
import { DomainError, invalid, notFound } from '../domain/errors.ts';
import type { Caller, Platform } from '../domain/platform.ts';
import type { ListQuery } from '../domain/bookings.ts';
import { readJson } from './body.ts';
import { bodyLimitFault } from '../faults.ts';
import { NO_FAULTS, type Faults } from '../domain/faults.ts';
import { send } from './send.ts';
import { outsideSection } from '../store/store.ts';
import { holdCreate } from './create-hold.ts';

export type Handler = (ctx: Context, caller: Caller, op: Operation) => Promise<void> | void;

interface Deps {
  platform: Platform;
  contract: Contract;
  sleep: (ms: number) => Promise<void>;
}

/** Path and query parameters validated (and coerced) from the contract; 422 VALIDATION_FAILED otherwise. */
export function parameters(contract: Contract, op: Operation, ctx: Context): { path: Record<string, unknown>; query: Record<string, unknown> } {
  const input = { path: { ...(ctx.params as Record<string, unknown>) }, query: { ...ctx.query } as Record<string, unknown>, headers: ctx.headers as Record<string, unknown> };
  // Headers are checked where they have their own error code (Idempotency-Key, §4.5 rule 2).
  // The operation itself, never a per-request copy: the contract caches validators per operation (issue 17).
  const errors = contract.checkParameters(op, input);
  if (errors) throw new DomainError('VALIDATION_FAILED', errors);
  return { path: input.path, query: input.query };
}

/**
 * §4.4 `updated_since` as an instant that does not depend on where the
 * simulator runs; null when the text names no real instant. "Parseable" is
 * ISO 8601 (spec x-assumption on updated_since, issue 29): the contract's
 * pattern has refused every other spelling before this runs (an engine's
 * parser read `1` as 2001-01-01). Here the fields are range-checked (Date.parse
 * rolled 2026-02-30 over to 2026-03-02), and zone-less text is read in the
 * platform zone, as the x-assumption reads a bare date.
 */
function updatedSinceInstant(text: string, faults: Faults): number | null {
  const tod = (h: number, m: number, s: number, ms: number) => ((h * 60 + m) * 60 + s) * 1000 + ms;
  const iso = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/.exec(text);
  if (!iso) return null;
  const [, date, hh = '0', mm = '0', ss = '0', frac = '', zone] = iso;
  if (!isIsoDate(date!) || +hh > 23 || +mm > 59 || +ss > 59) return null;
  const sinceMidnight = tod(+hh, +mm, +ss, Math.floor(Number(`0${frac}`) * 1000));
  if (zone === undefined) return parseInstant(date!)! + sinceMidnight;
  const [, sign, oh = '0', om = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) ?? [];
  // A release that drops the offset reads every zoned timestamp as UTC.
  const offsetMs = sign === undefined || faults.has('updated-since-offset-dropped') ? 0 : (sign === '-' ? -1 : 1) * tod(+oh, +om, 0, 0);
  if (Math.abs(offsetMs) >= 24 * 3_600_000) return null;
  return Date.parse(`${date}T00:00:00Z`) + sinceMidnight - offsetMs;
}

export function partnerHandlers({ platform, contract, sleep }: Deps): Record<string, Handler> {
  return {
    getMe: (ctx, caller) => send(ctx, platform.me(caller)),

    getBooking: (ctx, caller, op) => {
      // §4.2: the segment must be numeric and within the contract's rule for it (spec/openapi.yaml); anything else names no booking.
      const raw = String(ctx.params.doorloom_id);
      if (!/^[0-9]{1,15}$/.test(raw) || lookupRefused(contract, op, ctx)) throw notFound();
      send(ctx, platform.getBooking(caller, Number(raw)));
    },

    getBookingByExternalId: (ctx, caller, op) => {
      const id = String(ctx.params.external_booking_id);
      // §4.3 otherwise 404: outside the contract's rule for the segment (1 to 128 characters, §8) no booking has the id; a fault's lookup column one shorter than the create's finds none of the maximum length.
      if (lookupRefused(contract, op, ctx) || (platform.deps.faults?.has('external-lookup-max-127') && id.length > 127)) throw notFound();
      send(ctx, platform.getBookingByExternalId(caller, id));
    },

    listBookings: (ctx, caller, op) => {
      const { query } = parameters(contract, op, ctx);
      // §4.4 updated_since: handed to the domain as one unambiguous instant (see updatedSinceInstant).
      if (typeof query.updated_since === 'string') {
        const since = updatedSinceInstant(query.updated_since, platform.deps.faults ?? NO_FAULTS);
        if (since === null) throw invalid('updated_since', 'Must be an ISO 8601 date (YYYY-MM-DD) or timestamp naming a real date and time.');
        query.updated_since = new Date(since).toISOString();
      }
      send(ctx, platform.listBookings(caller, query as unknown as ListQuery));
    },

    createBooking: async (ctx, caller, op) => {
      const keyHeader = ctx.headers['idempotency-key'];
      const body = await readJson(ctx);
      ctx.state.requestBody = body;
      // §4.5 rule 3 across processes: a key left in flight by a process that is gone is no longer being processed; it is released and this retry runs afresh.
      const owner = platform.foreignClaimOwner(caller, keyHeader);
      // Stryker disable next-line ConditionalExpression: only a store several processes share has a claim of another process (in one process a restart releases it, recovery.ts; simulator/store/pg-three-processes.test.ts)
      if (owner !== null && await platform.store.ownerGone!(owner)) platform.releaseAbandonedClaim(caller, keyHeader as string, owner);
      const claimed = platform.claimCreate(caller, keyHeader, body, ctx.state.bodyCanonical as string | undefined);
      if ('body' in claimed) return replay(ctx, claimed);
      const latency = () => platform.settings()?.create_latency_ms ?? 0;
      // Outside the section of a shared store: meanwhile another process sees the key in_progress (§4.5 rule 3, 409 IN_PROGRESS).
      if (latency() > 0) await outsideSection(platform.store, () => holdCreate(latency, sleep));
      // A release whose length check lets one character too many through on external_booking_id (a fault).
      // Stryker disable all: only the external-id-129-accepted fault runs it (off in the mutation run; conformance --mutants proves it caught)
      const checked = (platform.deps.faults?.has('external-id-129-accepted') ?? false) && typeof (body as any)?.external_booking_id === 'string' && (body as any).external_booking_id.length === 129
        ? { ...(body as object), external_booking_id: (body as any).external_booking_id.slice(0, 128) } : body;
      // Stryker restore all
      replay(ctx, platform.finishCreate(caller, claimed, body, contract.bodyRefusal(op, checked) ?? bodyLimitFault(platform.deps.faults ?? NO_FAULTS, body)));
    },
  };
}

/** Sends a stored answer byte for byte (§4.5 rule 1). */
function replay(ctx: Context, answer: { status: number; body: string }): void {
  ctx.status = answer.status;
  ctx.type = 'application/json';
  ctx.body = answer.body;
}

/**
 * Whether a read by id breaks the contract's rule for its path segment (spec/openapi.yaml, the one place the rule
 * lives): such a segment names no booking, so the read is 404 NOT_FOUND, never 422 (§4.2, §4.3; §7 maps no 422 to get).
 */
function lookupRefused(contract: Contract, op: Operation, ctx: Context): boolean {
  return contract.checkParameters(op, { path: { ...(ctx.params as Record<string, unknown>) } }) !== null;
}
