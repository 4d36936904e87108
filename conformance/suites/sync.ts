/**
 * Full re-sync (§4.7, §8): normalisation, charging order, limits, monthly
 * chunking and delivery order. A live partner gets one accepted sync a day, so
 * these checks share the run's one charged sync (conformance/sync-allowance.ts):
 * a window spent before the run makes the checks that need its 202 not
 * applicable (naming when it reopens), never failed.
 */
import { endOfMonth, addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import type { Response } from '../client.ts';
import { ALLOWANCE_TYPES_NORMALISED, INVALID_TYPES, LOWEST_PROPERTY_ID, UNKNOWN_TYPE_INDEX, SYNC_EVERYTHING_MAX_PROPERTIES, SYNC_INTERVAL_SECONDS, SYNC_PROPERTY_CAP, type AllowanceAnswer, type SyncBodyMode } from '../sync-allowance.ts';
import { advance, allEvents, bookingBody, createBooking, describe, horizonStay } from './support.ts';
import { control } from '../control.ts';
import { deliveryBreach, drained, ensureDelivered, notDelivered, partnerReceiver } from './receiver.ts';
import { EVENT_TYPES } from '../../spec/document-tables.ts';
import { NotObserved, observed } from '../not-observed.ts';

/** The run's sync answer, or NotApplicable when the allowance was spent before this run (a 202-needing check). */
async function acceptedSync(ctx: CheckContext, prefer?: SyncBodyMode): Promise<AllowanceAnswer> {
  const answer = await ctx.syncAllowance.take(ctx, prefer);
  if (answer.state === 'spent-before') throw new NotApplicable(`the 24-hour full-sync window was spent before this run (429 SYNC_TOO_SOON, errors.retry_after ${answer.sync.body.errors.retry_after} s): the sync checks that need a 202 can run again after ${answer.reopensAt} (§8 L10)`);
  if (answer.state === 'capped') throw new NotApplicable(`the day's six sync calls were spent before this run (429 RATE_LIMITED${answer.reopensAt ? `, Retry-After until ${answer.reopensAt}` : ''}): the sync checks that need a 202 can run again ${answer.reopensAt ? `after ${answer.reopensAt}` : 'tomorrow'} (§8 L11)`);
  if (answer.state === 'spent-by-refusals') throw new NotApplicable(`this run's 422 refusals consumed the full-sync window (see sync.validation-before-charge), so no sync was accepted; it reopens after ${answer.reopensAt}`);
  return answer;
}

const suite = 'sync';

/** §8 L11: six calls a day, so the seventh valid call of a day is refused at the latest. */
const DAILY_CAP = 6;

/** Just inside and just outside the 24-hour interval (§8 L10): a minute either side. */
const MARGIN_SECONDS = 60;

/**
 * Real time a run gives a sync's events to reach the event log where the platform's clock cannot be stepped (§4.7:
 * "events arrive later"): far above what a platform that runs syncs in the background needs for the one property (or
 * the at most five) a run syncs. A sync still short then is not observed, never judged (issue 38).
 */
const SYNC_EVENTS_REAL_SECONDS = 300;

export const syncChecks = [
  // First of the suite: live, the run's one sync is spent while its receiver listens.
  defineCheck({
    id: 'sync.pushed-to-webhook', title: "Every event of the run's sync reaches the webhook as a new event with a new sequence; all six types are pushed", suite,
    // 4.7.R3: every event of the sync reaches the webhook, and the receiver refuses any delivery out of sequence order.
    clauses: ['1.R3', '1.R4', '4.6.R10', '4.7.R3'], level: 'normative', needs: ['read', 'write', 'sync'],
    async run(ctx) {
      const started = Date.now();
      const { receiver, me } = await partnerReceiver(ctx);
      const wanted = EVENT_TYPES.filter((t) => !(me.webhook?.event_types ?? []).includes(t));
      if (wanted.length > 0) throw new NotApplicable(`the integration is not subscribed to ${wanted.join(', ')} (webhook.event_types ${JSON.stringify(me.webhook?.event_types)}): all six types cannot be pushed to it`);
      // booking.changed (and an availability.changed) from a create, delivered before the sync.
      const created = await createBooking(ctx, bookingBody(ctx, horizonStay(ctx, 1)));
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      await ensureDelivered(ctx, receiver, 'the create\'s events must be delivered before the sync, so that one posted again after it is told apart from a retry');
      // What the receiver accepted and the platform recorded as delivered before the sync: sending one of these
      // again is a redelivery of an old event (a retry of an attempt the platform saw fail is not).
      const took = receiver.received.filter((d) => d.answered === 200 && d.sequence !== null);
      const settled = took.length === 0 ? [] : await allEvents(ctx, { include_superseded: true }, Math.min(...took.map((d) => d.sequence!)) - 1);
      const delivered = new Set(settled.filter((r) => r.status === 'delivered').map((r) => r.sequence as number));
      const accepted = new Map<number, string>(took.filter((d) => delivered.has(d.sequence!)).map((d) => [d.sequence!, eventId(d.body)]));
      const heard = receiver.received.length;
      const answer = await acceptedSync(ctx);
      if (answer.receivedAt < started) throw new NotApplicable(`the run's sync was spent by an earlier check before this check's receiver listened; run sync.pushed-to-webhook first (--check sync.pushed-to-webhook)`);
      expectStatus(ctx, answer.sync, 202, null, '4.7.R1', `the run's sync ${JSON.stringify(answer.body)}`);
      const rows = (await syncRows(ctx, answer, ALLOWANCE_TYPES_NORMALISED)).filter((r) => r.status !== 'superseded');
      if (rows.length === 0) throw new NotApplicable(`no event of the run's sync reached GET /events ${describeSyncWait(ctx)} it (events arrive later, §4.7); nothing to follow to the webhook`);
      const pushed = () => rows.every((r) => receiver.received.some((d) => d.sequence === r.sequence && d.answered === 200));
      const later = () => receiver.received.slice(heard);
      const oldIds = new Set(accepted.values());
      const reposted = () => later().find((d) => d.sequence !== null && (accepted.has(d.sequence) || oldIds.has(eventId(d.body))));
      // §4.6: what a sync re-sends is a new event; an old envelope posted again is not (named before the disorder it makes).
      const repost = () => {
        const old = reposted();
        if (old) ctx.fail('RedeliveryReusedSequence', `after the sync the webhook got ${old.type} sequence ${old.sequence} (id ${eventId(old.body)}) again, accepted before the sync (latest sequence then ${answer.before})`, 'a redelivery is always a new event with a new sequence (and a new id)', '4.6.R10');
      };
      const through = await drained(ctx, receiver, Math.max(...rows.map((r) => r.sequence as number))).catch((e) => {
        repost();
        throw e;
      });
      repost();
      deliveryBreach(ctx, later());
      if (!through || !pushed()) {
        const missing = rows.filter((r) => !receiver.received.some((d) => d.sequence === r.sequence && d.answered === 200));
        await notDelivered(ctx, missing.map((r) => r.sequence), { kind: 'SyncEventNotPushed', received: `${missing.length} of the sync's ${rows.length} events in GET /events never reached the webhook (first: ${missing[0]?.event.type} ${missing[0]?.sequence}, row status ${missing[0]?.status})`, documented: "the sync's events are delivered through the normal webhook path, not only written to the log", clause: '1.R4' });
      }
      const types = new Set(receiver.received.filter((d) => d.answered === 200).map((d) => d.type));
      const never = EVENT_TYPES.filter((t) => !types.has(t));
      if (never.length > 0) ctx.fail('EventTypeNeverPushed', `the webhook got ${[...types].sort().join(', ')}: never ${never.join(', ')}, after a create and a sync of all five types`, 'all six event types are pushed to the webhook', '1.R3');
    },
  }),
  defineCheck({
    id: 'sync.empty-body-means-everything', title: 'A sync with an empty body queues every covered property and all five types, and their events follow', suite,
    // 2.1.R8 too: an empty-body sync is the one normative way to count the covered properties
    // (the property list that names them is not shown, §4.8), by the events it sends.
    clauses: ['4.7.Q1', '4.7.Q3', '2.1.R8'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const answer = await acceptedSync(ctx, 'everything');
      if (answer.mode !== 'everything') throw new NotApplicable(`the run's one sync named a property: the integration covers ${answer.covered} properties, and a live run sends the empty body (which queues every covered property) only for at most ${SYNC_EVERYTHING_MAX_PROPERTIES}; run with an integration covering fewer`);
      expectStatus(ctx, answer.sync, 202, null, '4.7.Q1', 'a sync with an empty body');
      const got = answer.sync.body.data;
      if (!sameSet(got.types, ALLOWANCE_TYPES_NORMALISED)) ctx.fail('NotAllTypes', `types ${JSON.stringify(got.types)} with types omitted`, `omit for all five: ${ALLOWANCE_TYPES_NORMALISED.join(', ')}`, '4.7.Q3');
      const me = (await ctx.api.get('/me')).body.data;
      const subscribed = ALLOWANCE_TYPES_NORMALISED.filter((t) => (me.webhook?.event_types ?? []).includes(t));
      const rows = await syncRows(ctx, answer, subscribed);
      const seen = new Map<number, Set<string>>();
      for (const r of rows) seen.set(r.event.property.doorloom_id, (seen.get(r.event.property.doorloom_id) ?? new Set()).add(r.event.type));
      // When the queued count and covered_properties differ, a property the run knows to be covered
      // without an event says the sync left it out; events for every one of them say the count is wrong.
      const unsynced = ctx.target.properties.map((p) => p.doorloom_id).filter((id) => !seen.has(id));
      if (got.queued_properties !== answer.covered && unsynced.length > 0) {
        ctx.fail('NotEverything', `queued_properties ${got.queued_properties} for an empty body; covered_properties is ${answer.covered}; no event for covered propert${unsynced.length === 1 ? 'y' : 'ies'} ${unsynced.join(', ')}`, 'an empty body means everything: every covered property', '4.7.Q1');
      }
      if (got.queued_properties !== answer.covered || seen.size > answer.covered) {
        ctx.fail('CoveredCountWrong', `covered_properties ${answer.covered}, but an empty-body sync queued ${got.queued_properties} properties and sent events for ${seen.size} (every covered property this run knows among them)`, 'covered_properties is the count of covered properties (an empty body queues every covered property, §4.7)', '2.1.R8');
      }
      if (seen.size < answer.covered) ctx.fail('NotEverything', `events for ${seen.size} of ${answer.covered} covered properties ${describeSyncWait(ctx)} an empty-body sync`, 'an empty body means everything: events for every covered property', '4.7.Q1');
      for (const [property, types] of seen) {
        const missing = subscribed.filter((t) => !types.has(t));
        if (missing.length > 0) ctx.fail('NotAllTypes', `property ${property}: no ${missing.join(', ')} event ${describeSyncWait(ctx)} a sync with types omitted`, 'omit for all five: an event of every type the integration subscribes to', '4.7.Q3');
      }
    },
  }),
  defineCheck({
    id: 'sync.changed-spellings-accepted', title: 'The .changed spellings of the sync types are accepted beside the short ones', suite,
    clauses: ['4.7.Q3a'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const answer = await ctx.syncAllowance.take(ctx);
      const keys = Object.keys(answer.invalid.body?.errors ?? {});
      // The refusal of every spelling the valid sync does not use, then bookings: an entry but the unknown one named refused.
      const refused = keys.filter((k) => /^types\.\d+$/.test(k) && k !== `types.${UNKNOWN_TYPE_INDEX}`);
      if (refused.length > 0) ctx.fail('SpellingRefused', `errors ${JSON.stringify(answer.invalid.body.errors)} for types ${JSON.stringify(INVALID_TYPES)}`, `each short and .changed spelling is accepted; only bookings (types.${UNKNOWN_TYPE_INDEX}) is refused`, '4.7.Q3a');
      if (answer.mode === 'named') {
        // The valid sync mixed both spellings: its 202 accepted them.
        const typesRefused = Object.keys(answer.sync.body?.errors ?? {}).some((k) => k === 'types' || k.startsWith('types.'));
        if (answer.sync.status === 422 && typesRefused) ctx.fail('SpellingRefused', `${describe(answer.sync)} ${JSON.stringify(answer.sync.body.errors)} for types ${JSON.stringify(answer.body?.types)}`, 'the short and the .changed spellings are both accepted', '4.7.Q3a');
        await acceptedSync(ctx);
        if (answer.sync.status !== 202) throw new NotApplicable(`the run's sync answered ${describe(answer.sync)}: no 202 shows its mixed spellings accepted`);
        return;
      }
      // The run's sync had no body: the refusal shows it, if its errors name the entries.
      if (!keys.includes(`types.${UNKNOWN_TYPE_INDEX}`)) throw new NotApplicable(`the run's sync had an empty body, and the refusal of types ${JSON.stringify(INVALID_TYPES)} names ${JSON.stringify(keys)}, not the entry types.${UNKNOWN_TYPE_INDEX}: which spellings were accepted does not show`);
    },
  }),
  defineCheck({
    id: 'sync.normalised-202', title: 'POST /sync answers 202 with the queued properties, horizon and types normalised to .changed names', suite,
    clauses: ['4.7.R1', '4.7.R2'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const answer = await acceptedSync(ctx);
      expectStatus(ctx, answer.sync, 202, null, '4.7.R1', `the run's first valid sync ${JSON.stringify(answer.body)}`);
      const me = (await ctx.api.get('/me')).body.data;
      const got = answer.sync.body.data;
      const want = { queued_properties: answer.property === null ? me.covered_properties : 1, horizon_days: me.horizon_days, types: ALLOWANCE_TYPES_NORMALISED };
      // The document names the normalised spellings, not their order: compared as a set.
      const same = got.queued_properties === want.queued_properties && got.horizon_days === want.horizon_days
        && Array.isArray(got.types) && got.types.length === want.types.length && [...got.types].sort().join() === [...want.types].sort().join();
      if (!same) ctx.fail('WrongSyncAnswer', JSON.stringify(got), `${JSON.stringify(want)} for ${JSON.stringify(answer.body)}`, got.types?.some((t: string) => !t.endsWith('.changed')) ? '4.7.R2' : '4.7.R1');
    },
  }),
  defineCheck({
    id: 'sync.validation-before-charge', title: 'A refused sync (422) does not consume the 24-hour window', suite,
    clauses: ['4.7.R5', '4.7.Q2a', '7.E11', '7.C2e'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const answer = await ctx.syncAllowance.take(ctx);
      // The lowest id the contract allows comes first: refused for coverage with the uncovered one, never as invalid (§4.7 Q2).
      expectStatus(ctx, answer.notMapped, 422, 'PROPERTY_NOT_MAPPED', '4.7.Q2a', `a sync naming property ${LOWEST_PROPERTY_ID} (the lowest id the contract allows) and an uncovered property`);
      expectStatus(ctx, answer.invalid, 422, 'VALIDATION_FAILED', '4.7.R6', 'a sync with an unknown type');
      // §7: /sync refuses with 422 (both codes above), 429 or 401: nothing else, whatever the refusal.
      if (answer.overCap.status !== 422 || !['VALIDATION_FAILED', 'PROPERTY_NOT_MAPPED'].includes(answer.overCap.body?.code)) {
        ctx.fail('ErrorNotMapped', `${describe(answer.overCap)} for a sync naming ${SYNC_PROPERTY_CAP + 1} properties`, '422 VALIDATION_FAILED (or PROPERTY_NOT_MAPPED for the uncovered ids): /sync uses 422, 429 and 401', '7.C2e');
      }
      if (answer.state === 'spent-by-refusals') {
        ctx.fail('RefusalConsumedWindow', `429 SYNC_TOO_SOON (errors.retry_after ${answer.sync.body.errors.retry_after} s) for the valid sync sent right after two 422 refusals: the window opened at or after the refusals`, 'a 422 does not consume the 24-hour window: the next valid sync is accepted', '4.7.R5');
      }
      await acceptedSync(ctx);
      expectStatus(ctx, answer.sync, 202, null, '4.7.R5', 'a valid sync after two 422 refusals');
    },
  }),
  defineCheck({
    id: 'sync.property-cap', title: 'A sync naming more than 500 properties is 422 VALIDATION_FAILED on property_ids and charges nothing; 500 are not refused for their count', suite,
    clauses: ['8.L12', '4.7.Q2', '4.7.R6'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const answer = await ctx.syncAllowance.take(ctx);
      // Exactly the cap: refused, if at all, for the uncovered ids among them (PROPERTY_NOT_MAPPED), never on the count.
      const atCap = answer.atCap;
      if (atCap.status === 422 && atCap.body?.code === 'VALIDATION_FAILED' && Object.keys(atCap.body.errors ?? {}).includes('property_ids')) {
        ctx.fail('CapTooLow', `${describe(atCap)} ${JSON.stringify(atCap.body.errors)} for a sync naming exactly ${SYNC_PROPERTY_CAP} properties`, `up to ${SYNC_PROPERTY_CAP} properties per sync`, '8.L12');
      }
      const res = answer.overCap;
      // Ids outside coverage are refused too: a platform that checks coverage first hides the cap from this integration.
      if (res.status === 422 && res.body?.code === 'PROPERTY_NOT_MAPPED') throw new NotApplicable(`a sync of ${SYNC_PROPERTY_CAP + 1} properties answered 422 PROPERTY_NOT_MAPPED: this platform checks coverage before the count, and the integration covers too few properties to show the cap alone`);
      expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '8.L12', `a sync naming ${SYNC_PROPERTY_CAP + 1} properties`);
      if (!Object.keys(res.body.errors ?? {}).some((field) => field === 'property_ids' || field.startsWith('property_ids.'))) {
        ctx.fail('WrongField', `errors ${JSON.stringify(res.body.errors)}`, 'the refusal names property_ids', '4.7.Q2');
      }
      if (answer.state === 'spent-by-refusals') ctx.fail('RefusalConsumedWindow', `429 SYNC_TOO_SOON for the valid sync sent after the refusals`, 'a 422 does not consume the 24-hour window', '4.7.R5');
    },
  }),
  defineCheck({
    id: 'sync.monthly-chunks', title: 'Sync events come exactly one per type, property and calendar month over the horizon', suite,
    clauses: ['4.7.R4', '6.R5a', '8.L15', '2.5.R2'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const answer = await acceptedSync(ctx);
      expectStatus(ctx, answer.sync, 202, null, '4.7.R1', `the run's sync ${JSON.stringify(answer.body)}`);
      const me = (await ctx.api.get('/me')).body.data;
      const horizon = me.horizon_days as number;
      // Only subscribed types are recorded (§6): judge every synced type the integration receives.
      const types = ALLOWANCE_TYPES_NORMALISED.filter((t) => (me.webhook?.event_types ?? []).includes(t));
      if (types.length === 0) throw new NotApplicable(`the integration subscribes to none of ${ALLOWANCE_TYPES_NORMALISED.join(', ')}, so the run's sync records no event to judge`);
      const rows = await syncRows(ctx, answer, types);
      if (rows.length === 0) throw new NotApplicable(`no event of the run's sync reached GET /events ${describeSyncWait(ctx)} it (events arrive later, §4.7); nothing to judge`);
      // §2.5: a sync records many events at once, each still with its own id.
      const byId = new Map<string, number>();
      for (const r of rows) {
        const other = byId.get(r.event.id);
        if (other !== undefined) {
          ctx.fail('EventIdReused', `sync events ${other} and ${r.sequence} both have id ${r.event.id}`, 'each event has its own id', '2.5.R2');
          break;
        }
        byId.set(r.event.id, r.sequence);
      }
      const byKey = new Map<string, { from: string; to: string }[]>();
      for (const r of rows) {
        const key = `property ${r.event.property.doorloom_id}, ${r.event.type}`;
        byKey.set(key, [...(byKey.get(key) ?? []), r.event.window]);
      }
      for (const [key, windows] of byKey) {
        judgeChunks(ctx, key, windows);
        if (span(windows) !== horizon) ctx.fail('HorizonNotCovered', `${key}: ${span(windows)} days in ${windows.length} events ${describeSyncWait(ctx)} the sync`, `the ${horizon}-day horizon, one event per calendar month`, '8.L15');
      }
    },
  }),
  defineCheck({
    id: 'sync.interval-and-cap', title: 'Within 24 hours SYNC_TOO_SOON with errors.retry_after; past six calls a day RATE_LIMITED with a Retry-After that holds', suite,
    clauses: ['8.L10', '8.L11', '7.E15', '7.E16'], level: 'normative', needs: ['read', 'sync'],
    async run(ctx) {
      const allowance = ctx.syncAllowance;
      const first = await allowance.take(ctx);
      if (first.state === 'other') expectStatus(ctx, first.sync, 202, null, '4.7.R6', "the run's first valid sync (202, or 429 when the window or the cap is spent)");
      // Valid calls inside a spent window, by their number among this run's valid sync calls.
      const refused: [number, Response][] = first.state === 'accepted' ? [] : [[1, first.sync]];
      while (allowance.validCalls <= DAILY_CAP && !refused.some(([, r]) => r.body?.code === 'RATE_LIMITED')) {
        const res = await allowance.call(ctx);
        refused.push([allowance.validCalls, res]);
      }
      // 8.L11 note: whether the allowance's 422 refusals count toward the six is read both ways.
      const refusals = first.refusals;
      for (const [n, res] of refused) judgeRefusal(ctx, n, res, first.state === 'accepted', refusals);
      const capAt = refused.find(([, r]) => r.body?.code === 'RATE_LIMITED')?.[0];
      if (capAt === undefined) ctx.fail('CapNotEnforced', `${allowance.validCalls} valid sync calls in this run, none refused RATE_LIMITED`, 'at most six sync calls a day: the seventh is 429 RATE_LIMITED', '8.L11');
      // In-process the world is fresh: this run's calls are the day's only ones, so the cap falls exactly on the
      // seventh valid call, or on the seventh call counting the run's 422 refusals (the other reading of the note).
      // Live, calls made earlier in the day count too ("refusals included"), so it may come sooner.
      if (ctx.target.kind === 'in-process' && capAt !== DAILY_CAP + 1 && capAt !== DAILY_CAP + 1 - refusals) {
        ctx.fail('CapMiscounted', `RATE_LIMITED on valid sync call ${capAt} of the day, after ${refusals} refusals (422)`, `six calls a day: the seventh valid call is 429 RATE_LIMITED (the ${DAILY_CAP + 1 - refusals}th where the refusals count), the ones between SYNC_TOO_SOON`, '8.L11');
      }
      // §7 E16: Retry-After says when the cap lets a call through again: at most a day away, and true. Where the
      // platform's clock can be moved, a call that waited exactly that long is not refused by the cap again
      // (SYNC_TOO_SOON is still allowed: a calendar day's cap may reopen before the 24-hour interval does). This
      // check comes after the ones that judge the run's sync events, so a call let through mixes into none of them.
      const capped = refused.find(([, r]) => r.body?.code === 'RATE_LIMITED')?.[1];
      const header = capped?.headers['retry-after'];
      const wait = /^[0-9]+$/.test(header ?? '') ? Number(header) : NaN;
      if (capped && header !== undefined && !(wait >= 1 && wait <= SYNC_INTERVAL_SECONDS)) {
        ctx.fail('BadRetryAfter', `Retry-After ${JSON.stringify(header)} on the 429 RATE_LIMITED of the day's capped sync`, 'Retry-After in whole seconds until the cap lets a call through, at most a day', '7.E16');
      }
      if (capped && ctx.control?.offers('clock.advance')) {
        await advance(ctx, wait);
        const after = await allowance.call(ctx);
        if (after.status === 429 && after.body?.code === 'RATE_LIMITED') {
          ctx.fail('RetryAfterUntrue', `429 RATE_LIMITED again for a valid sync sent Retry-After (${wait} s) after the capped one`, 'once Retry-After has passed the cap lets the call through (202, or SYNC_TOO_SOON while the 24-hour interval runs)', '7.E16');
        }
      }
    },
  }),
  defineCheck({
    id: 'sync.interval-24-hours', title: 'A sync just under 24 hours after an accepted one is 429 SYNC_TOO_SOON with errors.retry_after in seconds; just over, it is accepted; a horizon ending on the first of a month gets that night\'s event', suite,
    clauses: ['8.L10', '7.E15', '4.7.R2', '4.7.R4'], level: 'normative', needs: ['read', 'sync', control('clock.advance')],
    async run(ctx) {
      // Two accepted syncs of its own on days the clock makes: first past every sync before (the run's allowance,
      // earlier days' calls), so neither the interval nor the six-a-day cap of an earlier call is in play.
      // On a day whose event horizon (§2.1 horizon_days) ends on the first of a month, so the sync's last calendar month
      // has a single night, which still gets its event (§4.7: one per type, per property, per month within the horizon).
      const horizon = (await ctx.api.get('/me')).body?.data?.horizon_days;
      const lastNight = (days: number) => addDays(dateAt(ctx.now() + (SYNC_INTERVAL_SECONDS + MARGIN_SECONDS + days * 86_400) * 1000), horizon - 1);
      let extra = 0;
      while (Number.isInteger(horizon) && horizon > 0 && extra < 31 && !lastNight(extra).endsWith('-01')) extra++;
      await advance(ctx, SYNC_INTERVAL_SECONDS + MARGIN_SECONDS + (extra < 31 ? extra : 0) * 86_400);
      const property = ctx.target.properties.find((p) => !p.archived)?.doorloom_id;
      const before = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      // The smallest sync: one property (where the run names one), one type.
      const body = { ...(property === undefined ? {} : { property_ids: [property] }), types: ['property'] };
      const first = await ctx.api.post('/sync', { body });
      expectStatus(ctx, first, 202, null, '8.L10', 'a sync more than 24 hours after any earlier one');
      const subscribed = ((await ctx.api.get('/me')).body?.data?.webhook?.event_types ?? []) as string[];
      if (first.status === 202 && property !== undefined && Number.isInteger(horizon) && horizon > 0 && subscribed.includes('property.changed')) {
        // Issue 38: not "once nothing new came for a second". The check moves the clock, so it waits for the event that
        // ends the sync: a step of 0 s answers once everything due has happened, this sync's events included
        // (spec/control-openapi.yaml clock.advance). What the log holds then is all the sync made, on any machine.
        const rows = await syncEvents(ctx, before, { 'types[]': ['property.changed'], property_id: property }, (r) => span(r.map((x) => x.event.window)) >= horizon);
        const windows = rows.filter((r) => r.event.type === 'property.changed' && r.event.property?.doorloom_id === property).map((r) => r.event.window);
        judgeChunks(ctx, `property ${property}, property.changed`, windows);
        if (span(windows) !== horizon) ctx.fail('HorizonNotCovered', `property ${property}, property.changed: ${span(windows)} days in ${windows.length} events${windows.length > 0 ? `, ${windows[0]!.from} to ${windows.at(-1)!.to}` : ''}, ${describeSyncWait(ctx)} the sync`, `the ${horizon}-day horizon, one event per calendar month, the last month's single night included`, '4.7.R4');
      }
      // §4.7: the answer names the types asked for, normalised: one short name is one `.changed` name, not all five.
      const types = first.body?.data?.types;
      if (JSON.stringify(types) !== JSON.stringify(['property.changed'])) ctx.fail('WrongSyncAnswer', `types ${JSON.stringify(types)} for a sync of types ["property"]`, 'types ["property.changed"]: the types asked for, normalised to .changed names', '4.7.R2');
      await advance(ctx, SYNC_INTERVAL_SECONDS - MARGIN_SECONDS);
      const soon = await ctx.api.post('/sync', { body });
      expectStatus(ctx, soon, 429, 'SYNC_TOO_SOON', '8.L10', 'a sync 23 h 59 min after the accepted one');
      // The window reopens a minute from now (less the time the calls took): in seconds, not ms or minutes.
      const retry = soon.body.errors?.retry_after;
      if (!Number.isInteger(retry) || retry < MARGIN_SECONDS / 2 || retry > MARGIN_SECONDS + 1) {
        ctx.fail('BadRetryAfter', `errors.retry_after ${JSON.stringify(retry)} 23 h 59 min after the accepted sync`, `errors.retry_after in seconds until the 24 hours are over: about ${MARGIN_SECONDS}`, '7.E15');
      }
      await advance(ctx, 2 * MARGIN_SECONDS);
      expectStatus(ctx, await ctx.api.post('/sync', { body }), 202, null, '8.L10', 'a sync 24 h 1 min after the accepted one');
    },
  }),
  // Last of the suite: it too moves the clock a day past every earlier sync, to spend one of its own.
  defineCheck({
    id: 'sync.runs-by-itself', title: 'A sync\'s events reach the event log with no further call and no clock step: the platform runs the sync by itself', suite,
    clauses: ['4.7.R3', '4.7.R4', '8.L10'], level: 'normative', needs: ['read', 'sync', control('clock.advance')],
    async run(ctx) {
      // §4.7: "Events arrive later": nothing but the POST /sync asks for them. Where the control plane moves the clock the
      // other checks read a sync's events after a step, which answers once the sync has run; a platform that ran syncs
      // only then would pass them all. Here the clock is stepped only to open the 24-hour window (§8), then nothing is
      // called but reads of GET /events, which ask the platform for nothing. Where no control plane moves the clock the
      // other checks already wait so. Still short after SYNC_EVENTS_REAL_SECONDS of real time: not observed, never failed.
      const me = (await ctx.api.get('/me')).body?.data;
      const horizon = me?.horizon_days;
      const subscribed = (me?.webhook?.event_types ?? []) as string[];
      // The smallest type first: one event per property and month.
      const type = ['property.changed', ...ALLOWANCE_TYPES_NORMALISED].find((t) => subscribed.includes(t));
      if (type === undefined) throw new NotApplicable(`the integration subscribes to none of ${ALLOWANCE_TYPES_NORMALISED.join(', ')}, so a sync records no event to wait for`);
      if (!Number.isInteger(horizon) || horizon <= 0) throw new NotApplicable(`GET /me horizon_days is ${JSON.stringify(horizon)}: no event horizon to wait for a sync's events over`);
      // Every property the run names (as many as the run's own sync of everything may have): a sync of several.
      const properties = ctx.target.properties.filter((p) => !p.archived).map((p) => p.doorloom_id).slice(0, SYNC_EVERYTHING_MAX_PROPERTIES);
      if (properties.length === 0) throw new NotApplicable('the run names no property that is not archived to sync');
      await advance(ctx, SYNC_INTERVAL_SECONDS + MARGIN_SECONDS);
      const before = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      const sync = await ctx.api.post('/sync', { body: { property_ids: properties, types: [type.replace(/\.changed$/, '')] } });
      expectStatus(ctx, sync, 202, null, '8.L10', 'a sync more than 24 hours after any earlier one');
      if (sync.status !== 202) return;
      const windows = (rows: any[], property: number) => rows.filter((r) => r.event.type === type && r.event.property?.doorloom_id === property).map((r) => r.event.window);
      const complete = (rows: any[]) => properties.every((p) => span(windows(rows, p)) >= horizon);
      const rows = await syncEvents(ctx, before, { 'types[]': [type] }, complete, `the ${type} events of a sync of ${properties.length} propert${properties.length === 1 ? 'y' : 'ies'} over the ${horizon}-day horizon, with no clock step`, false);
      for (const p of properties) judgeChunks(ctx, `property ${p}, ${type}`, windows(rows, p));
    },
  }),
];

