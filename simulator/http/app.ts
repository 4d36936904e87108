/**
 * The Koa app: the partner API under /api/integrations/v1 and, when given,
 * the staff plane. Routes are thin: parse, validate from the contract, call
 * the domain, send the envelope.
 */
import { randomUUID } from 'node:crypto';
import Koa, { type Context } from 'koa';
import Router, { type RouterMiddleware } from '@koa/router';
import { loadContract, type Contract, type Operation } from '../../spec/contract.ts';
import { httpDateHeader } from './date-header.ts';
import { DomainError } from '../domain/errors.ts';
import type { Caller, Platform } from '../domain/platform.ts';
import { partnerHandlers, type Handler } from './partner-routes.ts';
import type { CallJournal } from '../call-journal.ts';
import { hashToken } from '../domain/credentials.ts';
import { fingerprint, fingerprintOfCanonical } from '../domain/idempotency.ts';
import { JournalFailedError } from '../store/errors.ts';
import { RequestAbortedError } from './body.ts';
import { send, sendError } from './send.ts';
import type { Readings } from '../domain/readings.ts';

export const API_ROOT = '/api/integrations/v1';
/** The staging control plane (spec/control-openapi.yaml). */
// Stryker disable next-line StringLiteral: the staff control plane's mount point, not the partner API (the in-process target reads this same constant)
export const CONTROL_ROOT = '/_control/v1';

export interface ContractViolation {
  operation: string;
  method: string;
  url: string;
  status: number;
  problems: string[];
}

export interface AppOptions {
  platform: Platform;
  contract?: Contract;
  /** Mounted beside the partner API (the staff control plane). */
  extraRouters?: Router[];
  /** Called when a response does not conform to spec/openapi.yaml (tests fail on it). */
  onContractViolation?: (v: ContractViolation) => void;
  /** Mounted before everything else (fault injection). */
  before?: Koa.Middleware[];
  /** Handlers of further operations (replay, sync, snapshots), keyed by operationId. */
  extraHandlers?: Record<string, Handler>;
  /** Records every partner call (certification grades API usage from it). */
  journal?: CallJournal;
  /** Waits `ms` (real time) while a create is in progress; injected so the domain has no timers. */
  sleep?: (ms: number) => Promise<void>;
  /** Told of every unexpected failure (a 500) with the request id its answer carries; stderr by default. */
  onUnexpectedError?: (report: UnexpectedError) => void;
  /** The other reading of a place the document leaves open (simulator/domain/readings.ts). */
  readings: Readings;
}

/** An answer 500 INTERNAL_ERROR: a bug, logged with the id its envelope and `X-Request-Id` carry. */
export interface UnexpectedError {
  requestId: string;
  method: string;
  path: string;
  error: unknown;
}

/** Where an unexpected failure goes when nobody asked: one line on stderr, with the stack. */
// Stryker disable all: log text on stderr for a simulator bug, not the API's behaviour
export function logUnexpectedError({ requestId, method, path, error }: UnexpectedError): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`error: request ${requestId} (${method} ${path}) failed unexpectedly, answered 500 INTERNAL_ERROR: ${detail}\n`);
}
// Stryker restore all

