/**
 * What a create keeps and answers (§2.3, §4.5 rules 5 to 9): the money as
 * sent (total never re-priced, advance and balance, breakdown verbatim), the
 * date boundaries, pinned units never swapped, the 409 body, and the events a
 * success emits. Every check books through the partner API only.
 */
import { conflictBodyProblems } from '../../protocol/conflict-body.ts';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { loadContract } from '../../spec/contract.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { advance, allEvents, bookingBody, createBooking, describe, expectCreated, farStay, horizonStay, ratesEvent, recorded, writableProperty } from './support.ts';
import { NotObserved } from '../not-observed.ts';

const suite = 'booking';

/** Money with paise, so a store that drops or rounds them shows. */
const cents = (n: number) => Math.round(n * 100);

/** A JSON number's text as sign, digits and exponent, so two spellings of one value compare equal at any precision. */
export function numberValue(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return `not a number: ${text}`;
  const digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const exponent = BigInt(m[4] ?? 0) - BigInt((m[3] ?? '').length) + BigInt(digits.length - digits.replace(/0+$/, '').length);
  return `${m[1]}${digits.replace(/0+$/, '')}e${exponent}`;
}

/**
 * Numbers in pricing.breakdown that a double cannot hold unchanged (overflow, underflow, an integer past 2^53), each
 * in a free-form spot of its own: with the field path of §7 where the JSON text sends it.
 */
const UNHOLDABLE = [
  { text: '{"huge":1e400}', path: 'pricing.breakdown.huge', number: '1e400', at: /"huge"\s*:\s*([-+.\deE]+)/ },
  { text: '{"list":[1,-1e-400]}', path: 'pricing.breakdown.list.1', number: '-1e-400', at: /"list"\s*:\s*\[\s*1\s*,\s*([-+.\deE]+)/ },
  { text: '{"wide":9007199254740993}', path: 'pricing.breakdown.wide', number: '9007199254740993', at: /"wide"\s*:\s*([-+.\deE]+)/ },
];

/** The availability date entries of a snapshot window, as the 409 body must quote them (§4.5 rule 7: without units[]). */
async function snapshotDates(ctx: CheckContext, property: number, from: string, to: string): Promise<unknown[]> {
  const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from, to } });
  expectStatus(ctx, res, 200, null, '4.8.R1', 'an availability snapshot');
  return (res.body.data.data.dates as Record<string, unknown>[]).map(({ units: _units, ...rest }) => rest);
}

/** A far night and a property with at least two units free on it (read from the snapshot), or not applicable. */
async function twoFreeUnits(ctx: CheckContext): Promise<{ property: number; night: string }> {
  return freeUnits(ctx, 2);
}

/** A named property and a night with `n` units free on it, or not applicable. */
async function freeUnits(ctx: CheckContext, n: number): Promise<{ property: number; night: string }> {
  const properties = ctx.target.properties.filter((x) => !x.archived).slice(0, 3).map((p) => p.doorloom_id);
  // Nights with n units free on every named property first; then a few nights free on all, checked per property.
  const nights = [ctx.stays.take('far', 1, n), ...Array.from({ length: 4 }, () => farStay(ctx, 1))].filter((x) => x !== null).map((x) => x!.check_in);
  for (const night of nights) {
    for (const property of properties) {
      const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from: night, to: night } });
      const date = res.status === 200 ? res.body?.data?.data?.dates?.[0] : undefined;
      if (date && date.is_blocked !== true && date.available_units >= n) return { property, night };
    }
  }
  throw new NotApplicable(`needs a named property with ${n === 2 ? 'two' : n} units free on one night (tried ${nights.join(', ')})`);
}

/**
 * A change made after `after` whose own event is waited for and recorded: control `rates.set` on a night 21 days ahead
 * where the control plane offers it (no booking), else a one-night create inside the event horizon. Returns what tells
 * that change's own events from the rest. Events are recorded in sequence order (§6.2), so once it is there, whatever
 * was recorded before it is too: the anchor of an absence (issue 38). Not observed when the integration is subscribed
 * to neither rates.changed nor booking.changed (nothing to anchor on).
 */
async function laterChangeEvent(ctx: CheckContext, property: number, after: number): Promise<(row: any) => boolean> {
  const types = (await ctx.api.get('/me')).body?.data?.webhook?.event_types;
  const gets = (t: string) => !Array.isArray(types) || types.includes(t);
  if (ctx.control?.offers('rates.set') && gets('rates.changed')) {
    const night = addDays(dateAt(ctx.now()), 21);
    const row = await ratesEvent(ctx, { property, from: night, to: night }, 4800 + Math.floor(ctx.random() * 100));
    return (r) => r.sequence === row.sequence;
  }
  if (!gets('booking.changed')) throw new NotObserved('that the refused create recorded no event', 'the refusal', 'the integration gets neither rates.changed nor booking.changed, so no later change of the check\'s own anchors the absence');
  const stay = horizonStay(ctx, 1);
  const res = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, ...stay }));
  expectCreated(ctx, res, 'the later create whose event shows what the refusal recorded');
  const id = res.body.data.id;
  await recorded(ctx, `the booking.changed event of booking ${id}, made after the refusal, after sequence ${after}`, () => allEvents(ctx, { include_superseded: true, property_id: property }, after), (rows) => rows.some((r) => r.event.type === 'booking.changed' && r.event.data?.id === id));
  return (r) => (r.event.type === 'booking.changed' && r.event.data?.id === id) || (r.event.type === 'availability.changed' && r.event.window?.from === stay.check_in && r.event.window?.to === stay.check_in);
}

