/** Handlers of the partner API, keyed by the contract's operationId. */
import type { Context } from 'koa';
import type { Contract, Operation } from '../../spec/contract.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Caller, Platform } from '../domain/platform.ts';
import type { ListQuery } from '../domain/bookings.ts';
import { readJson } from './body.ts';
import { send } from './app.ts';

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
  const errors = contract.checkParameters({ ...op, parameters: op.parameters.filter((p) => p.in !== 'header') }, input);
  if (errors) throw new DomainError('VALIDATION_FAILED', errors);
  return { path: input.path, query: input.query };
}

export function partnerHandlers({ platform, contract, sleep }: Deps): Record<string, Handler> {
  return {
    getMe: (ctx, caller) => send(ctx, platform.me(caller)),

    getBooking: (ctx, caller) => {
      // §4.2: the segment must be numeric; anything else names no booking.
      const raw = String(ctx.params.doorloom_id);
      if (!/^[0-9]{1,15}$/.test(raw)) throw notFound();
      send(ctx, platform.getBooking(caller, Number(raw)));
    },

    getBookingByExternalId: (ctx, caller) => {
      const id = String(ctx.params.external_booking_id);
      if (id.length === 0 || id.length > 128) throw notFound();
      send(ctx, platform.getBookingByExternalId(caller, id));
    },

    listBookings: (ctx, caller, op) => {
      const { query } = parameters(contract, op, ctx);
      send(ctx, platform.listBookings(caller, query as unknown as ListQuery));
    },

    createBooking: async (ctx, caller, op) => {
      const keyHeader = ctx.headers['idempotency-key'];
      const body = await readJson(ctx);
      const claimed = platform.claimCreate(caller, keyHeader, body);
      if ('body' in claimed) return replay(ctx, claimed);
      const latency = platform.settings()?.create_latency_ms ?? 0;
      if (latency > 0) await sleep(latency);
      replay(ctx, platform.finishCreate(caller, claimed, body, contract.checkBody(op, body)));
    },
  };
}

/** Sends a stored answer byte for byte (§4.5 rule 1). */
function replay(ctx: Context, answer: { status: number; body: string }): void {
  ctx.status = answer.status;
  ctx.type = 'application/json';
  ctx.body = answer.body;
}
