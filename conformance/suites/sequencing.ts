/**
 * Sequencing and replay (§2.5, §2.6, §4.6, §6): strictly increasing
 * sequences, latest_sequence, exactly-once paging from any cursor, exact
 * filters, limits and retention.
 */
import fc from 'fast-check';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { loadContract } from '../../spec/contract.ts';
import { makeSupersession } from './supersession-live.ts';
import { allEvents, bookingBody, changeRates, createBooking, horizonStay, knownProperty } from './support.ts';

const suite = 'sequencing';
/** §4.6 after_sequence: the range the contract gives it (spec/openapi.yaml; its largest is x-assumptions safe-integers). */
const AFTER_SEQUENCE = (() => {
  const schema = loadContract().operation('listEvents').parameters.find((p) => p.name === 'after_sequence')!.schema as { minimum: number; maximum: number };
  return { minimum: schema.minimum, maximum: schema.maximum };
})();
/** §6.7, §8: events are retained 30 days. */
const RETENTION_SECONDS = 30 * 24 * 60 * 60;
/** Just inside and just outside: an hour either side (a platform may sweep retention in batches). */
const MARGIN_SECONDS = 60 * 60;
/** §3.3 and §6: the event statuses and types the document names. */
const EVENT_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'dead', 'superseded'];
const EVENT_TYPES = ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed'];

/** Makes some events when the target lets the check: rates changes through the control plane, far-future bookings with writes. */
async function someEvents(ctx: CheckContext, count = 12): Promise<void> {
  const properties = ctx.target.properties.filter((p) => !p.archived).map((p) => p.doorloom_id);
  if (ctx.control?.offers('rates.set') && properties.length > 0) {
    const today = dateAt(ctx.now());
    for (let i = 0; i < count; i++) {
      const from = addDays(today, 20 + (i % 5) * 3);
      await changeRates(ctx, properties[i % properties.length]!, from, addDays(from, i % 3), 5000 + i);
    }
    return;
  }
  if (ctx.target.capabilities.includes('write') && properties.length > 0) {
    for (let i = 0; i < Math.ceil(count / 2); i++) await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1, i * 7)));
  }
  // A property over an empty log holds vacuously: that proves nothing, so the check is not applicable instead.
  const page = await ctx.api.get('/events', { query: { limit: 1 } });
  if (page.status === 200 && page.body?.cursor?.latest_sequence === 0 && Array.isArray(page.body?.data) && page.body.data.length === 0) {
    throw new NotApplicable('the event log is empty and this run may not make events: pass --allow-writes with --property so the check books and judges its own events');
  }
}