/** A valid sync inside a spent window: 429 SYNC_TOO_SOON with errors.retry_after, or RATE_LIMITED with Retry-After (§7). */
function judgeRefusal(ctx: CheckContext, n: number, res: Response, acceptedThisRun: boolean, refusals: number): void {
  const what = `valid sync call ${n} of this run${acceptedThisRun ? ', within 24 hours of its accepted one' : ' (the window was spent before the run)'}`;
  if (res.status !== 429 || (res.body?.code !== 'SYNC_TOO_SOON' && res.body?.code !== 'RATE_LIMITED')) {
    ctx.fail('SyncNotRefused', `${describe(res)} for ${what}`, `429 SYNC_TOO_SOON (or RATE_LIMITED past six calls a day) for ${what}`, '8.L10');
  }
  if (res.body.code === 'SYNC_TOO_SOON') {
    const retry = res.body.errors?.retry_after;
    if (!Number.isInteger(retry) || retry <= 0 || retry > SYNC_INTERVAL_SECONDS) ctx.fail('BadRetryAfter', `errors.retry_after ${JSON.stringify(retry)} on ${what}`, 'errors.retry_after in seconds, at most 24 hours', '7.E15');
    if (ctx.target.kind === 'in-process' && n === DAILY_CAP + 1) ctx.fail('CapNotEnforced', `SYNC_TOO_SOON on sync call ${n} of the day`, 'six calls a day, refusals included: the seventh is 429 RATE_LIMITED', '8.L11');
  } else {
    // Before the earliest call either reading of the 8.L11 note allows.
    if (ctx.target.kind === 'in-process' && n <= DAILY_CAP - refusals) ctx.fail('CapMiscounted', `RATE_LIMITED on valid sync call ${n} of the day, after ${refusals} refusals (422)`, 'six calls a day: the calls before the seventh (counting the refusals or not) are SYNC_TOO_SOON', '8.L11');
    if (res.headers['retry-after'] === undefined) ctx.fail('RetryAfterMissing', `no Retry-After header on the 429 RATE_LIMITED of ${what}`, 'Retry-After and X-RateLimit-* are set on 429 RATE_LIMITED', '7.E16');
  }
}