/** The platform time zone spec/openapi.yaml assumes (info.x-assumption-time-zone), as an IANA name. */
function platformZone(): string {
  const info = loadContract().document.info as { 'x-assumption-time-zone'?: { 'x-assumption'?: string } };
  const text = info['x-assumption-time-zone']?.['x-assumption'] ?? '';
  const zone = /\b[A-Z][A-Za-z_]+\/[A-Za-z_]+\b/.exec(text)?.[0];
  if (!zone) throw new Error(`spec/openapi.yaml info.x-assumption-time-zone names no IANA time zone: ${JSON.stringify(text)}`);
  return zone;
}

export const bookingChecks = [
  defineCheck({
    id: 'booking.stored-as-sent', title: 'A create keeps the money as sent: total never re-priced, advance = amount collected, balance = total − advance, breakdown verbatim, origin partner', suite,
    clauses: ['2.3.R1', '2.3.R2', '2.3.R4', '2.3.R6', '2.3.R7', '2.3.R8', '4.5.Q20', '4.5.Q23', '4.5.Q25', '4.2.R1', '4.3.R1', '4.3.Q1', '4.C3', '4.C4', '1.R2'], level: 'normative', needs: ['write'],
    async run(ctx) {
      // Free-form (§4.5): brackets and an escaped quote inside strings, 70 sibling objects with arrays (none nested past 6 levels),
      // a zero and the largest integer a double holds exactly.
      const breakdown = {
        zeta: 1, alpha: { yen: 2, bee: [3, 'x', null, { deep: true }] }, mid: 'é/\u2028', small: 0.1, nil: 0, exact: 9007199254740992,
        said: `a "quote then ${'{['.repeat(40)} and a backslash \\`, items: Array.from({ length: 70 }, (_, n) => ({ n, tags: [] })),
      };
      const body = bookingBody(ctx, {
        // Characters a path segment must carry URL-encoded (§4.3).
        external_booking_id: `${ctx.uniqueId('bk')}/é x?#`,
        units: [{ adults: 2, children: 1 }],
        pricing: { total: 12345.67, currency: 'INR', breakdown },
        payment: { status: 'partial', amount_collected: 2000.5, collected_by: 'partner' },
      });
      // Sent as JSON text of its own: tabs and CR LF between tokens, and numbers spelled as JSON allows (an exponent
      // without a sign, a zero with one, 2^53 exactly): the same values (§4.5: any JSON body; breakdown verbatim).
      const text = JSON.stringify(body, null, '\t').replace(/\n/g, '\r\n')
        .replace(/("zeta":\s*)1\b/, '$11e0').replace(/("yen":\s*)2\b/, '$10.2E+1').replace(/("nil":\s*)0\b/, '$10e12');
      const created = await ctx.api.post('/bookings', { rawBody: text, headers: { 'Idempotency-Key': ctx.uniqueId('key') } });
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      const read = await ctx.api.get(`/bookings/${created.body.data.id}`);
      expectStatus(ctx, read, 200, null, '4.2.R1', 'GET /bookings/{id} of the new booking');
      const byExternal = await ctx.api.get(`/bookings/external/${encodeURIComponent(body.external_booking_id)}`);
      expectStatus(ctx, byExternal, 200, null, '4.3.R1', 'GET /bookings/external/{external_booking_id}, URL-encoded');
      if (byExternal.body.data?.id !== created.body.data.id) ctx.fail('WrongBooking', `booking ${byExternal.body.data?.id}`, `booking ${created.body.data.id} for its URL-encoded external id`, '4.3.Q1');
      // §2.3 property.external_id is the property's partner alias: where the run knows it (in-process: the seeded world's), it is that one.
      const alias = ctx.target.properties.find((p) => p.doorloom_id === body.property.doorloom_id)?.external_id || null;
      for (const [where, b] of [['the 201', created.body.data], ['GET /bookings/{id}', read.body.data], ['GET /bookings/external/{id}', byExternal.body.data]] as const) {
        if (b.property?.doorloom_id !== body.property.doorloom_id || typeof b.property?.external_id !== 'string' || (alias !== null && b.property.external_id !== alias)) ctx.fail('PropertyReferenceWrong', `${where}: property ${JSON.stringify(b.property)}`, `property.doorloom_id ${body.property.doorloom_id} and property.external_id${alias === null ? '' : ` ${JSON.stringify(alias)}, its partner alias`}`, '2.3.R6');
        const p = b.pricing ?? {};
        if (p.total !== 12345.67) ctx.fail('TotalRepriced', `${where}: pricing.total ${p.total}`, 'pricing.total 12345.67, stored as given', '4.5.Q20');
        if (p.currency !== 'INR') ctx.fail('WrongCurrency', `${where}: pricing.currency ${p.currency}`, 'INR', '2.3.R8');
        if (p.advance !== 2000.5) ctx.fail('AdvanceNotCollected', `${where}: pricing.advance ${p.advance}`, 'pricing.advance = payment.amount_collected (2000.5)', '2.3.R2');
        if (typeof p.balance !== 'number' || cents(p.balance) !== cents(p.total) - cents(p.advance)) ctx.fail('BalanceWrong', `${where}: total ${p.total}, advance ${p.advance}, balance ${p.balance}`, 'pricing.balance = total − advance', '2.3.R1');
        if (JSON.stringify(p.breakdown) !== JSON.stringify(breakdown)) ctx.fail('BreakdownChanged', `${where}: breakdown ${JSON.stringify(p.breakdown)}`, `stored verbatim: ${JSON.stringify(breakdown)}`, '4.5.Q23');
        if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(String(b.updated_at))) ctx.fail('TimestampFormat', `${where}: updated_at ${b.updated_at}`, 'ISO 8601 with an offset', '4.C3');
        if (b.check_in !== body.check_in || !/^\d{4}-\d{2}-\d{2}$/.test(String(b.check_out))) ctx.fail('DateFormat', `${where}: check_in ${b.check_in}, check_out ${b.check_out}`, `YYYY-MM-DD dates as sent (${body.check_in})`, '4.C4');
        if (b.origin !== 'partner') ctx.fail('OriginNotPartner', `${where}: origin ${b.origin}`, 'origin partner for a booking created through this API', '2.3.R4');
        if (b.guests?.adults !== 2 || b.guests?.children !== 1 || b.units?.length !== 1) ctx.fail('GuestTotalsWrong', `${where}: guests ${JSON.stringify(b.guests)}, ${b.units?.length} units`, 'guests 2 adults and 1 child in 1 unit, one entry per unit', '2.3.R7');
      }
      // A number the platform cannot keep as sent is refused naming its field (§7), never stored as something else.
      for (const u of UNHOLDABLE) {
        const raw = JSON.stringify(bookingBody(ctx, { pricing: { total: 1000, currency: 'INR', breakdown: { placeholder: true } } })).replace('{"placeholder":true}', u.text);
        const res = await ctx.api.post('/bookings', { rawBody: raw, headers: { 'Idempotency-Key': ctx.uniqueId('key') } });
        // A 409 (no free unit for the stay) judges nothing of the number.
        if (res.status === 409) continue;
        if (res.status === 201) {
          const kept = u.at.exec(res.text)?.[1];
          if (kept === undefined || numberValue(kept) !== numberValue(u.number)) ctx.fail('BreakdownChanged', `breakdown number ${u.number} at ${u.path} answered 201 and came back as ${kept ?? 'something else'}`, 'stored verbatim and returned unchanged, or refused', '4.5.Q23');
        } else if (res.status !== 422 || res.body?.code !== 'VALIDATION_FAILED' || !Object.hasOwn(res.body?.errors ?? {}, u.path)) {
          ctx.fail('BreakdownNumberRefusedElsewhere', `${describe(res)} with errors ${JSON.stringify(res.body?.errors)} for breakdown number ${u.number} at ${u.path}`, `kept as sent (201), or 422 VALIDATION_FAILED keyed by the field path ${u.path}`, '4.5.Q23');
        }
      }
      // The same in a field §4.5 types as a number: pricing.total 1e400 is stored as given (§4.5) or refused naming pricing.total (§7), never kept as another number or null.
      const overflow = JSON.stringify(bookingBody(ctx, { pricing: { total: 424242, currency: 'INR' } })).replace('"total":424242', '"total":1e400');
      const total = await ctx.api.post('/bookings', { rawBody: overflow, headers: { 'Idempotency-Key': ctx.uniqueId('key') } });
      if (total.status === 201) {
        const kept = /"total"\s*:\s*([-+.\deE]+)/.exec(total.text)?.[1];
        if (kept === undefined || numberValue(kept) !== numberValue('1e400')) ctx.fail('TotalRepriced', `pricing.total 1e400 answered 201 and came back as ${kept ?? JSON.stringify(total.body?.data?.pricing?.total)}`, 'stored as given, or refused', '4.5.Q20');
      } else if (total.status !== 409 && (total.status !== 422 || total.body?.code !== 'VALIDATION_FAILED' || !Object.hasOwn(total.body?.errors ?? {}, 'pricing.total'))) {
        ctx.fail('TotalRefusedElsewhere', `${describe(total)} with errors ${JSON.stringify(total.body?.errors)} for pricing.total 1e400`, 'kept as sent (201), or 422 VALIDATION_FAILED keyed by the field path pricing.total', '4.5.Q20');
      }
    },
  }),
  defineCheck({
    id: 'booking.balance-on-every-read', title: 'Every booking read shows pricing.balance = total − advance', suite,
    clauses: ['2.3.R1'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      let bookings: any[] = (await ctx.api.get('/bookings', { query: { per_page: 200 } })).body?.data ?? [];
      if (bookings.length === 0 && ctx.target.capabilities.includes('write')) {
        await createBooking(ctx, bookingBody(ctx, { payment: { amount_collected: 250.25 } }));
        bookings = (await ctx.api.get('/bookings', { query: { per_page: 200 } })).body?.data ?? [];
      }
      if (bookings.length === 0) throw new NotApplicable('the integration has no bookings and this run may not create one (--allow-writes)');
      for (const b of bookings) {
        const p = b.pricing ?? {};
        if (typeof p.balance !== 'number' || cents(p.balance) !== cents(p.total) - cents(p.advance)) ctx.fail('BalanceWrong', `booking ${b.id}: total ${p.total}, advance ${p.advance}, balance ${p.balance}`, 'pricing.balance = total − advance', '2.3.R1');
      }
    },
  }),
  defineCheck({
    id: 'booking.check-in-boundaries', title: 'check_in yesterday is a valid date and the day before is refused on check_in; check_out must follow check_in', suite,
    clauses: ['4.5.Q12', '4.5.Q13', '2.3.R10', '8.L9'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const today = dateAt(ctx.now());
      const yesterday = addDays(today, -1);
      const accepted = await createBooking(ctx, bookingBody(ctx, { check_in: yesterday, check_out: today }));
      // 201, or 409 when the night is taken: either way the date itself was accepted.
      if (accepted.status !== 201 && !(accepted.status === 409 && accepted.body?.code === 'UNAVAILABLE')) {
        ctx.fail('YesterdayRefused', `${describe(accepted)} for check_in ${yesterday} (yesterday): ${JSON.stringify(accepted.body?.errors ?? {})}`, 'check_in may be yesterday', '4.5.Q12');
      }
      const before = addDays(yesterday, -1);
      const early = await createBooking(ctx, bookingBody(ctx, { check_in: before, check_out: today }));
      expectStatus(ctx, early, 422, 'VALIDATION_FAILED', '4.5.Q12', `check_in ${before} (the day before yesterday)`);
      if (!early.body?.errors?.check_in) ctx.fail('WrongErrorField', JSON.stringify(early.body?.errors), 'reported against check_in', '4.5.Q12');
      const stay = farStay(ctx, 1);
      const empty = await createBooking(ctx, bookingBody(ctx, { check_in: stay.check_in, check_out: stay.check_in }));
      expectStatus(ctx, empty, 422, 'VALIDATION_FAILED', '4.5.Q13', 'check_out equal to check_in (no night)');
      // §4.5: "after check_in" is check_out's rule, so the refusal names check_out (§7: errors keyed by field path).
      if (!empty.body?.errors?.check_out) ctx.fail('WrongErrorField', JSON.stringify(empty.body?.errors), 'reported against check_out', '4.5.Q13');
    },
  }),
  defineCheck({
    id: 'booking.calendar-in-platform-zone', title: 'Yesterday and a bare updated_since date are the platform zone\'s (spec x-assumption-time-zone): judged around its midnight, while its date and UTC\'s differ', suite,
    clauses: ['4.5.Q12', '4.4.Q1'], level: 'assumption', needs: ['write', control('clock.advance')],
    async run(ctx) {
      const zone = platformZone();
      // The zone's calendar as Intl reckons it, never the suite's own date arithmetic (which the platform may share).
      const format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
      const dateIn = (ms: number) => format.format(ms);
      await advance(ctx, 0);
      // The zone's next midnight at least an hour ahead, to the minute.
      const start = Math.floor(ctx.now() / 60_000) * 60_000 + 3_600_000;
      let midnight = start;
      while (dateIn(midnight) === dateIn(midnight - 60_000)) midnight += 60_000;
      const property = writableProperty(ctx);
      // Half an hour before it one booking is written, half an hour after it another.
      await advance(ctx, Math.ceil((midnight - 30 * 60_000 - ctx.now()) / 1000));
      const lateStay = farStay(ctx, 1);
      const late = await createBooking(ctx, bookingBody(ctx, lateStay));
      expectCreated(ctx, late, 'a create half an hour before the platform zone\'s midnight');
      await advance(ctx, Math.ceil((midnight + 30 * 60_000 - ctx.now()) / 1000));
      const earlyStay = farStay(ctx, 1);
      const early = await createBooking(ctx, bookingBody(ctx, earlyStay));
      expectCreated(ctx, early, 'a create half an hour after the platform zone\'s midnight');
      const today = dateIn(ctx.now());
      // §4.4: a bare date is midnight of that date in the platform zone (spec x-assumption on updated_since).
      const checkIns = [lateStay.check_in, earlyStay.check_in].sort();
      const found = new Set<number>();
      for (let page = 1, last = 1; page <= last; page++) {
        const res = await ctx.api.get('/bookings', { query: { updated_since: today, property_id: property, check_in_from: checkIns[0]!, check_in_to: checkIns[1]!, per_page: 200, page } });
        expectStatus(ctx, res, 200, null, '4.4.Q1', `GET /bookings?updated_since=${today}`);
        for (const b of res.body?.data ?? []) found.add(b.id);
        last = res.body?.pagination?.last_page ?? 1;
      }
      const got = [late.body.data.id, early.body.data.id].map((id: number) => found.has(id));
      if (got[0] || !got[1]) {
        ctx.fail('UpdatedSinceDateNotPlatformMidnight', `updated_since=${today}: the booking updated at ${late.body.data.updated_at} ${got[0] ? 'returned' : 'left out'}, the one updated at ${early.body.data.updated_at} ${got[1] ? 'returned' : 'left out'}`, `a bare date is its midnight in ${zone}: the first left out, the second returned`, '4.4.Q1');
      }
      // §4.5: check_in not before yesterday, yesterday being the platform zone's, told apart from UTC's while the two dates differ.
      if (today === new Date(ctx.now()).toISOString().slice(0, 10)) return;
      const yesterday = addDays(today, -1);
      const accepted = await createBooking(ctx, bookingBody(ctx, { check_in: yesterday, check_out: today }));
      if (accepted.status !== 201 && !(accepted.status === 409 && accepted.body?.code === 'UNAVAILABLE')) {
        ctx.fail('YesterdayRefused', `${describe(accepted)} for check_in ${yesterday}, yesterday in ${zone} at ${new Date(ctx.now()).toISOString()}: ${JSON.stringify(accepted.body?.errors ?? {})}`, 'check_in may be yesterday in the platform zone', '4.5.Q12');
      }
      const before = addDays(yesterday, -1);
      const refused = await createBooking(ctx, bookingBody(ctx, { check_in: before, check_out: yesterday }));
      expectStatus(ctx, refused, 422, 'VALIDATION_FAILED', '4.5.Q12', `check_in ${before}, the day before yesterday in ${zone} at ${new Date(ctx.now()).toISOString()}`);
    },
  }),
  defineCheck({
    id: 'booking.maximum-stay', title: 'A stay of the platform maximum is accepted; one night more is refused on check_out and writes nothing', suite,
    clauses: ['4.5.Q14'], level: 'assumption', needs: ['write'],
    async run(ctx) {
      // The maximum is not shown (§8); the contract's assumed value (x-max-stay-nights) is what is tried.
      const max = loadContract().schema('BookingCreateRequest')['x-max-stay-nights'] as number;
      const longer = bookingBody(ctx, farStay(ctx, max + 1));
      const refused = await createBooking(ctx, longer);
      if (refused.status === 409) throw new NotApplicable(`a ${max + 1}-night stay answered 409 UNAVAILABLE: the nights were not free, so the length was not judged`);
      expectStatus(ctx, refused, 422, 'VALIDATION_FAILED', '4.5.Q14', `a ${max + 1}-night stay (the maximum is ${max})`);
      if (!refused.body?.errors?.check_out || refused.body.errors.check_in) ctx.fail('WrongErrorField', JSON.stringify(refused.body?.errors), 'a stay over the maximum is reported against check_out', '4.5.Q14');
      const kept = await ctx.api.get(`/bookings/external/${encodeURIComponent(longer.external_booking_id)}`);
      expectStatus(ctx, kept, 404, 'NOT_FOUND', '4.5.Q14', 'the refused stay read back by its external id');
      // The snapshot shows how many units are free per night, not which: in a world earlier creates booked into, every night
      // may have one free and still no one unit be free all through (409, rightly). Nights on which every active unit of the
      // property is free are asked first, so the length is judged wherever the window has them.
      const property = writableProperty(ctx);
      const units = ctx.target.properties.find((p) => p.doorloom_id === property)?.units.filter((u) => u.active).length ?? 1;
      const accepted = await createBooking(ctx, bookingBody(ctx, { ...(ctx.stays.take('far', max, Math.max(1, units)) ?? farStay(ctx, max)) }));
      if (accepted.status === 409) throw new NotApplicable(`a ${max}-night stay on nights the snapshot showed free answered 409 UNAVAILABLE`);
      expectStatus(ctx, accepted, 201, null, '4.5.Q14', `a ${max}-night stay (the maximum)`);
    },
  }),
  defineCheck({
    id: 'booking.pinned-never-swapped', title: 'A free unit is allocated when none is pinned; a pinned unit that is taken is 409 UNAVAILABLE, never swapped, nothing written, even beside an unpinned entry; each unit booked holds a unit of its own, one unit pinned twice is refused, and a stay no one unit is free for is 409', suite,
    clauses: ['4.5.R6', '4.5.R6a', '4.5.R6b', '4.5.Q6', '4.5.Q5', '4.5.R7'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const { property, night } = await twoFreeUnits(ctx);
      const entry = async () => (await snapshotDates(ctx, property, night, night) as any[])[0];
      const sellable = async () => (await entry())?.available_units as number;
      // A cap on the night makes what a booking takes from available_units a reading of units_cap (§2.4): judged uncapped only.
      const uncapped = (await entry())?.units_cap === null;
      let left = await sellable();
      const stay = { property: { doorloom_id: property }, check_in: night, check_out: addDays(night, 1) };
      const first = await createBooking(ctx, bookingBody(ctx, { ...stay, units: [{ adults: 1 }] }));
      expectStatus(ctx, first, 201, null, '4.5.R6b', 'an unpinned create on a night with two free units');
      const unit = first.body.data.units?.[0]?.inventory_id;
      if (!Number.isInteger(unit)) throw new NotApplicable(`the booking's units[] does not show the allocated inventory_id (${JSON.stringify(first.body.data.units)})`);
      const pinnedBody = bookingBody(ctx, { ...stay, units: [{ adults: 1, inventory_id: unit }] });
      const pinned = await createBooking(ctx, pinnedBody);
      if (pinned.status === 201) ctx.fail('PinnedUnitSwapped', `201 with unit ${JSON.stringify(pinned.body.data.units)} for a create pinning unit ${unit}, which booking ${first.body.data.id} holds`, '409 UNAVAILABLE: a pinned unit that is taken is never swapped', '4.5.R6');
      expectStatus(ctx, pinned, 409, 'UNAVAILABLE', '4.5.R6', `a create pinning the taken unit ${unit}`);
      const written = await ctx.api.get(`/bookings/external/${encodeURIComponent(pinnedBody.external_booking_id)}`);
      if (written.status !== 404) ctx.fail('RefusalWrote', `${describe(written)} for the refused create's external id`, 'nothing written on 409', '4.5.R6');
      left -= 1;
      // Each unit booked is a unit held (§3.2), pinned or allocated: the night's sellable units drop by one per unit, never
      // less (an allocation that hands out the pinned unit, or one held on some night of the stay, books a unit twice).
      const drop = async (what: string, units: number) => {
        const now = await sellable();
        if (uncapped && now !== left - units) ctx.fail('UnitBookedTwice', `${night}: available_units ${now} after ${what}`, `${left - units}: ${left} before, less the ${units} unit(s) it booked, each a unit of its own`, '4.5.R6b');
        left = now;
      };
      await drop('the unpinned create', 0);
      const other = ctx.target.properties.find((p) => p.doorloom_id === property)?.units.find((u) => u.active && u.inventory_id !== unit)?.inventory_id;
      if (other !== undefined && left >= 3) {
        const both = await createBooking(ctx, bookingBody(ctx, { ...stay, units: [{ adults: 1, inventory_id: other }, { adults: 1 }] }));
        if (both.status === 201) await drop(`a create pinning unit ${other} with one unit unpinned`, 2);
      }
      if (left >= 1) {
        const longer = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: addDays(night, -1), check_out: addDays(night, 1), units: [{ adults: 1 }] }));
        if (longer.status === 201) await drop(`a two-night create ending on ${night}`, 1);
      }
      // A free unit pinned is the unit booked, so pinning it again on the same night finds it taken (rule 6).
      if (other !== undefined) {
        const next = { property: { doorloom_id: property }, check_in: addDays(night, 1), check_out: addDays(night, 2), units: [{ adults: 1, inventory_id: other }] };
        const pinnedFree = await createBooking(ctx, bookingBody(ctx, next));
        if (pinnedFree.status === 201) {
          const again = await createBooking(ctx, bookingBody(ctx, next));
          if (again.status === 201) ctx.fail('PinnedUnitSwapped', `201 pinning unit ${other} on ${next.check_in}, which booking ${pinnedFree.body.data.id} pinned there`, '409 UNAVAILABLE: the pinned unit is the one booked, and taken', '4.5.R6');
        }
      }
      await refusalsBesideFreeUnits(ctx, property, night, unit);
    },
  }),
  defineCheck({
    id: 'booking.conflict-body', title: 'The 409 UNAVAILABLE body names the property, the window up to the last night and the availability dates as a snapshot shows them; nothing is written', suite,
    clauses: ['4.5.R7', '4.5.R7a', '4.5.R7b', '7.E6'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const property = writableProperty(ctx);
      // Inside the event horizon: a refusal that wrote would show as an event there (§2.1 horizon_days).
      const fill = await ctx.stays.fillable(property, 20, 'horizon');
      if (!fill) throw new NotApplicable(`no night within the event horizon on property ${property} with 1 to 20 free units (availability snapshot)`);
      const latest = async () => (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      const beforeHeld = await latest();
      const held = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: fill.night, check_out: addDays(fill.night, 1), units: Array.from({ length: fill.available }, () => ({ adults: 1 })) }));
      expectStatus(ctx, held, 201, null, '4.5.R8', `a create of the ${fill.available} unit(s) free on ${fill.night}`);
      // The held create's own events (§4.5 rule 9) first, so a platform that records them a moment later is not blamed for
      // the refusal's: waited for until they are there (issue 38: not 10 s, then on), of the types the integration gets.
      const subscribed = (await ctx.api.get('/me')).body?.data?.webhook?.event_types;
      const expected = ['availability.changed', 'booking.changed'].filter((t) => !Array.isArray(subscribed) || subscribed.includes(t));
      const heldId = held.body.data.id;
      const own = (r: any) => (r.event.type === 'booking.changed' ? r.event.data?.id === heldId : r.event.type === 'availability.changed');
      await recorded(ctx, `the ${expected.join(' and ')} events of the create holding ${fill.night} on property ${property} (booking ${heldId}), after sequence ${beforeHeld}`,
        () => allEvents(ctx, { property_id: property, include_superseded: true }, beforeHeld),
        (rows) => expected.every((t) => rows.some((r) => r.event.type === t && own(r))), 'the refusal is judged by the events that follow them');
      const checkIn = addDays(fill.night, -1);
      const checkOut = addDays(fill.night, 1);
      const lastNight = addDays(checkOut, -1);
      const before = await snapshotDates(ctx, property, checkIn, lastNight);
      const mark = await latest();
      const refusedBody = bookingBody(ctx, { property: { doorloom_id: property }, check_in: checkIn, check_out: checkOut });
      const refused = await createBooking(ctx, refusedBody);
      expectStatus(ctx, refused, 409, 'UNAVAILABLE', '4.5.R7', 'a two-night create over a full night');
      const a = refused.body?.errors?.availability ?? {};
      // Watch judges the same from traffic (protocol/conflict-body.ts).
      for (const p of conflictBodyProblems(refusedBody, a)) ctx.fail(p.kind, p.received, p.documented, p.clause);
      const want = await snapshotDates(ctx, property, checkIn, lastNight);
      if (JSON.stringify(a.dates) !== JSON.stringify(want)) ctx.fail('ConflictDatesDiffer', `dates ${JSON.stringify(a.dates)}`, `the availability payload without units[]: ${JSON.stringify(want)}`, '4.5.R7b');
      // §4.5 rule 7, §7: nothing written: no booking under the refused id, availability as before, no event for the property.
      const written = await ctx.api.get(`/bookings/external/${encodeURIComponent(refusedBody.external_booking_id)}`);
      if (written.status !== 404) ctx.fail('RefusalWrote', `${describe(written)} reading the refused create's external_booking_id`, '404 NOT_FOUND: nothing written on 409 UNAVAILABLE', '7.E6');
      if (JSON.stringify(want) !== JSON.stringify(before)) ctx.fail('RefusalChangedAvailability', `after the 409: ${JSON.stringify(want)}`, `availability unchanged by a refused create: ${JSON.stringify(before)}`, '4.5.R7');
      // "No event" is an absence: proven once a later change's own event is there (issue 38: not by reading at once, when a
      // platform that records a moment later shows nothing yet). Events are recorded in sequence order (§6.2), so what the
      // refusal recorded is there by then.
      const anchor = await laterChangeEvent(ctx, property, mark);
      const events = (await allEvents(ctx, { include_superseded: true }, mark)).filter((r) => r.event.property?.doorloom_id === property && !anchor(r));
      if (events.length > 0) ctx.fail('RefusalEmitted', `events after the 409: ${events.map((r) => `${r.sequence} ${r.event.type} ${r.event.window?.from}..${r.event.window?.to}`).join(', ')}`, 'no event for the property: nothing written on 409 UNAVAILABLE', '4.5.R7');
    },
  }),
  defineCheck({
    id: 'booking.success-emits-events', title: 'A create emits availability.changed for the property and booking.changed with origin partner', suite,
    clauses: ['4.5.R9', '2.3.R4', '3.2.T1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const after = (await ctx.api.get('/events', { query: { limit: 1 } })).body?.cursor?.latest_sequence ?? 0;
      // Inside the integration's horizon: availability events are windowed to it (§6).
      const body = bookingBody(ctx, horizonStay(ctx, 1));
      const created = await createBooking(ctx, body);
      expectStatus(ctx, created, 201, null, '4.5.R8', 'a valid create');
      if (created.body.data.status !== 'confirmed') ctx.fail('NotConfirmed', `status ${created.body.data.status}`, 'confirmed when status is omitted', '3.2.T1');
      const rows = await allEvents(ctx, { include_superseded: true }, after);
      const lastNight = addDays(body.check_out, -1);
      const availability = rows.find((r) => r.event.type === 'availability.changed' && r.event.property?.doorloom_id === body.property.doorloom_id
        && r.event.window?.from <= body.check_in && r.event.window?.to >= lastNight);
      if (!availability) ctx.fail('NoAvailabilityEvent', `events after ${after}: ${rows.map((r) => r.event.type).join(', ') || 'none'}`, `availability.changed for property ${body.property.doorloom_id} covering ${body.check_in}..${lastNight}`, '4.5.R9');
      const booking = rows.find((r) => r.event.type === 'booking.changed' && r.event.data?.id === created.body.data.id);
      if (!booking) ctx.fail('NoBookingEvent', `events after ${after}: ${rows.map((r) => r.event.type).join(', ') || 'none'}`, `booking.changed for booking ${created.body.data.id}`, '4.5.R9');
      if (booking.event.data.origin !== 'partner') ctx.fail('OriginNotPartner', `booking.changed origin ${booking.event.data.origin}`, 'booking.changed with origin partner', '4.5.R9');
    },
  }),
  defineCheck({
    id: 'booking.pricing-split', title: 'Unit prices: every stay_price used as sent; one missing, the total split evenly', suite,
    clauses: ['4.5.R5', '4.5.R5a', '4.5.Q11'], level: 'assumption', needs: ['write'],
    async run(ctx) {
      const { property, night } = await twoFreeUnits(ctx);
      const stay = { property: { doorloom_id: property }, check_in: night, check_out: addDays(night, 1) };
      const given = await createBooking(ctx, bookingBody(ctx, { ...stay, units: [{ adults: 1, stay_price: 700.25 }, { adults: 1, stay_price: 299.75 }], pricing: { total: 1000 } }));
      if (given.status === 409) throw new NotApplicable(`two units no longer free on ${night}`);
      expectStatus(ctx, given, 201, null, '4.5.R8', 'a create with every stay_price');
      const prices = (given.body.data.units ?? []).map((u: any) => u.stay_price);
      if (JSON.stringify(prices) !== JSON.stringify([700.25, 299.75])) ctx.fail('StayPriceIgnored', `units[].stay_price ${JSON.stringify(prices)}`, '[700.25, 299.75] as sent', '4.5.R5');
      const other = await twoFreeUnits(ctx);
      const split = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: other.property }, check_in: other.night, check_out: addDays(other.night, 1), units: [{ adults: 1, stay_price: 900 }, { adults: 1 }], pricing: { total: 1000.01 } }));
      if (split.status === 409) throw new NotApplicable(`two units no longer free on ${other.night}`);
      expectStatus(ctx, split, 201, null, '4.5.R8', 'a create with one stay_price missing');
      const even = (split.body.data.units ?? []).map((u: any) => u.stay_price);
      // A total of an odd number of paise: split evenly, the two parts are within a paisa of each other and add up to it.
      const paise = even.map((p: unknown) => (typeof p === 'number' ? cents(p) : NaN));
      if (paise.length !== 2 || paise[0] + paise[1] !== 100_001 || Math.abs(paise[0] - paise[1]) > 1) ctx.fail('NotSplitEvenly', `units[].stay_price ${JSON.stringify(even)} for a total of 1000.01`, 'the total split evenly when any stay_price is missing: two parts a paisa apart at most, adding up to 1000.01', '4.5.R5a');
      // From three units a split can go wrong that two units hide: a remainder given to every unit but one still adds
      // up over two units (1000.01 as 500.01 + 500.00 either way), not over three (100.03 as 33.35 + 33.35 + 33.34).
      const three = await freeUnits(ctx, 3);
      const split3 = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: three.property }, check_in: three.night, check_out: addDays(three.night, 1), units: [{ adults: 1 }, { adults: 1 }, { adults: 1 }], pricing: { total: 100.03 } }));
      if (split3.status === 409) throw new NotApplicable(`three units no longer free on ${three.night}`);
      expectStatus(ctx, split3, 201, null, '4.5.R8', 'a create of three units with no stay_price');
      const parts = (split3.body.data.units ?? []).map((u: any) => u.stay_price);
      const paise3 = parts.map((p: unknown) => (typeof p === 'number' ? cents(p) : NaN));
      const sum3 = paise3.reduce((a: number, b: number) => a + b, 0);
      if (paise3.length !== 3 || sum3 !== 10_003 || Math.max(...paise3) - Math.min(...paise3) > 1) ctx.fail('NotSplitEvenly', `units[].stay_price ${JSON.stringify(parts)} for a total of 100.03 over three units`, 'the total split evenly when no stay_price is given: three parts a paisa apart at most, adding up to 100.03', '4.5.R5a');
    },
  }),
];

