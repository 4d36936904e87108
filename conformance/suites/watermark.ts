/**
 * Snapshot watermarks (§2.7, §4.8): data.sequence is read before the
 * payload; applying later events (apply-if-newer) onto a snapshot equals a
 * later snapshot; data.data is byte-identical to the matching event.
 */
import fc from 'fast-check';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { allEvents, bookingBody, changeEvent, changeRates, createBooking, horizonStay, knownProperty, recorded, rowsFor } from './support.ts';
import { judgeDateEntries } from './schema.ts';
import { parameterOf } from './validation.ts';

const suite = 'watermark';

/** Per night: the dates[] entry and, for availability, the units held that night. */
function byNight(payload: any): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of payload.dates) {
    const held = payload.units?.filter((u: any) => u.unavailable_dates.includes(entry.date)).map((u: any) => u.inventory_id).sort();
    out.set(entry.date, JSON.stringify({ entry, held }));
  }
  return out;
}

async function snapshotOf(ctx: CheckContext, kind: string, property: number, from: string, to: string) {
  const res = await ctx.api.get(`/properties/${property}/${kind}`, { query: { from, to } });
  expectStatus(ctx, res, 200, null, '4.8.R1', `a ${kind} snapshot`);
  return res;
}

/** The highest sequence issued to the integration (§4.1 `webhook.last_sequence`). */
async function lastSequence(ctx: CheckContext): Promise<number> {
  const me = await ctx.api.get('/me');
  expectStatus(ctx, me, 200, null, '4.1.R1', 'the integration record');
  return me.body.data.webhook.last_sequence as number;
}

/**
 * §4.8: "data.sequence is read before the payload is built": it lies between the last sequence issued before the
 * request and the last issued after it. A watermark below that (0, say) would make a partner re-apply every event.
 */
async function watermarkedSnapshot(ctx: CheckContext, property: number, from: string, to: string, kind = 'availability') {
  const low = await lastSequence(ctx);
  const res = await snapshotOf(ctx, kind, property, from, to);
  const high = await lastSequence(ctx);
  const watermark = res.body.data.sequence;
  if (!Number.isInteger(watermark) || watermark < low || watermark > high) {
    ctx.fail('WatermarkNotRead', `data.sequence ${JSON.stringify(watermark)}`, `the sequence issued when the snapshot was read: between ${low} (before the request) and ${high} (after it)`, '4.8.R7');
  }
  return res;
}