/**
 * §4.7 R4: one event per calendar month: each window within one month, no month twice, consecutive months in
 * sequence order (§6 R5a), so with the horizon covered exactly one event per month of it.
 */
function judgeChunks(ctx: CheckContext, what: string, windows: { from: string; to: string }[]): void {
  for (const w of windows) if (w.to > endOfMonth(w.from)) ctx.fail('ChunkStraddlesMonths', `${what}: window ${w.from}..${w.to}`, 'one event per calendar month', '4.7.R4');
  const months = new Map<string, { from: string; to: string }>();
  for (const w of windows) {
    const month = w.from.slice(0, 7);
    const twin = months.get(month);
    if (twin) ctx.fail('TwoEventsInOneMonth', `${what}: windows ${twin.from}..${twin.to} and ${w.from}..${w.to} in ${month}`, 'exactly one event per type, per property, per calendar month within the horizon', '4.7.R4');
    months.set(month, w);
  }
  for (let i = 1; i < windows.length; i++) {
    if (windows[i]!.from !== addDays(windows[i - 1]!.to, 1)) ctx.fail('ChunksNotContiguous', `${what}: ${windows[i - 1]!.to} then ${windows[i]!.from}`, 'consecutive months covering the horizon, in sequence order', '4.7.R4');
  }
}

