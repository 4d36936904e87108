/**
 * What staff set on the integration record and what it does (§2.1, §3.1):
 * no webhook URL means nothing is delivered until one is registered; the
 * subscription is all six types unless staff narrowed it, and only
 * subscribed types are recorded; a disabled integration answers 403 on every
 * call and records no events, and disabling one integration leaves another
 * working; a property staff take out of coverage is out of the integration's
 * reach (§1). Each needs the control plane's action for what staff do
 * (spec/control-openapi.yaml) and puts the record back afterwards.
 */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { EVENT_TYPES } from '../../spec/document-tables.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import type { Response } from '../client.ts';
import { allEvents, bookingBody, changeEvent, changeRates, createBooking, describe, everyOperation, farStay, horizonStay, knownProperty, recorded, rowsFor } from './support.ts';
import { drained, ensureDelivered, notDelivered, receiverFor, watchForAbsence } from './receiver.ts';
import { SYNC_INTERVAL_SECONDS } from '../sync-allowance.ts';

const suite = 'integration';

/** How long (platform seconds) a check watches for something that must not happen. */
const QUIET_SECONDS = 20;

async function me(ctx: CheckContext): Promise<any> {
  const res = await ctx.api.get('/me');
  expectStatus(ctx, res, 200, null, '5.R7', 'GET /me');
  return res.body.data;
}

