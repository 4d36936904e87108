/** Full re-sync (§4.7, §8): normalisation, charging order, limits, monthly chunking and delivery order. */
import { endOfMonth, addDays } from '../../simulator/domain/calendar.ts';
import { defineCheck, expectStatus } from '../check.ts';
import { advance, allEvents, knownProperty } from './support.ts';

const suite = 'sync';

export const syncChecks = [
  defineCheck({
    id: 'sync.normalised-202', title: 'POST /sync answers 202 with the queued properties, horizon and types normalised to .changed names', suite,
    clauses: ['4.7.R1', '4.7.R2', '4.7.Q3a', '4.7.Q1'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const property = knownProperty(ctx)!;
      const res = await ctx.api.post('/sync', { body: { property_ids: [property], types: ['rates', 'availability.changed'] } });
      expectStatus(ctx, res, 202, null, '4.7.R1', 'a valid sync');
      const me = await ctx.api.get('/me');
      const want = { queued_properties: 1, horizon_days: me.body.data.horizon_days, types: ['availability.changed', 'rates.changed'] };
      if (JSON.stringify(res.body.data) !== JSON.stringify(want)) ctx.fail('WrongSyncAnswer', JSON.stringify(res.body.data), JSON.stringify(want), '4.7.R2');
    },
  }),
  defineCheck({
    id: 'sync.validation-before-charge', title: 'A refused sync (422) does not consume the 24-hour window', suite,
    clauses: ['4.7.R5', '4.7.Q2a', '7.E11'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const bad = await ctx.api.post('/sync', { body: { property_ids: [2_000_000_000] } });
      expectStatus(ctx, bad, 422, 'PROPERTY_NOT_MAPPED', '4.7.Q2a', 'a sync naming an uncovered property');
      const invalid = await ctx.api.post('/sync', { body: { types: ['bookings'] } });
      expectStatus(ctx, invalid, 422, 'VALIDATION_FAILED', '4.7.R6', 'a sync with an unknown type');
      expectStatus(ctx, await ctx.api.post('/sync', { body: { types: ['property'] } }), 202, null, '4.7.R5', 'a valid sync after refusals');
    },
  }),
  defineCheck({
    id: 'sync.interval-and-cap', title: 'Within 24 hours SYNC_TOO_SOON with errors.retry_after; past six calls a day RATE_LIMITED', suite,
    clauses: ['8.L10', '8.L11', '7.E15', '7.E16'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      expectStatus(ctx, await ctx.api.post('/sync', { body: { types: ['property'] } }), 202, null, '4.7.R1', 'the first sync');
      const soon = await ctx.api.post('/sync', { body: { types: ['property'] } });
      expectStatus(ctx, soon, 429, 'SYNC_TOO_SOON', '8.L10', 'a second sync at once');
      const retry = soon.body.errors?.retry_after;
      if (!Number.isInteger(retry) || retry <= 0 || retry > 86_400) ctx.fail('BadRetryAfter', String(retry), 'errors.retry_after in seconds, at most 24 hours', '7.E15');
      for (let i = 0; i < 4; i++) await ctx.api.post('/sync', { body: { types: ['property'] } });
      expectStatus(ctx, await ctx.api.post('/sync', { body: { types: ['property'] } }), 429, 'RATE_LIMITED', '8.L11', 'the seventh sync call of the day');
    },
  }),
  defineCheck({
    id: 'sync.monthly-chunks', title: 'Sync events come one per type, property and calendar month over the horizon, in sequence order', suite,
    clauses: ['4.7.R3', '4.7.R4', '6.R5a', '8.L15'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const property = knownProperty(ctx)!;
      const before = (await ctx.api.get('/events', { query: { limit: 1 } })).body.cursor.latest_sequence as number;
      expectStatus(ctx, await ctx.api.post('/sync', { body: { property_ids: [property], types: ['restrictions'] } }), 202, null, '4.7.R1', 'a sync');
      await advance(ctx, 0);
      let rows: any[] = [];
      for (let i = 0; i < 50 && rows.length === 0; i++) {
        rows = await allEvents(ctx, { 'types[]': ['restrictions.changed'], property_id: property, include_superseded: true }, before);
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      const me = await ctx.api.get('/me');
      const horizon = me.body.data.horizon_days as number;
      const windows = rows.map((r) => r.event.window);
      for (const w of windows) if (w.to > endOfMonth(w.from)) ctx.fail('ChunkStraddlesMonths', `window ${w.from}..${w.to}`, 'one event per calendar month', '4.7.R4');
      for (let i = 1; i < windows.length; i++) {
        if (windows[i].from !== addDays(windows[i - 1].to, 1)) ctx.fail('ChunksNotContiguous', `${windows[i - 1].to} then ${windows[i].from}`, 'consecutive months covering the horizon', '4.7.R4');
      }
      const span = windows.length === 0 ? 0 : (Date.parse(windows.at(-1)!.to) - Date.parse(windows[0]!.from)) / 86_400_000 + 1;
      if (span !== horizon) ctx.fail('HorizonNotCovered', `${span} days in ${windows.length} events`, `the ${horizon}-day horizon`, '8.L15');
    },
  }),
];