export function createApp(options: AppOptions): Koa {
  const contract = options.contract ?? loadContract();
  const { platform } = options;
  const app = new Koa();
  // Stryker disable next-line BooleanLiteral: equivalent, nothing reads what it changes (ctx.ip, ctx.protocol, ctx.host from X-Forwarded-*)
  app.proxy = false;
  // Stryker disable next-line BooleanLiteral: silent only keeps Koa's own error logging off stderr
  app.silent = true;
  // Stryker disable next-line all: fault injection's mounting (createSimulator passes an empty list when no fault is set, as in the mutation run)
  for (const m of options.before ?? []) app.use(m);

  const dateHeader = httpDateHeader(() => platform.deps.clock.now());
  // Any error becomes an envelope (a DomainError keeps its status and code); unknown routes under the API root answer one too.
  app.use(async (ctx, next) => {
    ctx.set('Date', dateHeader());
    // Stryker disable next-line BooleanLiteral: inHandler decides only a storage failure's answer (below), never reached by a request to a working store
    let inHandler = true;
    const handle = async () => {
      await next();
      // Stryker disable next-line BooleanLiteral: as inHandler above
      inHandler = false;
      // A response reports only what is already durable (a no-op in memory).
      await platform.store.flush();
    };
    try {
      // A store several processes share runs the request in a section: caught up on what the others wrote, and the only
      // writer meanwhile (issue 39; store.ts). The memory and file stores have no sections: the request runs as before.
      // Stryker disable next-line ConditionalExpression,LogicalOperator,ObjectLiteral,BooleanLiteral: only the PostgreSQL store has sections (its tests: simulator/store/pg-*.test.ts)
      await (platform.store.section ? platform.store.section(handle, { waitTurn: true }) : handle());
    } catch (e) {
      // Stryker disable all: the answers to a storage failure (503), a client gone before its body arrived and a simulator bug (500),
      // issue 17/29 infrastructure; partnerRoute answers every DomainError itself, so no request the document describes gets here
      if (e instanceof DomainError) return sendError(ctx, e);
      if (e instanceof JournalFailedError) {
        // Issue 17: the disk refuses writes. A request that wrote (or would have) answers 503 and may retry
        // (its idempotency key replays whatever the store keeps); a read keeps its answer, from memory.
        if (!inHandler && ctx.method === 'GET') return;
        return storageUnavailable(ctx);
      }
      if (e instanceof RequestAbortedError) {
        // The client is gone (or Node already answered 408): nothing to send, nothing to log.
        ctx.respond = false;
        return;
      }
      // Issue 29: a 500 is a bug; it is logged with an id the caller also receives, so a report can name it.
      const requestId = `req_${randomUUID()}`;
      ctx.status = 500;
      ctx.type = 'application/json';
      ctx.set('X-Request-Id', requestId);
      ctx.body = JSON.stringify({ success: false, code: 'INTERNAL_ERROR', message: `The simulator failed unexpectedly; this is a bug (request ${requestId}).`, errors: { request_id: requestId } });
      (options.onUnexpectedError ?? logUnexpectedError)({ requestId, method: ctx.method, path: ctx.path, error: e });
      return;
    }
    // Stryker restore all
    if (ctx.status === 404 && ctx.body === undefined) {
      // §5.6: only the partner API switched off answers a bare 404. Every other unknown path (outside
      // the API root, unknown staff routes) gets the error envelope, not Koa's text/plain (issue 17).
      if (platform.apiEnabled() || !ctx.path.startsWith(API_ROOT)) return sendError(ctx, unknownPath(ctx, platform, options.readings));
      ctx.body = '';
      ctx.status = 404;
    }
  });

  // The document's paths are exact (Conventions: "relative to `{base_url}/api/integrations/v1`"; §4 names
  // each one): another case or a trailing slash is an unknown path, answered as one above (issue 29 item 7).
  const api = new Router({ prefix: API_ROOT, sensitive: true, strict: true });
  const handlers = {
    ...partnerHandlers({ platform, contract, sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))) }),
    ...options.extraHandlers,
  };
  // Stryker disable all: the simulator's own instruments (the call journal certification reads, the contract self-guard of tests)
  const after = [
    ...(options.journal ? [journaled(platform, options.journal)] : []),
    ...(options.onContractViolation ? [guarded(contract, options.onContractViolation)] : []),
  ];
  // Stryker restore all
  for (const op of contract.operations) {
    const handler = handlers[op.id];
    if (!handler) continue;
    const path = op.path.replace(/\{([^}]+)\}/g, ':$1');
    api[op.method](op.id, path, partnerRoute(platform, op, handler, after));
  }
  // The partner API first: it carries the traffic that matters for speed.
  app.use(api.routes());
  // Stryker disable next-line ArrayDeclaration: the staff plane's mounting (createSimulator always passes its routers)
  for (const router of options.extraRouters ?? []) app.use(router.routes());
  return app;
}

/**
 * The refusal of a path §4 does not name: 404 NOT_FOUND before
 * authentication (spec x-assumptions unknown-routes); under the
 * unknown-path-authenticates-first reading a partner API path is
 * authenticated first (§4, §5.1: no endpoint is unauthenticated), so a
 * missing or invalid key is 401 UNAUTHENTICATED.
 */
function unknownPath(ctx: Context, platform: Platform, readings: Readings): DomainError {
  // Stryker disable next-line all: acts only under the unknown-path-authenticates-first reading (off in the mutation run; conformance/readings.test.ts runs the catalogue under it)
  if (readings.has('unknown-path-authenticates-first') && ctx.path.startsWith(API_ROOT)) {
    try {
      platform.authenticate(ctx.get('authorization') || undefined);
    } catch (e) {
      if (e instanceof DomainError) return e;
      throw e;
    }
  }
  return new DomainError('NOT_FOUND');
}

/**
 * 503 in the error envelope while the journal cannot be written (the API
 * document lists no code for it: this is the simulator's own infrastructure
 * answer, like a gateway's). Retry-After: the journal retries every second.
 */
// Stryker disable all: a storage failure's answer (issue 17), the simulator's own infrastructure; the document lists no code for it
function storageUnavailable(ctx: Context): void {
  ctx.status = 503;
  ctx.type = 'application/json';
  ctx.set('Retry-After', '1');
  ctx.body = JSON.stringify({ success: false, code: 'STORAGE_UNAVAILABLE', message: 'The simulator cannot write to its data directory right now; nothing of this request is acknowledged. Retry shortly.', errors: {} });
}
// Stryker restore all

