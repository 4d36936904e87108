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
import { send } from './app.ts';
import { parameters, type Handler } from './partner-routes.ts';

export function eventHandlers({ events, worker, contract }: { events: EventApi; worker: SyncWorker; contract: Contract }): Record<string, Handler> {
  const snapshotHandler = (kind: SnapshotKind): Handler => (ctx, caller, op) => {
    const { path, query } = parameters(contract, op, ctx);
    send(ctx, events.snapshot(caller, kind, String(path.property), String(query.from), String(query.to)));
  };
  return {
    listEvents: (ctx, caller, op) => {
      const { query } = parameters(contract, op, ctx);
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

function sendText(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = text;
}