function span(windows: { from: string; to: string }[]): number {
  return windows.length === 0 ? 0 : (Date.parse(windows.at(-1)!.to) - Date.parse(windows[0]!.from)) / 86_400_000 + 1;
}

/** Where the clock can be stepped, the sync's events are read once a step has run it; otherwise over real time. */
function stepped(ctx: CheckContext): boolean {
  return ctx.control?.offers('clock.advance') ?? false;
}

/** How the sync's events were waited for, for a message: "once … had run" or "within N s of". */
function describeSyncWait(ctx: CheckContext): string {
  return stepped(ctx) ? 'once a clock step (control plane clock.advance) had run' : `within ${SYNC_EVENTS_REAL_SECONDS} s of`;
}

/**
 * A sync's rows after `before` (GET /events with `query`, superseded ones
 * included), once the platform has run the sync. Where the control plane
 * moves the clock, one read after a step of 0 s: the step answers once
 * everything due has happened, the sync's events included, so the read is
 * final and a short sync is judged (spec/control-openapi.yaml clock.advance).
 * Otherwise (or with `step` false) the log is read until `complete` holds, for at most
 * SYNC_EVENTS_REAL_SECONDS of real time; a sync still short then is not
 * observed, naming what was missing, never judged (issue 38).
 */
async function syncEvents(ctx: CheckContext, before: number, query: Record<string, string | number | boolean | string[]>, complete: (rows: any[]) => boolean, awaited = 'the sync\'s events over the whole horizon', step = stepped(ctx)): Promise<any[]> {
  const read = () => allEvents(ctx, { ...query, include_superseded: true }, before);
  if (step) {
    await advance(ctx, 0);
    return read();
  }
  let last: any[] = [];
  const seen = await observed(async () => {
    last = await read();
    return complete(last) ? last : undefined;
  }, { seconds: SYNC_EVENTS_REAL_SECONDS, everyMs: 500 });
  if (seen === undefined) throw new NotObserved(awaited, `${SYNC_EVENTS_REAL_SECONDS} s of real time`, `GET /events held ${last.length} of its events by then; events arrive later (§4.7), and without a clock step (clock.advance) nothing says the sync is over`);
  return seen;
}

