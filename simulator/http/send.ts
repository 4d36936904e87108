/** A domain reply sent over Koa: the one place a route's answer becomes its status, headers and JSON body. */
import type { Context } from 'koa';
import type { DomainError } from '../domain/errors.ts';
import { failure, type Reply } from '../domain/envelope.ts';

/** Sends a domain reply (its body serialised here unless the domain kept it serialised). */
export function send(ctx: Context, reply: Reply): void {
  ctx.status = reply.status;
  if (reply.headers) ctx.set(reply.headers);
  ctx.type = 'application/json';
  ctx.body = reply.text ?? JSON.stringify(reply.body);
}

/** Sends a refusal in the error envelope (§7). */
export function sendError(ctx: Context, error: DomainError): void {
  send(ctx, { status: error.status, body: failure(error), headers: error.headers });
}