export const sequencingChecks = [
  defineCheck({
    id: 'sequencing.strictly-increasing', title: 'Sequences are strictly increasing and never reused; latest_sequence equals /me last_sequence', suite,
    clauses: ['1.R3a', '2.5.R1', '2.5.R2', '2.1.R3', '4.6.R6', '2.6.R1', '9.R1b', '3.3.R1', '6.C1', '2.6.R3'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      // Watch the log grow one change at a time: a sequence, once issued, keeps its event for good.
      const issued = new Map<number, string>();
      const watch = async () => {
        const before = issued.size === 0 ? -1 : Math.max(...issued.keys());
        for (const r of await allEvents(ctx, { include_superseded: true })) {
          const id = issued.get(r.sequence);
          if (id !== undefined && id !== r.event.id) ctx.fail('SequenceReused', `sequence ${r.sequence} now holds event ${r.event.id}, earlier ${id}`, 'a sequence is never reused', '1.R3a');
          issued.set(r.sequence, r.event.id);
        }
        return before;
      };
      if (ctx.control?.offers('rates.set')) {
        const property = knownProperty(ctx)!;
        const from = addDays(dateAt(ctx.now()), 20);
        await watch();
        for (let i = 0; i < 12; i++) {
          const before = issued.size === 0 ? 0 : Math.max(...issued.keys());
          await changeRates(ctx, property, addDays(from, i * 2), addDays(from, i * 2), 5000 + i);
          await watch();
          const after = Math.max(0, ...issued.keys());
          if (after <= before) ctx.fail('NoNewSequence', `latest sequence stayed ${before} after a change`, 'every change recorded under a new, higher sequence', '1.R3a');
        }
      } else await someEvents(ctx);
      const rows = await allEvents(ctx, { include_superseded: true });
      for (let i = 1; i < rows.length; i++) {
        if (rows[i].sequence <= rows[i - 1].sequence) ctx.fail('SequenceNotIncreasing', `sequence ${rows[i].sequence} after ${rows[i - 1].sequence}`, 'strictly increasing, never reused', '1.R3a');
      }
      for (const r of rows) if (r.event.sequence !== r.sequence) ctx.fail('RowSequenceMismatch', `row ${r.sequence} holds event ${r.event.sequence}`, 'the row sequence is its event’s sequence', '2.6.R1');
      // §2.5: each event has its own id (ULID-like: the exact alphabet is not judged, only that it names one event).
      const byId = new Map<string, number>();
      for (const r of rows) {
        const id = r.event.id;
        if (typeof id !== 'string' || id.length === 0) ctx.fail('EventIdMissing', `event ${r.sequence} has id ${JSON.stringify(id)}`, 'id: a ULID-like string', '2.5.R2');
        const other = byId.get(id);
        if (other !== undefined) ctx.fail('EventIdReused', `events ${other} and ${r.sequence} both have id ${id}`, 'each event has its own id', '2.5.R2');
        byId.set(id, r.sequence);
      }
      for (const r of rows) {
        if (r.event.version !== '2026-09') ctx.fail('WrongEventVersion', `event ${r.sequence} has version ${r.event.version}`, 'version 2026-09 on every event envelope', '9.R1b');
        if (!EVENT_STATUSES.includes(r.status)) ctx.fail('UnknownEventStatus', `event ${r.sequence} has status ${r.status}`, EVENT_STATUSES.join(', '), '3.3.R1');
        if (!EVENT_TYPES.includes(r.event.type)) ctx.fail('UnknownEventType', `event ${r.sequence} has type ${r.event.type}`, EVENT_TYPES.join(', '), '6.C1');
        // Rows that were never accepted (pending, failed, dead, superseded; delivering is in flight) carry no delivered_at.
        if (r.status !== 'delivered' && r.status !== 'delivering' && r.delivered_at !== null) ctx.fail('DeliveredAtSet', `event ${r.sequence} is ${r.status} with delivered_at ${r.delivered_at}`, 'delivered_at null if the event was never accepted', '2.6.R3');
      }
      const me = await ctx.api.get('/me');
      const page = await ctx.api.get('/events', { query: { limit: 1 } });
      const last = rows.at(-1)?.sequence ?? 0;
      if (me.body.data.webhook.last_sequence !== page.body.cursor.latest_sequence || (rows.length > 0 && page.body.cursor.latest_sequence !== last)) {
        ctx.fail('LatestSequenceMismatch', `/me last_sequence ${me.body.data.webhook.last_sequence}, cursor latest_sequence ${page.body.cursor.latest_sequence}, newest row ${last}`, 'all three equal', '4.6.R6');
      }
    },
  }),
  defineCheck({
    id: 'sequencing.paging-exactly-once', title: 'Default replay is every event but the superseded ones; paging it from any cursor with any limit visits each exactly once, in order', suite,
    clauses: ['4.6.Q1', '4.6.Q2', '4.6.R3', '4.6.R4', '4.6.R5', '3.3.R2', '4.6.Q5'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      // Without a superseded row the default replay cannot show that it leaves them out: make one where a
      // partner can (§3.3; in-process nothing is delivered between the changes, so they supersede on their own). Its receiver stays up
      // for the events made next, so they are delivered rather than left failing.
      if (ctx.target.kind === 'live' && !(await allEvents(ctx, { include_superseded: true })).some((r) => r.status === 'superseded')) {
        await makeSupersession(ctx).catch((e) => {
          if (!(e instanceof NotApplicable)) throw e;
        });
      }
      await someEvents(ctx, 20);
      const defaults = await allEvents(ctx);
      const every = await allEvents(ctx, { include_superseded: true });
      if (defaults.length === 0) throw new NotApplicable('the event log is empty and this run may not make events (--allow-writes)');
      const leaked = defaults.filter((r) => r.status === 'superseded');
      if (leaked.length > 0) ctx.fail('SupersededInReplay', `superseded ${leaked.map((r) => r.sequence).join(',')} in default replay`, 'omitted unless include_superseded', '3.3.R2');
      // Default replay = include_superseded minus the superseded rows. Read later, `every` may hold newer events and
      // events superseded since; neither is missing from the earlier default read.
      const shown = new Set(defaults.map((r) => r.sequence));
      const newest = defaults.at(-1)!.sequence;
      const missing = every.filter((r) => r.status !== 'superseded' && r.sequence <= newest && !shown.has(r.sequence));
      const unknown = defaults.filter((r) => !every.some((e) => e.sequence === r.sequence));
      if (missing.length > 0 || unknown.length > 0) {
        ctx.fail('ReplayNotAllButSuperseded', `${missing.length > 0 ? `missing from default replay: ${missing.map((r) => `${r.sequence} (${r.status})`).join(',')}` : ''}${unknown.length > 0 ? ` not in include_superseded: ${unknown.map((r) => r.sequence).join(',')}` : ''}`.trim(), 'default replay is include_superseded without the superseded rows', '4.6.Q5');
      }
      const all = defaults.map((r) => r.sequence);
      await ctx.forAll(fc.tuple(fc.nat({ max: Math.max(0, all.length) }), fc.integer({ min: 1, max: 7 })), async ([skip, limit]) => {
        const after = skip === 0 ? 0 : all[skip - 1]!;
        const seen: number[] = [];
        let cursor = after;
        for (let guard = 0; guard < 10_000; guard++) {
          const res = await ctx.api.get('/events', { query: { after_sequence: cursor, limit } });
          expectStatus(ctx, res, 200, null, '4.6.R1', 'a replay page');
          if (res.body.cursor.after_sequence !== cursor) ctx.fail('CursorEchoWrong', `after_sequence ${res.body.cursor.after_sequence}`, `the echo ${cursor}`, '4.6.R3');
          if (res.body.data.length > limit) ctx.fail('PageTooLong', `${res.body.data.length} rows`, `at most limit = ${limit}`, '4.6.Q2');
          const superseded = res.body.data.find((r: any) => r.status === 'superseded');
          if (superseded) ctx.fail('SupersededInReplay', `superseded ${superseded.sequence} on a default replay page`, 'omitted unless include_superseded', '3.3.R2');
          seen.push(...res.body.data.map((r: any) => r.sequence));
          cursor = res.body.cursor.next_after_sequence;
          if (!res.body.cursor.has_more) break;
        }
        const expected = all.filter((s) => s > after);
        if (JSON.stringify(seen) !== JSON.stringify(expected)) {
          ctx.fail('PagingNotExactlyOnce', `visited ${seen.join(',')}`, `every event after ${after} exactly once, in order: ${expected.join(',')}`, '4.6.R4');
        }
      });
    },
  }),
  defineCheck({
    id: 'sequencing.filters-exact', title: 'types[] and property_id return exactly the matching events', suite,
    clauses: ['4.6.Q3', '4.6.Q4'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      await someEvents(ctx);
      const all = await allEvents(ctx);
      const property = knownProperty(ctx) ?? all[0]?.event.property.doorloom_id;
      const cases: [Record<string, string | number | string[]>, (r: any) => boolean, string][] = [
        [{ 'types[]': ['rates.changed'] }, (r) => r.event.type === 'rates.changed', '4.6.Q4'],
        [{ 'types[]': ['booking.changed', 'availability.changed'] }, (r) => ['booking.changed', 'availability.changed'].includes(r.event.type), '4.6.Q4'],
      ];
      if (property !== undefined) cases.push([{ property_id: property }, (r) => r.event.property.doorloom_id === property, '4.6.Q3']);
      for (const [query, match, clause] of cases) {
        const got = (await allEvents(ctx, query)).map((r) => r.sequence);
        const want = all.filter(match).map((r) => r.sequence);
        if (JSON.stringify(got) !== JSON.stringify(want)) ctx.fail('FilterNotExact', `${JSON.stringify(query)} gave ${got.join(',')}`, `exactly ${want.join(',')}`, clause);
      }
    },
  }),
  defineCheck({
    id: 'sequencing.replay-limits', title: 'limit 1 and 200 are accepted and honoured, 0 and 201 refused, omitted is 100; after_sequence omitted is 0 and include_superseded off; retention_days is 30', suite,
    clauses: ['4.6.Q1', '4.6.Q2', '4.6.Q5', '8.L2', '4.6.R7', '4.6.R8', '8.L3', '6.R7'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      for (const limit of [0, 201]) {
        const res = await ctx.api.get('/events', { query: { limit } });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '8.L2', `GET /events?limit=${limit}`);
        if (!res.body.errors?.limit) ctx.fail('WrongErrorField', JSON.stringify(res.body.errors), 'errors keyed by the field: limit', '4.6.R8');
      }
      // More events after a cursor than the default page holds (§4.6: default 100), where the platform offers rates changes:
      // two changes of one night first (the older is superseded while undelivered, §3.3), then 101 nights one by one.
      let after = 0;
      const property = knownProperty(ctx);
      if (ctx.control?.offers('rates.set') && property !== null) {
        after = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
        const start = addDays(dateAt(ctx.now()), 20);
        await changeRates(ctx, property, start, start, 4100);
        for (let i = 0; i <= 101; i++) await changeRates(ctx, property, addDays(start, i), addDays(start, i), 4101 + i);
      } else await someEvents(ctx, 2);
      for (const [limit, clause] of [[undefined, '4.6.Q2'], [1, '8.L2'], [200, '8.L2']] as const) {
        const what = `GET /events?after_sequence=${after}${limit === undefined ? ' (no limit, no include_superseded)' : `&limit=${limit}`}`;
        const n = limit ?? 100;
        // Events recorded while the check reads (a live platform keeps working) may extend a short page or supersede
        // a row: the page is read again, against a fresh walk, while the log moves.
        for (let attempt = 0; ; attempt++) {
          const latest = (await ctx.api.get('/events', { query: { after_sequence: after, limit: 1 } })).body?.cursor?.latest_sequence;
          // The explicit reading of every default: include_superseded false, walked in pages of 200.
          const rows = (await allEvents(ctx, { include_superseded: false }, after)).map((r) => r.sequence as number);
          const res = await ctx.api.get('/events', { query: limit === undefined ? { after_sequence: after } : { after_sequence: after, limit } });
          expectStatus(ctx, res, 200, null, clause, what);
          const got = res.body.data.map((r: any) => r.sequence as number);
          const want = rows.slice(0, n);
          if (JSON.stringify(got) === JSON.stringify(want)) break;
          if (attempt < 2 && res.body.cursor?.latest_sequence !== latest) continue;
          const superseded = res.body.data.filter((r: any) => r.status === 'superseded').map((r: any) => r.sequence);
          ctx.fail(limit === undefined ? 'WrongDefaultPage' : 'LimitNotHonoured', `${what}: ${got.length} rows (${got.slice(0, 3).join(',')}…${got.slice(-2).join(',')})${superseded.length > 0 ? `, superseded ${superseded.join(',')}` : ''}`,
            `the first min(${n}, ${rows.length}) events after ${after} without the superseded ones (${want.slice(0, 3).join(',')}…${want.slice(-2).join(',')})`, superseded.length > 0 ? '4.6.Q5' : clause);
        }
      }
      // A request with no parameter at all reads from the start of retained events (after_sequence 0).
      for (let attempt = 0; ; attempt++) {
        const explicit = await ctx.api.get('/events', { query: { after_sequence: 0, limit: 100, include_superseded: false } });
        const bare = await ctx.api.get('/events');
        expectStatus(ctx, bare, 200, null, '4.6.Q1', 'GET /events without parameters');
        // Sequences only: a live platform may deliver a row between the two reads.
        const rowsOf = (r: typeof bare) => JSON.stringify(r.body.data.map((x: any) => x.sequence));
        const a = rowsOf(explicit);
        const b = rowsOf(bare);
        if (a === b && bare.body.cursor?.after_sequence === 0) break;
        if (attempt < 2 && explicit.body.cursor?.latest_sequence !== bare.body.cursor?.latest_sequence) continue;
        ctx.fail('WrongDefaultCursor', `GET /events: cursor.after_sequence ${bare.body.cursor?.after_sequence}, rows ${b.slice(0, 80)}`, `after_sequence 0, the same rows as after_sequence=0&limit=100&include_superseded=false (${a.slice(0, 80)})`, '4.6.Q1');
      }
      const ok = await ctx.api.get('/events', { query: { limit: 200 } });
      if (ok.body.cursor.retention_days !== 30) ctx.fail('WrongRetention', String(ok.body.cursor.retention_days), 'retention_days 30', '4.6.R7');
    },
  }),
  defineCheck({
    id: 'sequencing.after-sequence-echoed-exactly', title: 'GET /events echoes after_sequence exactly: 0 when omitted, and every cursor the contract allows (0, the latest, past it, its largest: spec x-assumptions safe-integers); past the latest an empty page whose next_after_sequence is the cursor (spec x-assumptions sequence-start); one outside the range is 422', suite,
    clauses: ['4.6.R3', '4.6.R4', '4.6.R5', '4.6.Q1', '4.6.R8', '7.C1'], level: 'normative', needs: ['read'],
    async run(ctx) {
      // §6.8: a partner pages from its stored cursor, so the echo is the cursor it sent, whatever its value (§4.6 R3).
      const { minimum, maximum } = AFTER_SEQUENCE;
      const latest = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence;
      if (!Number.isSafeInteger(latest)) throw new NotApplicable(`GET /events?limit=1 gave no cursor.latest_sequence (${JSON.stringify(latest)}) to place cursors against`);
      const cursors: [number | undefined, string][] = [[undefined, 'omitted (default 0, §4.6)'], [minimum, 'the lowest the contract allows'], [latest, 'the latest sequence'], [latest + 1, 'one past the latest'], [maximum, 'the largest the contract allows (spec x-assumptions safe-integers)']];
      for (const [sent, which] of cursors) {
        const what = `GET /events${sent === undefined ? '' : `?after_sequence=${sent}`} (${which})`;
        const res = await ctx.api.get('/events', { query: sent === undefined ? {} : { after_sequence: sent } });
        expectStatus(ctx, res, 200, null, sent === undefined ? '4.6.Q1' : '4.6.R3', what);
        const cursor = res.body.cursor ?? {};
        const want = sent ?? 0;
        if (cursor.after_sequence !== want) ctx.fail('CursorNotEchoed', `${what}: cursor.after_sequence ${JSON.stringify(cursor.after_sequence)}`, `${want}, the after_sequence ${sent === undefined ? 'default' : 'sent'}, echoed exactly`, sent === undefined ? '4.6.Q1' : '4.6.R3');
        if (!(cursor.next_after_sequence >= want)) ctx.fail('CursorWentBack', `${what}: cursor.next_after_sequence ${JSON.stringify(cursor.next_after_sequence)}`, `at least ${want}: the next after_sequence never goes back before the one sent`, '4.6.R4');
        // Past the newest event (read again: a live platform keeps recording) the page is empty and the cursor stays (x-assumption sequence-start).
        if (typeof cursor.latest_sequence === 'number' && want >= cursor.latest_sequence) {
          if (!Array.isArray(res.body.data) || res.body.data.length !== 0) ctx.fail('RowsPastLatest', `${what}: ${res.body.data?.length} rows with latest_sequence ${cursor.latest_sequence}`, 'no row: no event has a sequence above the newest', '4.6.R3');
          if (cursor.next_after_sequence !== want || cursor.has_more !== false) ctx.fail('CursorNotEchoed', `${what}: next_after_sequence ${JSON.stringify(cursor.next_after_sequence)}, has_more ${JSON.stringify(cursor.has_more)}`, `next_after_sequence ${want} (the cursor sent, spec x-assumptions sequence-start) and has_more false`, '4.6.R4');
        }
      }
      // The other side of each end: one below the lowest and one above the largest are refused, naming the parameter.
      for (const bad of [minimum - 1, maximum + 1]) {
        // 2^53 is a number exactly (the next integer above it is not): sent as its digits.
        const res = await ctx.api.get('/events', { query: { after_sequence: String(bad) } });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '4.6.R8', `GET /events?after_sequence=${bad} (outside the contract's ${minimum} to ${maximum})`);
        if (!res.body.errors?.after_sequence) ctx.fail('WrongErrorField', JSON.stringify(res.body.errors), 'errors keyed by the field: after_sequence', '7.C1');
      }
    },
  }),
  defineCheck({
    id: 'sequencing.retention-30-days', title: 'Events are retained 30 days: replayable just inside, gone just outside', suite,
    clauses: ['6.R7', '8.L3'], level: 'normative', needs: ['read', control('rates.set'), control('clock.advance')],
    async run(ctx) {
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 40);
      const before = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      // Three events, on three nights (none covers another): a platform that lets only some of them go is caught too.
      for (let night = 0; night < 3; night++) await changeRates(ctx, property, addDays(from, 2 * night), addDays(from, 2 * night), 1111 + night);
      const old = (await allEvents(ctx, { include_superseded: true }, before)).map((r) => r.sequence as number);
      if (old.length === 0) throw new NotApplicable(`a rates change on property ${property} recorded no event (is the integration subscribed to rates.changed?)`);
      // §6.7, §8: "Events are retained 30 days", tried an hour either side of the 30 days.
      await ctx.control!.advanceClock(RETENTION_SECONDS - MARGIN_SECONDS);
      const inside = new Set((await allEvents(ctx, { include_superseded: true }, before)).map((r) => r.sequence as number));
      const lost = old.filter((s) => !inside.has(s));
      if (lost.length > 0) ctx.fail('RetainedTooShort', `events ${lost.join(',')} no longer replayed 29 days 23 hours after they were recorded`, 'events are retained 30 days', '6.R7');
      await changeRates(ctx, property, addDays(from, 7), addDays(from, 7), 2222);
      await ctx.control!.advanceClock(2 * MARGIN_SECONDS);
      const rows = await allEvents(ctx, { include_superseded: true }, before);
      const stale = rows.filter((r) => old.includes(r.sequence));
      if (stale.length > 0) ctx.fail('RetentionExceeded', `events ${stale.map((r) => r.sequence).join(',')} still replayed 30 days 1 hour after they were recorded`, 'retained 30 days; past retention replay is unavailable', '6.R7');
      if (rows.every((r) => old.includes(r.sequence))) ctx.fail('RecentEventMissing', 'no event of the rates change made two hours before', 'an event two hours old replayed', '6.R7');
      // Read again at once: what is retained does not change between two reads a moment apart.
      const again = (await allEvents(ctx, { include_superseded: true }, before)).map((r) => r.sequence as number);
      if (again.join() !== rows.map((r) => r.sequence).join()) ctx.fail('RetentionUnstable', `replay after ${before} held ${rows.map((r) => r.sequence).join(',') || 'nothing'}, then at once ${again.join(',') || 'nothing'}`, 'events retained 30 days: the same events on a second read', '6.R7');
      // A change after the old events left retention is recorded and replayed like any other (over their nights again).
      const latest = again.at(-1) ?? before;
      await changeRates(ctx, property, from, addDays(from, 4), 3333);
      const fresh = await allEvents(ctx, { include_superseded: true }, latest);
      if (fresh.length === 0) ctx.fail('RecentEventMissing', `no event after ${latest} for a rates change made after the old events left retention`, 'a new change recorded and replayed', '6.R7');
      // §6.7 again, a second time round: the events still retained now leave retention 30 days after they were recorded
      // too (a sweep that remembers only its first pass keeps everything recorded after it).
      const second = [...rows, ...fresh].map((r) => r.sequence as number);
      await ctx.control!.advanceClock(RETENTION_SECONDS + MARGIN_SECONDS);
      const kept = (await allEvents(ctx, { include_superseded: true }, before)).filter((r) => second.includes(r.sequence));
      if (kept.length > 0) ctx.fail('RetentionExceeded', `events ${kept.map((r) => r.sequence).join(',')} still replayed 30 days 1 hour after the newest of them was recorded`, 'retained 30 days; past retention replay is unavailable', '6.R7');
    },
  }),
];