/**
 * The rows of the sync's events of `types` after the sync's `before`, once
 * every queued property has each type over the whole horizon (`syncEvents`:
 * after a clock step, or polled in real time up to its cap).
 */
async function syncRows(ctx: CheckContext, answer: AllowanceAnswer, types: string[]): Promise<any[]> {
  const horizon = (await ctx.api.get('/me')).body.data.horizon_days as number;
  const properties = answer.sync.body?.data?.queued_properties as number;
  const query = { 'types[]': types, ...(answer.property === null ? {} : { property_id: answer.property }) };
  const ours = (rows: any[]) => rows.filter((r) => types.includes(r.event.type));
  const complete = (rows: any[]) => {
    const byKey = new Map<string, { from: string; to: string }[]>();
    for (const r of ours(rows)) {
      const key = `${r.event.property.doorloom_id} ${r.event.type}`;
      byKey.set(key, [...(byKey.get(key) ?? []), r.event.window]);
    }
    return byKey.size >= properties * types.length && [...byKey.values()].every((w) => span(w) >= horizon);
  };
  return ours(await syncEvents(ctx, answer.before, query, complete, `the events of the run's sync: ${types.join(', ')} for each of its ${properties} queued propert${properties === 1 ? 'y' : 'ies'} over the ${horizon}-day horizon`));
}

function eventId(body: string): string {
  try {
    return String(JSON.parse(body).id);
  } catch {
    return '';
  }
}

function sameSet(a: unknown, b: string[]): boolean {
  return Array.isArray(a) && a.length === b.length && [...a].sort().join() === [...b].sort().join();
}