/**
 * §4.5 rules 6 and 7 where other units are free: a taken pinned unit beside an unpinned entry refuses the whole create;
 * one unit pinned twice is not two units booked; a stay no single unit is free for is refused although every night of
 * it has a free unit ("no free unit for the whole stay").
 */
async function refusalsBesideFreeUnits(ctx: CheckContext, property: number, night: string, taken: number): Promise<void> {
  const described = ctx.target.properties.find((p) => p.doorloom_id === property);
  const active = (described?.units ?? []).filter((u) => u.active).map((u) => u.inventory_id);
  // Rule 6: the pinned unit is taken, so nothing is booked, although a free unit could take the unpinned entry. On a
  // night of its own where the units are free, so the unpinned entry finds one (the taken unit is pinned there first).
  const own = addDays(night, 9);
  const pin = active.find((id) => id !== taken) ?? taken;
  const first = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: own, check_out: addDays(own, 1), units: [{ adults: 1, inventory_id: pin }] }));
  const mixedNight = first.status === 201 ? own : night;
  const mixedUnit = first.status === 201 ? pin : taken;
  const mixedBody = bookingBody(ctx, { property: { doorloom_id: property }, check_in: mixedNight, check_out: addDays(mixedNight, 1), units: [{ adults: 1, inventory_id: mixedUnit }, { adults: 1 }] });
  const mixed = await createBooking(ctx, mixedBody);
  if (mixed.status === 201) ctx.fail('PinnedUnitSwapped', `201 with units ${JSON.stringify(mixed.body.data.units)} for a create pinning unit ${mixedUnit}, taken on ${mixedNight}, beside one unit unpinned`, '409 UNAVAILABLE: a pinned unit that is taken is never swapped, and nothing is written', '4.5.R6');
  expectStatus(ctx, mixed, 409, 'UNAVAILABLE', '4.5.R6', `a create pinning unit ${mixedUnit}, taken on ${mixedNight}, beside one unit unpinned`);
  const written = await ctx.api.get(`/bookings/external/${encodeURIComponent(mixedBody.external_booking_id)}`);
  if (written.status !== 404) ctx.fail('RefusalWrote', `${describe(written)} for the refused create's external id`, 'nothing written on 409', '4.5.R6');
  // §4.5 units: one entry per unit booked, and inventory_id pins a platform unit: one unit pinned by two entries is not
  // two units booked (refused, 409 or 422, whichever the platform reads it as; never a booking).
  const free = active.find((id) => id !== taken);
  if (free !== undefined) {
    const twiceBody = bookingBody(ctx, { property: { doorloom_id: property }, check_in: addDays(night, 3), check_out: addDays(night, 4), units: [{ adults: 1, inventory_id: free }, { adults: 1, inventory_id: free }] });
    const twice = await createBooking(ctx, twiceBody);
    if (twice.status < 400 || twice.status >= 500) ctx.fail('UnitBookedTwice', `${describe(twice)} for a create whose two entries both pin unit ${free}`, 'a refusal (409 or 422): each entry of units is one unit booked, and one unit cannot be two', '4.5.Q5');
  }
  // Rule 7, "for the whole stay": every active unit held on one of two nights, each night with a unit free. Only where
  // every active unit is known (the snapshot's total_units agrees), so no unit the check cannot see is free all stay.
  const [one, two] = [addDays(night, 6), addDays(night, 7)];
  const snap = await ctx.api.get(`/properties/${property}/availability`, { query: { from: one, to: two } });
  const dates = snap.status === 200 ? snap.body?.data?.data?.dates : undefined;
  if (active.length < 2 || active.length > 4 || snap.body?.data?.data?.total_units !== active.length || !Array.isArray(dates) || dates.some((d: any) => d.available_units !== active.length)) return;
  const holds = active.map((id, i) => ({ id, on: i === 0 ? two : one }));
  for (const h of holds) {
    const held = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: h.on, check_out: addDays(h.on, 1), units: [{ adults: 1, inventory_id: h.id }] }));
    if (held.status !== 201) return;
  }
  const across = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: property }, check_in: one, check_out: addDays(two, 1), units: [{ adults: 1 }] }));
  if (across.status === 201) ctx.fail('StaySplitAcrossUnits', `201 with units ${JSON.stringify(across.body.data.units)} for ${one} to ${two}, with unit ${holds[0]!.id} held on ${two} and the other units on ${one}`, '409 UNAVAILABLE: no unit is free for the whole stay', '4.5.R7');
  expectStatus(ctx, across, 409, 'UNAVAILABLE', '4.5.R7', `an unpinned create of ${one} to ${two}, no unit free on both nights`);
}
