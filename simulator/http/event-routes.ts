/** Handlers of replay, sync, snapshots and the property list, keyed by operationId. */
import type { Context } from 'koa';
import type { Contract } from '../../spec/contract.ts';
import { DomainError } from '../domain/errors.ts';
import type { EventApi } from '../domain/event-api.ts';
import type { ReplayQuery } from '../domain/replay.ts';
import type { SnapshotKind } from '../domain/snapshots.ts';
import type { SyncRequest } from '../domain/sync.ts';
import type { SyncWorker } from '../sync-worker.ts';
import { readJson } from './body.ts';
import { send } from './send.ts';
import { parameters, type Handler } from './partner-routes.ts';
import { DEFAULT_READINGS, type Readings } from '../domain/readings.ts';

export function eventHandlers({ events, worker, contract, readings = DEFAULT_READINGS }: { events: EventApi; worker: SyncWorker; contract: Contract; readings?: Readings }): Record<string, Handler> {
  const snapshotHandler = (kind: SnapshotKind): Handler => (ctx, caller, op) => {
    // §4.8, §7 list 404 and 422 in no order: under the other reading the property is looked up before the query is validated.
    // Stryker disable next-line all: acts only under the snapshot-property-before-query reading (off in the mutation run; conformance/readings.test.ts runs the catalogue under it)
    if (readings.has('snapshot-property-before-query')) events.coveredProperty(caller, String(ctx.params.property));
    const { path, query } = parameters(contract, op, ctx);
    send(ctx, events.snapshot(caller, kind, String(path.property), String(query.from), String(query.to)));
  };
  return {
    listEvents: (ctx, caller, op) => {
      let query: Record<string, unknown>;
      try {
        ({ query } = parameters(contract, op, ctx));
      } catch (e) {
        throw e instanceof DomainError ? respellTypesKeys(e, readings) : e;
      }
      sendText(ctx, 200, events.listEvents(caller, query as unknown as ReplayQuery));
    },

    requestSync: async (ctx, caller, op) => {
      let body: unknown;
      try {
        // §4.7: an empty body means everything.
        body = await readJson(ctx, {});
        const errors = contract.checkBody(op, body);
        const more = events.syncBodyErrors(body);
        if (errors || more) throw new DomainError('VALIDATION_FAILED', { ...errors, ...more });
      } catch (e) {
        // 8.L11 note: whether a refusal counts toward the daily cap is the domain's to say (a reading).
        // Stryker disable next-line all: refusedSync acts only under the sync-422-counts-toward-cap reading (off in the mutation run; conformance/readings.test.ts runs the catalogue under it)
        if (e instanceof DomainError && e.status === 422) events.refusedSync(caller);
        throw e;
      }
      send(ctx, events.requestSync(caller, body as SyncRequest));
      worker.kick();
    },

    getAvailabilitySnapshot: snapshotHandler('availability'),
    getRatesSnapshot: snapshotHandler('rates'),
    getRestrictionsSnapshot: snapshotHandler('restrictions'),

    listProperties: (ctx, caller, op) => {
      const { query } = parameters(contract, op, ctx);
      send(ctx, events.listProperties(caller, query.page as number, query.per_page as number));
    },
  };
}

/**
 * §7 keys a 422 "by field path" and shows no path syntax. The contract keys
 * a refused types[] item `types[].N`; the other readings spell it `types.N`
 * (types-error-key-dotted) or name the parameter alone (types-error-key-bare).
 */
// Stryker disable all: acts only under the types-error-key readings (off in the mutation run; conformance/readings.test.ts runs the catalogue under each)
function respellTypesKeys(error: DomainError, readings: Readings): DomainError {
  const dotted = readings.has('types-error-key-dotted');
  if (!dotted && !readings.has('types-error-key-bare')) return error;
  const errors: Record<string, unknown[]> = {};
  for (const [key, messages] of Object.entries(error.errors)) {
    const item = /^types\[\](?:\.(\d+))?$/.exec(key);
    const spelled = item === null ? key : dotted && item[1] !== undefined ? `types.${item[1]}` : 'types';
    errors[spelled] = [...(errors[spelled] ?? []), ...(messages as unknown[])];
  }
  return new DomainError(error.code, errors, error.message, error.headers);
}
// Stryker restore all

function sendText(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = text;
}