/** What looks at an answer once it is decided (the call journal, the contract check). */
type Observer = (ctx: Context, op: Operation) => void;

/**
 * A partner route as one middleware (one per request, not a chain: the
 * partner API carries the load): §5.6 the API switch, §5 bearer auth with
 * one request charged to the rate-limit window, the handler, and every
 * refusal (auth and rate limit included) sent as this operation's answer.
 */
function partnerRoute(platform: Platform, op: Operation, handler: Handler, observers: Observer[]): RouterMiddleware {
  return async (ctx) => {
    // §5.6: switched off, every route is a bare 404 with an empty body.
    if (!platform.apiEnabled()) {
      ctx.body = '';
      ctx.status = 404;
      return;
    }
    try {
      const caller = platform.authenticate(ctx.get('authorization') || undefined);
      ctx.state.caller = caller;
      try {
        await handler(ctx, caller, op);
      } catch (e) {
        // Stryker disable next-line ConditionalExpression: only a simulator bug, a storage failure or a client gone mid-body throws anything but a DomainError
        if (!(e instanceof DomainError)) throw e;
        sendError(ctx, e);
      }
      ctx.set(caller.rateLimit);
    } catch (e) {
      // Stryker disable next-line all: a DomainError rethrown here gets the same envelope and headers from the outer middleware; anything else is a simulator bug
      if (!(e instanceof DomainError)) throw e;
      sendError(ctx, e);
    }
    for (const observe of observers) observe(ctx, op);
  };
}

// Stryker disable all: the call journal is the simulator's own instrument (certification grades a partner's usage from it), not the API's answer
/** Records the call once answered, attributed to the integration whose key (current or retired) it carried. */
function journaled(platform: Platform, journal: CallJournal): Observer {
  return (ctx, op) => {
    // The authenticated caller is known without hashing again; only a refused key is looked up.
    let current = (ctx.state.caller as Caller | undefined)?.integration.id;
    let retired: number | undefined;
    if (current === undefined) {
      const token = /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'))?.[1];
      if (!token) return;
      const digest = hashToken(token);
      current = platform.store.get('apiKeys', digest)?.integration_id;
      retired = platform.store.get('retiredKeys', digest)?.integration_id;
    }
    const integrationId = current ?? retired;
    if (integrationId === undefined) return;
    // Only answers whose content the journal keeps are parsed back.
    const needsBody = ctx.status >= 400 || op.id === 'listEvents' || op.id === 'listBookings' || op.id.endsWith('Snapshot');
    let body: any;
    try {
      body = needsBody && typeof ctx.body === 'string' && ctx.body !== '' ? JSON.parse(ctx.body) : undefined;
    } catch {
      body = undefined;
    }
    const request = ctx.state.requestBody as unknown;
    const retryAfter = Number(ctx.response.get('Retry-After'));
    journal.record({
      integration_id: integrationId,
      at: platform.deps.clock.now(),
      operation: op.id,
      method: ctx.method,
      path: ctx.path,
      query: { ...ctx.query } as Record<string, string | string[]>,
      idempotency_key: op.id === 'createBooking' ? (ctx.get('idempotency-key') || null) : null,
      body_fingerprint: request === undefined ? null : typeof ctx.state.bodyCanonical === 'string' ? fingerprintOfCanonical(ctx.state.bodyCanonical) : fingerprint(request),
      status: ctx.status,
      code: typeof body?.code === 'string' ? body.code : null,
      credential: current !== undefined ? 'current' : 'retired',
      retry_after: Number.isFinite(retryAfter) && ctx.response.get('Retry-After') !== '' ? retryAfter : null,
      ...(op.id === 'listEvents' && body?.cursor ? { cursor: { ...body.cursor, first: body.data[0]?.sequence ?? null, last: body.data.at(-1)?.sequence ?? null } } : {}),
      ...(op.id.endsWith('Snapshot') && body?.data ? { watermark: body.data.sequence } : {}),
      ...(op.id === 'listBookings' && Array.isArray(body?.data) ? { max_updated_at: body.data.map((b: { updated_at: string }) => b.updated_at).sort().at(-1) ?? null } : {}),
    });
  };
}

// The contract self-guard: the simulator's own instrument (its tests fail on a violation), not the API's answer.
/** Checks every answer against the operation's declared responses. */
function guarded(contract: Contract, report: (v: ContractViolation) => void): Observer {
  return (ctx, op) => {
    const text = typeof ctx.body === 'string' ? ctx.body : '';
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers = Object.fromEntries(Object.entries(ctx.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const problems = contract.checkResponse(op, ctx.status, body, headers);
    if (problems.length > 0) report({ operation: op.id, method: ctx.method, url: ctx.url, status: ctx.status, problems });
  };
}