function sameSet(a: unknown, b: readonly string[]): boolean {
  return Array.isArray(a) && a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

/** A covered property and a two-night window 20 to 45 days ahead, where the run's control actions change things (README "What a live run leaves behind"). */
function changeWindow(ctx: CheckContext): { property: number; from: string; to: string } {
  const property = knownProperty(ctx);
  if (property === null) throw new NotApplicable('needs a covered property to change through the control plane (name one with --property ID)');
  const from = addDays(dateAt(ctx.now()), 20 + Math.floor(ctx.random() * 24));
  return { property, from, to: addDays(from, 1) };
}

export const integrationRecordChecks = [
  defineCheck({
    id: 'integration.no-webhook-no-delivery', title: 'With the webhook URL removed, webhook.configured is false and events wait undelivered; once a URL is set they are delivered', suite,
    clauses: ['2.1.R1'], level: 'normative', needs: ['read', control('webhook.set-url'), control('rates.set')], wants: ['property'],
    async run(ctx) {
      const receiver = await receiverFor(ctx);
      const registered = (await me(ctx)).webhook.url as string;
      // What was queued before is delivered first, so what follows is the check's own.
      await ensureDelivered(ctx, receiver, 'what was queued before must be delivered first, so that what follows is the check\'s own');
      await ctx.control!.setWebhookUrl(null);
      let removed = true;
      ctx.cleanup.unshift(async () => {
        if (removed) await ctx.control!.setWebhookUrl(registered);
      });
      const bare = (await me(ctx)).webhook;
      if (bare.configured !== false || bare.url !== null) {
        ctx.fail('ConfiguredWithoutUrl', `webhook.configured ${JSON.stringify(bare.configured)}, url ${JSON.stringify(bare.url)} after staff removed the URL`, 'webhook.configured false and url null when no webhook URL is registered', '2.1.R1');
      }
      const w = changeWindow(ctx);
      const before = bare.last_sequence as number;
      await changeRates(ctx, w.property, w.from, w.to, 4400 + Math.floor(ctx.random() * 100));
      const [row] = await recorded(ctx, changeEvent('rates.changed', w, before, 'control rates.set'), () => rowsFor(ctx, 'rates.changed', w, before), (r) => r.length > 0, 'no event to hold back without it');
      const heard = receiver.received.length;
      // Nothing may leave while no URL is registered: the platform is given time to (wrongly) act, stepped where the control
      // plane moves the clock (every attempt due in it is made); a quiet span of real time proves nothing (issue 38).
      const quiet = await watchForAbsence(ctx, () => receiver.received.length > heard, QUIET_SECONDS, 'nothing is delivered while no webhook URL is registered');
      const spoke = quiet.happened;
      const held = (await rowsFor(ctx, 'rates.changed', w, before)).find((r) => r.sequence === row.sequence);
      if (spoke || held?.status === 'delivered' || (held && held.delivered_at !== null)) {
        ctx.fail('DeliveredWithoutUrl', `event ${row.sequence} is ${held?.status ?? 'gone from replay'} (delivered_at ${JSON.stringify(held?.delivered_at)}) while no webhook URL was registered${spoke ? '; the old URL still received deliveries' : ''}`, 'nothing is delivered until a webhook URL is registered: the event waits', '2.1.R1');
      }
      // Nor is it attempted: with no URL there is no delivery to fail, so the failure count cannot grow (§2.1).
      const waiting = (await me(ctx)).webhook;
      if (held?.status === 'failed' || waiting.consecutive_failures > bare.consecutive_failures || waiting.last_failure_at !== bare.last_failure_at) {
        ctx.fail('AttemptedWithoutUrl', `event ${row.sequence} is ${held?.status ?? 'gone from replay'}; webhook.consecutive_failures ${bare.consecutive_failures} → ${waiting.consecutive_failures}, last_failure_at ${JSON.stringify(bare.last_failure_at)} → ${JSON.stringify(waiting.last_failure_at)} while no webhook URL was registered`, 'nothing is delivered until a webhook URL is registered: no attempt, so no failed delivery', '2.1.R1');
      }
      await ctx.control!.setWebhookUrl(registered);
      removed = false;
      // §2.1: configured is false only while no URL is registered; once one is, /me shows it.
      const set = (await me(ctx)).webhook;
      if (registered !== null && (set.configured !== true || set.url !== registered)) {
        ctx.fail('NotConfiguredWithUrl', `webhook.configured ${JSON.stringify(set.configured)}, url ${JSON.stringify(set.url)} after staff registered ${registered}`, `webhook.configured true and url ${registered}`, '2.1.R1');
      }
      if (!(await drained(ctx, receiver, row.sequence))) {
        await notDelivered(ctx, [row.sequence], { kind: 'NotDeliveredOnceConfigured', received: `event ${row.sequence}, recorded while no URL was registered, not delivered once one was`, documented: 'nothing is delivered until a URL is registered; then what waited is delivered', clause: '2.1.R1' });
      }
      // Everything else judged: a quiet span of real time did not show that nothing leaves while no URL is registered.
      if (quiet.unproven) throw quiet.unproven;
    },
  }),
  defineCheck({
    id: 'integration.subscription-narrowed', title: 'webhook.event_types is all six unless staff narrowed it; narrowed, /me shows it and only subscribed types are recorded (a booking made meanwhile records no booking.changed)', suite,
    clauses: ['2.1.R2'], level: 'normative', needs: ['read', control('webhook.set-event-types'), control('rates.set'), control('restrictions.set')], wants: ['property'],
    async run(ctx) {
      const original = (await me(ctx)).webhook.event_types as string[];
      // In-process the world is fresh and nobody narrowed the subscription; live, staff may have.
      if (ctx.target.kind === 'in-process' && !sameSet(original, EVENT_TYPES)) {
        ctx.fail('DefaultSubscriptionNotSix', `webhook.event_types ${JSON.stringify(original)} on an integration staff never narrowed`, `all six: ${EVENT_TYPES.join(', ')}`, '2.1.R2');
      }
      await ctx.control!.setEventTypes(['rates.changed']);
      ctx.cleanup.unshift(async () => {
        await ctx.control!.setEventTypes(original);
      });
      const narrowed = (await me(ctx)).webhook;
      if (!sameSet(narrowed.event_types, ['rates.changed'])) {
        ctx.fail('NarrowingNotShown', `webhook.event_types ${JSON.stringify(narrowed.event_types)} after staff narrowed the subscription to rates.changed`, 'the subscribed event types: rates.changed only', '2.1.R2');
      }
      const w = changeWindow(ctx);
      const before = narrowed.last_sequence as number;
      // The unsubscribed changes first: by the time the subscribed one is recorded, the others would be too. A booking made
      // (where writes are allowed) changes the booking and its nights: booking.changed and availability.changed, neither subscribed.
      // A booking refused here (no free night left, a 429) only leaves the restrictions change as the unsubscribed one: the check goes on.
      if (ctx.target.capabilities.includes('write')) {
        const stay = ctx.stays.ready ? ctx.stays.take('horizon', 1) : horizonStay(ctx);
        if (stay) await createBooking(ctx, bookingBody(ctx, { ...stay }));
      }
      await ctx.control!.setRestrictions(w.property, { from: w.from, to: w.to, stop_sell: false });
      await changeRates(ctx, w.property, w.from, w.to, 4500 + Math.floor(ctx.random() * 100));
      // Narrowed to rates.changed, nothing else may be recorded, whatever made it.
      const read = () => allEvents(ctx, { include_superseded: true }, before);
      const ours = (r: any) => r.event.type === 'rates.changed' && r.event.property?.doorloom_id === w.property && r.event.window.from === w.from && r.event.window.to === w.to;
      const rows = await recorded(ctx, changeEvent('rates.changed', w, before, 'control rates.set'), read, (r) => r.some(ours), 'the subscribed change, recorded after the unsubscribed ones: nothing to compare with without it');
      const stray = rows.find((r) => r.event.type !== 'rates.changed');
      if (stray) ctx.fail('UnsubscribedTypeRecorded', `${stray.event.type} ${stray.sequence} recorded for a subscription narrowed to rates.changed`, 'events only of the subscribed types (§6: subscription is by webhook.event_types)', '2.1.R2');
      // A sync's events too (§4.7: delivered through the normal webhook path): a sync of three types records rates.changed
      // only. Where the clock can be moved past the sync interval (§8), so the run's own sync allowance is left alone.
      if (ctx.target.capabilities.includes('sync') && ctx.control!.offers('clock.advance')) {
        await ctx.control!.advanceClock(SYNC_INTERVAL_SECONDS + 60);
        const mark = (await me(ctx)).webhook.last_sequence as number;
        const sync = await ctx.api.post('/sync', { body: { property_ids: [w.property], types: ['rates', 'inventory', 'property'] } });
        const synced = sync.status === 202 ? await recorded(ctx, `a rates.changed event of the sync of property ${w.property} after sequence ${mark}`, () => allEvents(ctx, { include_superseded: true }, mark), (r) => r.some((x) => x.event.type === 'rates.changed'), 'whether the sync records the unsubscribed types shows only beside the subscribed one') : [];
        const strayed = synced.find((r) => r.event.type !== 'rates.changed');
        if (strayed) ctx.fail('UnsubscribedTypeRecorded', `${strayed.event.type} ${strayed.sequence} recorded by a sync of rates, inventory and property, for a subscription narrowed to rates.changed`, 'events only of the subscribed types (§6: subscription is by webhook.event_types)', '2.1.R2');
      }
      // Widened again to all six (as an integration staff never narrowed has it), /me says so.
      await ctx.control!.setEventTypes([...EVENT_TYPES]);
      const widened = (await me(ctx)).webhook.event_types;
      if (!sameSet(widened, EVENT_TYPES)) ctx.fail('WideningNotShown', `webhook.event_types ${JSON.stringify(widened)} after staff subscribed it to all six`, `all six: ${EVENT_TYPES.join(', ')}`, '2.1.R2');
    },
  }),
  defineCheck({
    id: 'integration.disabled-by-staff', title: 'Disabled by staff: every call is 403 INTEGRATION_DISABLED, and a change made meanwhile records no event', suite,
    clauses: ['3.1.T6', '3.1.T5'], level: 'normative', needs: ['read', control('integration.disable'), control('integration.enable'), control('rates.set')], wants: ['property'],
    async run(ctx) {
      const w = changeWindow(ctx);
      const before = (await me(ctx)).webhook.last_sequence as number;
      const operations = everyOperation(ctx);
      await ctx.control!.disableIntegration();
      let disabled = true;
      // Never leave it disabled: the rest of the run, and the partner, need it.
      ctx.cleanup.unshift(async () => {
        if (disabled) await ctx.control!.enableIntegration();
      });
      const answers: [string, Response][] = [];
      for (const op of operations) answers.push([op.name, await ctx.api.request(op.method, op.path, { body: op.body })]);
      // A change to a covered property while disabled: it records no event (§3.1).
      await changeRates(ctx, w.property, w.from, w.to, 4600 + Math.floor(ctx.random() * 100));
      await ctx.control!.enableIntegration();
      disabled = false;
      for (const [name, res] of answers) expectStatus(ctx, res, 403, 'INTEGRATION_DISABLED', '3.1.T6', `${name} after staff disabled the integration`);
      // The same change once enabled records one: recorded in order, so anything of the disabled one would come first.
      await changeRates(ctx, w.property, w.from, w.to, 4700 + Math.floor(ctx.random() * 100));
      const rows = await recorded(ctx, changeEvent('rates.changed', w, before, 'control rates.set once the integration was enabled again'), () => rowsFor(ctx, 'rates.changed', w, before), (r) => r.length > 0, 'nothing tells a disabled integration apart without it');
      if (rows.length > 1) {
        ctx.fail('EventRecordedWhileDisabled', `${rows.length} rates.changed events (${rows.map((r) => r.sequence).join(', ')}) for ${w.from}..${w.to}: one for the change made while the integration was disabled (${describe(answers[0]![1])} to GET /me then)`, 'no events are recorded while disabled: only the change made after enabling has one', '3.1.T5');
      }
    },
  }),
  defineCheck({
    id: 'integration.disabled-one-of-two', title: 'Staff disabling another integration disables that one alone: its key answers 403 INTEGRATION_DISABLED, this one keeps working and is not disabled', suite,
    clauses: ['3.1.T6', '3.1.T5'], level: 'normative', needs: ['read', control('integration.disable'), control('integration.enable')], wants: ['otherApiKey'],
    async run(ctx) {
      const other = ctx.target.otherApiKey;
      if (!other) throw new NotApplicable("needs another integration's API key on the same deployment (otherApiKey in --config, or PARTNER_OTHER_API_KEY)");
      const theirs = await ctx.api.get('/me', { token: other });
      if (theirs.status !== 200) throw new NotApplicable(`the second integration's GET /me answered ${describe(theirs)}: it is not an active integration to disable`);
      // The control plane addresses the second integration by its own slug (spec/control-openapi.yaml Addressing).
      const staff = ctx.control!.forIntegration(other);
      await staff.disableIntegration();
      let disabled = true;
      ctx.cleanup.unshift(async () => {
        if (disabled) await staff.enableIntegration();
      });
      const theirAnswer = await ctx.api.get('/me', { token: other });
      const mine = await ctx.api.get('/me');
      await staff.enableIntegration();
      disabled = false;
      expectStatus(ctx, theirAnswer, 403, 'INTEGRATION_DISABLED', '3.1.T5', "the second integration's GET /me after staff disabled it");
      // §3.1: disabled is the state of the integration staff turned off; this one is not disabled and its API works
      // (active or paused alike keep full API access).
      if (mine.status !== 200 || mine.body?.data?.status === 'disabled') {
        ctx.fail('OtherIntegrationDisabled', `${describe(mine)}${mine.status === 200 ? ` with status ${JSON.stringify(mine.body?.data?.status)}` : ''} for GET /me after staff disabled another integration`, 'this integration untouched: GET /me 200, its status not disabled (staff disabled another one; an active or paused integration keeps API access, §3.1)', '3.1.T6');
      }
    },
  }),
  defineCheck({
    id: 'integration.coverage-by-staff', title: "A property staff take out of coverage is out of reach: covered_properties counts one fewer, its availability snapshot is 404 NOT_FOUND and a create naming it 422 PROPERTY_NOT_MAPPED; put back, it counts and answers again", suite,
    clauses: ['2.1.R8', '4.8.R3', '4.5.Q32', '7.E11', '4.8.R1'], level: 'normative', needs: ['read', control('coverage.set')], wants: ['property', 'write'],
    async run(ctx) {
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('needs a covered property to take out of coverage through the control plane (name one with --property ID)');
      const original = await ctx.control!.coverage();
      if (!original.includes(property)) throw new NotApplicable(`the control plane's coverage of the integration (${original.join(', ') || 'none'}) does not hold property ${property}`);
      const night = addDays(dateAt(ctx.now()), 20 + Math.floor(ctx.random() * 24));
      const snapshot = () => ctx.api.get(`/properties/${property}/availability`, { query: { from: night, to: night } });
      const counted = (await me(ctx)).covered_properties as number;
      const seen = await snapshot();
      if (seen.status !== 200) throw new NotApplicable(`the availability snapshot of covered property ${property} answered ${describe(seen)} before any change: nothing to take away`);
      await ctx.control!.setCoverage(original.filter((p) => p !== property));
      let narrowed = true;
      // Never leave the property out: the rest of the run, and the partner, need it.
      ctx.cleanup.unshift(async () => {
        if (narrowed) await ctx.control!.setCoverage(original);
      });
      const without = (await me(ctx)).covered_properties;
      if (without !== counted - 1) ctx.fail('CoveredCountWrong', `covered_properties ${JSON.stringify(without)} after staff took property ${property} out of coverage (${counted} before)`, `${counted - 1}: covered_properties is the count of covered properties`, '2.1.R8');
      const hidden = await snapshot();
      if (hidden.status === 200) ctx.fail('UncoveredPropertyShown', `200 with the availability snapshot of property ${property} after staff took it out of coverage`, '404 NOT_FOUND: an uncovered property (§4.8)', '4.8.R3');
      expectStatus(ctx, hidden, 404, 'NOT_FOUND', '4.8.R3', `the availability snapshot of property ${property}, taken out of coverage`);
      if (ctx.target.capabilities.includes('write')) {
        // A refused create writes nothing, so this costs the platform nothing.
        const res = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, ...farStay(ctx) }));
        if (res.status === 200 || res.status === 201) ctx.fail('UncoveredPropertyBooked', `${describe(res)}: booking ${res.body?.data?.id} on property ${property} after staff took it out of coverage`, '422 PROPERTY_NOT_MAPPED: a property reference outside coverage (§4.5, §7)', '4.5.Q32');
        expectStatus(ctx, res, 422, 'PROPERTY_NOT_MAPPED', '4.5.Q32', `a create on property ${property}, taken out of coverage`);
      }
      await ctx.control!.setCoverage(original);
      narrowed = false;
      const back = (await me(ctx)).covered_properties;
      if (back !== counted) ctx.fail('CoveredCountWrong', `covered_properties ${JSON.stringify(back)} after staff put property ${property} back into coverage`, `${counted}, as before: covered_properties is the count of covered properties`, '2.1.R8');
      expectStatus(ctx, await snapshot(), 200, null, '4.8.R1', `the availability snapshot of property ${property}, covered again`);
    },
  }),
];