export const watermarkChecks = [
  defineCheck({
    id: 'watermark.later-events-converge', title: 'A snapshot plus every event above its watermark (apply-if-newer) equals a later snapshot', suite,
    // 4.8.R9 and 6.R4a are what a partner does (graded by certify), not something a platform can break.
    clauses: ['4.8.R7', '4.8.R8', '6.R4'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const property = knownProperty(ctx)!;
      // Nine free nights per case (the generated stays fall on days 0 to 8); once the read window is used up, cases share the last.
      let window = horizonStay(ctx, 9);
      await ctx.forAll(fc.array(fc.record({ slot: fc.integer({ min: 0, max: 6 }), nights: fc.integer({ min: 1, max: 2 }) }), { minLength: 1, maxLength: 5 }), async (stays) => {
        window = ctx.stays.take('horizon', 9) ?? window;
        const from = window.check_in;
        const to = addDays(from, 8);
        const before = await watermarkedSnapshot(ctx, property, from, to);
        const watermark = before.body.data.sequence as number;
        for (const s of stays) await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: addDays(from, s.slot), check_out: addDays(from, s.slot + s.nights) }));
        const state = byNight(before.body.data.data);
        for (const r of await allEvents(ctx, { 'types[]': ['availability.changed'], property_id: property }, watermark)) {
          for (const [date, value] of byNight(r.event.data)) if (state.has(date)) state.set(date, value);
        }
        const after = byNight((await watermarkedSnapshot(ctx, property, from, to)).body.data.data);
        for (const [date, value] of after) {
          if (state.get(date) !== value) ctx.fail('WatermarkDiverged', `night ${date}: snapshot + events gives ${state.get(date)}`, `the later snapshot's ${value} (watermark ${watermark})`, '4.8.R8');
        }
      }, { books: true });
    },
  }),
  defineCheck({
    id: 'watermark.payload-equals-event', title: 'Snapshot data.data is byte-identical to the data of the event for the same window and state', suite,
    clauses: ['2.7.R3', '2.7.R1', '4.8.R2'], level: 'normative', needs: ['read', control('rates.set'), control('nights.set'), control('restrictions.set')], wants: ['property'],
    async run(ctx) {
      const property = knownProperty(ctx)!;
      const from = addDays(dateAt(ctx.now()), 25);
      const w = { property, from, to: addDays(from, 2) };
      // The check's own events: recorded after this sequence, for exactly its window.
      const webhook = (await ctx.api.get('/me')).body.data.webhook;
      const before = webhook.last_sequence as number;
      const unsubscribed = ['availability.changed', 'rates.changed', 'restrictions.changed'].filter((t) => Array.isArray(webhook.event_types) && !webhook.event_types.includes(t));
      if (unsubscribed.length > 0) throw new NotApplicable(`the integration is not subscribed to ${unsubscribed.join(', ')} (webhook.event_types ${JSON.stringify(webhook.event_types)}): no event to compare its snapshot with`);
      await changeRates(ctx, property, w.from, w.to, 6100);
      await ctx.control!.setNights(property, { from: w.from, to: w.to, units_cap: 1 });
      await ctx.control!.setRestrictions(property, { from: w.from, to: w.to, min_stay: 2 });
      for (const kind of ['availability', 'rates', 'restrictions']) {
        const event = (await recorded(ctx, changeEvent(`${kind}.changed`, w, before, `control ${kind === 'availability' ? 'nights' : kind}.set`), () => rowsFor(ctx, `${kind}.changed`, w, before), (r) => r.length > 0, 'the snapshot is compared with it')).at(-1)!.event;
        const res = await snapshotOf(ctx, kind, property, event.window.from, event.window.to);
        const start = res.text.indexOf('"data":', res.text.indexOf('"window"')) + 7;
        const bytes = res.text.slice(start, res.text.lastIndexOf('}', res.text.length - 2));
        if (bytes !== JSON.stringify(event.data)) ctx.fail('SnapshotNotByteIdentical', `${kind} data.data differs from event ${event.sequence}'s data`, 'byte-identical to the matching event', '2.7.R3');
      }
    },
  }),
  defineCheck({
    id: 'watermark.staff-values-shown', title: 'Rates and restrictions staff set for a night show as set in the next rates and restrictions snapshots, each field, watermarked when read', suite,
    // The fields of both payloads are x-assumptions (RatesPayload, RestrictionsPayload: "not shown" in the document).
    clauses: ['4.8.R5', '4.8.R7'], level: 'assumption', needs: ['read', control('rates.set'), control('restrictions.set')], wants: ['property'],
    async run(ctx) {
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('no property to read: name one with --property ID');
      const night = addDays(dateAt(ctx.now()), 30 + Math.floor(ctx.random() * 300));
      const rates = (await snapshotOf(ctx, 'rates', property, night, night)).body.data.data.dates[0];
      const restrictions = (await snapshotOf(ctx, 'restrictions', property, night, night)).body.data.data.dates[0];
      if (!rates || !restrictions) throw new NotApplicable(`the rates or restrictions snapshot of property ${property} for ${night} holds no night`);
      // What was there goes back afterwards (a live property keeps its rates and restrictions).
      ctx.cleanup.unshift(async () => {
        await ctx.control!.setRates(property, night, night, rates.base_rate, { extra_adult_rate: rates.extra_adult_rate, extra_child_rate: rates.extra_child_rate });
        await ctx.control!.setRestrictions(property, { from: night, to: night, min_stay: restrictions.min_stay, max_stay: restrictions.max_stay, closed_to_arrival: restrictions.closed_to_arrival, closed_to_departure: restrictions.closed_to_departure, stop_sell: restrictions.stop_sell });
      });
      // Every field set to a value the night did not hold, so a field the platform left alone cannot pass for one it set.
      const setRates = { base_rate: rates.base_rate + 137, extra_adult_rate: rates.extra_adult_rate + 11, extra_child_rate: rates.extra_child_rate + 7 };
      const setRestrictions = {
        min_stay: restrictions.min_stay === 2 ? 3 : 2, max_stay: restrictions.max_stay === 20 ? 21 : 20,
        closed_to_arrival: !restrictions.closed_to_arrival, closed_to_departure: !restrictions.closed_to_departure, stop_sell: !restrictions.stop_sell,
      };
      await ctx.control!.setRates(property, night, night, setRates.base_rate, { extra_adult_rate: setRates.extra_adult_rate, extra_child_rate: setRates.extra_child_rate });
      await ctx.control!.setRestrictions(property, { from: night, to: night, ...setRestrictions });
      for (const [kind, set] of [['rates', setRates], ['restrictions', setRestrictions]] as const) {
        const shown = (await watermarkedSnapshot(ctx, property, night, night, kind)).body.data.data.dates[0];
        const wrong = Object.entries(set).filter(([field, value]) => shown?.[field] !== value);
        if (wrong.length > 0) {
          ctx.fail('StaffChangeNotShown', `${kind} snapshot for ${night}: ${wrong.map(([field]) => `${field} ${JSON.stringify(shown?.[field])}`).join(', ')} after staff set ${JSON.stringify(set)}`, `each field as staff set it (spec x-assumption ${kind === 'rates' ? 'RatesPayload' : 'RestrictionsPayload'})`, '4.8.R5');
        }
      }
    },
  }),
  defineCheck({
    id: 'watermark.window-limits', title: 'A 92-night window and `to` exactly 730 days ahead are accepted; 93 nights and 731 days ahead are 422 against `to`; a window without `from` or `to` is 422 naming it', suite,
    clauses: ['4.8.Q4', '4.8.Q5', '8.L13', '8.L14', '4.8.R4', '4.8.Q2', '4.8.Q3', '7.C1'], level: 'normative', needs: ['read'], wants: ['property'],
    async run(ctx) {
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('needs a property to snapshot: name one with --property ID');
      // "Ahead of today" is the platform's today (protocol/calendar.ts): asked again if the date turned while asking.
      for (let attempt = 0; ; attempt++) {
        const today = dateAt(ctx.now());
        const ask = (from: number, to: number) => ctx.api.get(`/properties/${property}/availability`, { query: { from: addDays(today, from), to: addDays(today, to) } });
        const cases = [
          { res: await ask(2, 93), status: 200, what: 'a 92-night window', clause: '8.L13' },
          { res: await ask(700, 730), status: 200, what: '`to` exactly 730 days ahead', clause: '8.L14' },
          { res: await ask(2, 94), status: 422, what: 'a 93-night window', clause: '4.8.Q4' },
          { res: await ask(700, 731), status: 422, what: '`to` 731 days ahead', clause: '4.8.Q5' },
        ];
        if (dateAt(ctx.now()) !== today && attempt < 2) continue;
        for (const c of cases) {
          expectStatus(ctx, c.res, c.status, c.status === 422 ? 'VALIDATION_FAILED' : null, c.clause, `${c.what} (today ${today})`);
          if (c.status === 422 && !c.res.body.errors?.to) ctx.fail('WrongErrorField', JSON.stringify(c.res.body.errors), `${c.what} reported against field to`, '4.8.Q5');
        }
        // §4.8: from and to are both required; a window without one is refused naming it (§7: keyed by field path).
        for (const [missing, query, clause] of [['from', { to: addDays(today, 3) }, '4.8.Q2'], ['to', { from: addDays(today, 2) }, '4.8.Q3']] as const) {
          const res = await ctx.api.get(`/properties/${property}/availability`, { query });
          expectStatus(ctx, res, 422, 'VALIDATION_FAILED', clause, `a snapshot without ${missing}`);
          if (!Object.keys(res.body.errors ?? {}).some((k) => parameterOf(k) === missing)) ctx.fail('WrongErrorField', JSON.stringify(res.body.errors), `the refusal names ${missing}, the parameter left out`, '7.C1');
        }
        return;
      }
    },
  }),
  defineCheck({
    id: 'watermark.cap-and-block', title: 'A night capped at one unit shows units_cap 1 and one sellable unit (two at once are refused); a blocked night shows is_blocked and its scope, everywhere or ota_only', suite,
    clauses: ['2.4.R3', '2.4.R4', '4.5.R7'], level: 'normative', needs: ['read', control('nights.set')], wants: ['property'],
    async run(ctx) {
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('no property to read: name one with --property ID');
      // A far night with two or more sellable units and none held (every unit sellable), so a cap of one shows and leaves exactly one.
      const from = addDays(dateAt(ctx.now()), 400);
      const to = addDays(from, 60);
      // Three or more where there are (one booked then leaves more units free than the cap), else two.
      const nights = (await snapshotOf(ctx, 'availability', property, from, to)).body.data.data.dates.filter((d: any) => d.available_units >= 2 && d.available_units === d.total_units && d.units_cap === null && !d.is_blocked);
      const free = nights.find((d: any) => d.available_units >= 3) ?? nights[0];
      if (!free) throw new NotApplicable(`no night from ${from} to ${to} on property ${property} with two or more sellable units, none held, and no cap`);
      const night = free.date as string;
      ctx.cleanup.unshift(async () => void (await ctx.control!.setNights(property, { from: night, to: night, is_blocked: false, units_cap: null })));
      await ctx.control!.setNights(property, { from: night, to: night, units_cap: 1 });
      const capped = (await snapshotOf(ctx, 'availability', property, night, night)).body.data.data;
      judgeDateEntries(ctx, capped, night);
      const entry = capped.dates[0];
      if (entry.units_cap !== 1 || entry.available_units > 1) ctx.fail('CapNotShown', `${night}: units_cap ${entry.units_cap}, available_units ${entry.available_units} after capping the night at 1`, 'units_cap 1 and at most one sellable unit', '2.4.R3');
      // §2.4: the cap bounds what is sellable, nothing else: with every unit free and none held, one stays sellable.
      if (entry.available_units !== 1) ctx.fail('CapOverApplied', `${night}: available_units ${entry.available_units} under units_cap 1, with ${free.available_units} units free and none held`, 'available_units 1: the cap of one leaves one of the free units sellable', '2.4.R3');
      if (ctx.target.capabilities.includes('write')) {
        // The cap holds at create too: two units on a night with one sellable are refused (§4.5 rule 7), and nothing is written.
        const two = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: night, check_out: addDays(night, 1), units: [{ adults: 1 }, { adults: 1 }] }));
        if (two.status === 201) ctx.fail('CapOversold', `201: booking ${two.body?.data?.id} of two units on ${night}, capped at 1`, '409 UNAVAILABLE: units_cap 1 leaves one unit sellable, not two', '2.4.R3');
        else expectStatus(ctx, two, 409, 'UNAVAILABLE', '4.5.R7', `a create of two units on ${night}, capped at one sellable unit`);
        // The same two units over the capped night and the next: every night of the stay must have them (rule 7, "for the whole stay").
        const longer = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: night, check_out: addDays(night, 2), units: [{ adults: 1 }, { adults: 1 }] }));
        if (longer.status === 201) ctx.fail('CapOversold', `201: booking ${longer.body?.data?.id} of two units on ${night} and ${addDays(night, 1)}, the first capped at 1`, '409 UNAVAILABLE: units_cap 1 leaves one unit sellable on the first night, not two', '2.4.R3');
        else expectStatus(ctx, longer, 409, 'UNAVAILABLE', '4.5.R7', `a create of two units on ${night} (capped at one) and the night after`);
        // One unit booked there, the cap still holds: available_units never above units_cap, booked units or not (§2.4).
        const one = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: night, check_out: addDays(night, 1), units: [{ adults: 1 }] }));
        if (one.status === 201) {
          const booked = (await snapshotOf(ctx, 'availability', property, night, night)).body.data.data;
          judgeDateEntries(ctx, booked, night);
        }
      }
      await ctx.control!.setNights(property, { from: night, to: night, is_blocked: true, block_scope: 'everywhere', units_cap: null });
      const blocked = (await snapshotOf(ctx, 'availability', property, night, night)).body.data.data;
      judgeDateEntries(ctx, blocked, night);
      if (blocked.dates[0].is_blocked !== true || blocked.dates[0].block_scope !== 'everywhere') {
        ctx.fail('BlockNotShown', `${night}: is_blocked ${blocked.dates[0].is_blocked}, block_scope ${JSON.stringify(blocked.dates[0].block_scope)} after blocking it everywhere`, 'is_blocked true, block_scope everywhere', '2.4.R4');
      }
      // The other scope seen (§2.4): shown as set, not widened to everywhere.
      await ctx.control!.setNights(property, { from: night, to: night, is_blocked: true, block_scope: 'ota_only' });
      const ota = (await snapshotOf(ctx, 'availability', property, night, night)).body.data.data;
      judgeDateEntries(ctx, ota, night);
      if (ota.dates[0].is_blocked !== true || ota.dates[0].block_scope !== 'ota_only') {
        ctx.fail('BlockNotShown', `${night}: is_blocked ${ota.dates[0].is_blocked}, block_scope ${JSON.stringify(ota.dates[0].block_scope)} after blocking it for OTAs only`, 'is_blocked true, block_scope ota_only', '2.4.R4');
      }
      // The block lifted (its scope cleared, null being a value of block_scope, §2.4): the night shows it is not blocked.
      await ctx.control!.setNights(property, { from: night, to: night, is_blocked: false, block_scope: null });
      const lifted = (await snapshotOf(ctx, 'availability', property, night, night)).body.data.data;
      judgeDateEntries(ctx, lifted, night);
      if (lifted.dates[0].is_blocked !== false) ctx.fail('BlockNotLifted', `${night}: is_blocked ${JSON.stringify(lifted.dates[0].is_blocked)} after the block was lifted`, 'is_blocked false', '2.4.R4');
    },
  }),
  defineCheck({
    id: 'watermark.property-and-window', title: 'A snapshot names its property by id or by partner alias alike, and by nothing else (a lenient spelling of the id is 404); from and to are required and to may not precede from', suite,
    clauses: ['4.8.Q1', '4.8.Q2', '4.8.Q3', '4.8.R3'], level: 'normative', needs: ['read'], wants: ['property'],
    async run(ctx) {
      const property = knownProperty(ctx);
      if (property === null) throw new NotApplicable('needs a property to snapshot: name one with --property ID');
      const alias = ctx.target.properties.find((p) => p.doorloom_id === property)?.external_id
        || (await ctx.api.get('/properties', { query: { per_page: 200 } })).body?.data?.find((p: any) => p.doorloom_id === property)?.external_id
        || (await ctx.api.get('/bookings', { query: { property_id: property, per_page: 1 } })).body?.data?.[0]?.property?.external_id;
      const from = addDays(dateAt(ctx.now()), 3);
      const to = addDays(from, 4);
      // §4.8: the id or the alias, nothing else. What a lenient number parser reads as the id (parseInt, Number) names no property,
      // unless it is some property's alias here; nor does a reference longer than an alias can be (128, §4.5): unknown, so 404, not 422.
      const aliases = new Set<string>(((await ctx.api.get('/properties', { query: { per_page: 200 } })).body?.data ?? []).map((p: any) => String(p.external_id)));
      for (const ref of [`${property}abc`, `+${property}`, `0x${property.toString(16)}`, ` ${property}`, `${property}.0`, `${property}`.padEnd(129, 'x')].filter((r) => !aliases.has(r))) {
        const res = await ctx.api.get(`/properties/${encodeURIComponent(ref)}/availability`, { query: { from, to } });
        expectStatus(ctx, res, 404, 'NOT_FOUND', '4.8.R3', `a snapshot of property ${JSON.stringify(ref)}, neither the id ${property} nor an alias`);
      }
      for (const [query, field, clause] of [[{ to }, 'from', '4.8.Q2'], [{ from }, 'to', '4.8.Q3'], [{ from: to, to: from }, 'to', '4.8.Q3']] as const) {
        const res = await ctx.api.get(`/properties/${property}/availability`, { query });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', clause, `a snapshot with ${JSON.stringify(query)}`);
        if (!res.body?.errors?.[field]) ctx.fail('WrongErrorField', JSON.stringify(res.body?.errors), `reported against ${field}`, clause);
      }
      const byId = await ctx.api.get(`/properties/${property}/availability`, { query: { from, to } });
      expectStatus(ctx, byId, 200, null, '4.8.R1', 'a snapshot by platform id');
      if (!alias) throw new NotApplicable(`the partner alias of property ${property} is not known (no GET /properties and no booking on it)`);
      const byAlias = await ctx.api.get(`/properties/${encodeURIComponent(alias)}/availability`, { query: { from, to } });
      expectStatus(ctx, byAlias, 200, null, '4.8.Q1', `a snapshot by the partner alias ${alias}`);
      if (JSON.stringify(byAlias.body.data?.data) !== JSON.stringify(byId.body.data?.data)) ctx.fail('AliasDiffers', `by alias: ${JSON.stringify(byAlias.body.data?.data).slice(0, 200)}`, 'the same snapshot as by platform id', '4.8.Q1');
    },
  }),
];
