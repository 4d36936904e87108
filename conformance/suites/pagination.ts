/** GET /bookings paging (§4.4, §6.9, §8): totals, order, limits, polling by updated_since. */
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { listPageProblems } from '../../protocol/list-page.ts';
import fc from 'fast-check';
import { awaitObserved } from '../not-observed.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { bookingBody, createBooking, farStay, writableProperty } from './support.ts';

const suite = 'pagination';

async function walk(ctx: CheckContext, query: Record<string, string | number>, perPage: number): Promise<any[]> {
  const items: any[] = [];
  for (let page = 1, last = 1; page <= last; page++) {
    const res = await ctx.api.get('/bookings', { query: { ...query, page, per_page: perPage } });
    expectStatus(ctx, res, 200, null, '4.4.R1', `GET /bookings page ${page}`);
    if (res.body.data?.pagination !== undefined || !Array.isArray(res.body.data)) ctx.fail('PaginationInsideData', 'data is not an array or carries pagination', 'data is an array; pagination is a top-level sibling', '4.4.R3');
    const p = res.body.pagination;
    if (!p || p.page !== page || p.per_page !== perPage) ctx.fail('WrongPagination', JSON.stringify(p), `top-level pagination with page ${page}, per_page ${perPage}`, '4.4.R2');
    if (res.body.data.length > perPage) ctx.fail('PageTooLong', `${res.body.data.length} items`, `at most per_page = ${perPage}`, '4.4.Q7');
    last = p.last_page;
    items.push(...res.body.data);
    if (page === 1 && p.last_page !== Math.max(1, Math.ceil(p.total / perPage))) ctx.fail('WrongLastPage', `last_page ${p.last_page} for total ${p.total}`, `ceil(total / per_page)`, '4.4.R2');
  }
  return items;
}

function inOrder(items: any[]): boolean {
  return items.every((b, i) => i === 0 || Date.parse(items[i - 1].updated_at) <= Date.parse(b.updated_at));
}

/** §4.4 updated_since (inclusive, spec x-assumption): a returned booking was updated at or after the mark. */
function updatedAtOrAfter(ctx: CheckContext, booking: any, since: string): void {
  if (Date.parse(booking.updated_at) < Date.parse(since)) {
    ctx.fail('UpdatedSinceIgnored', `booking ${booking.id} updated at ${booking.updated_at} returned for updated_since=${since}`, 'only bookings changed since updated_since (updated_at at or after it)', '4.4.Q1');
  }
}

/** `instant` (RFC 3339) as local time at a UTC offset of `minutes`: the same instant, spelled with `+05:30` or `-03:00`. */
function inZone(instant: string, minutes: number): string {
  const local = new Date(Date.parse(instant) + minutes * 60_000).toISOString().slice(0, 23);
  const abs = Math.abs(minutes);
  return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * Waits until the platform's clock is a second past `instant` (timestamps may
 * be whole seconds), as its answers' `Date` header shows it (RFC 9110: the
 * platform's clock, to the second): not this machine's clock, which may be
 * behind the platform's and then did not wait at all (issue 38). Without a
 * `Date` header, a second and a tenth of real time, which the platform's
 * clock also spends.
 */
async function after(ctx: CheckContext, instant: string): Promise<void> {
  const past = Date.parse(instant) + 1000;
  await awaitObserved(`the platform's clock (the Date header of its answers) a second past ${instant}`, async () => {
    const date = (await ctx.api.get('/bookings', { query: { per_page: 1 } })).headers.date;
    if (date === undefined) return new Promise<true>((ok) => setTimeout(() => ok(true), 1100));
    return Date.parse(date) >= past ? true : undefined;
  }, { everyMs: 250 });
}

/** §4.4, §8: the page sizes judged for full pages: the smallest two, and the largest (1 to 200), where a page read with a look-ahead row under a LIMIT 200 comes back one short. */
const FULL_PAGE_SIZES = [1, 2, 200] as const;
/** Creates sent at a time while a list is filled. */
const FILL_PARALLEL = 8;

/**
 * Makes `count` one-night bookings on the target's properties, on nights their availability snapshots show free
 * (§4.8) in a far window the seed picks: one create per free unit-night. Returns how many were created.
 */
async function fill(ctx: CheckContext, count: number): Promise<number> {
  const first = 400 + Math.floor(ctx.random() * 45);
  const slots: { property: number; night: string }[] = [];
  // Three 92-night windows from day 400 to 720 at most (inside the 730-day snapshot horizon, §8), as far as needed.
  for (const from of [0, 92, 184].map((d) => addDays(dateAt(ctx.now()), first + d))) for (const property of ctx.target.properties.filter((p) => !p.archived).map((p) => p.doorloom_id)) {
    if (slots.length >= count) break;
    const res = await ctx.api.get(`/properties/${property}/availability`, { query: { from, to: addDays(from, 91) } });
    const dates: any[] = res.status === 200 && Array.isArray(res.body?.data?.data?.dates) ? res.body.data.data.dates : [];
    for (const d of dates) {
      if (typeof d?.date !== 'string' || d.is_blocked === true || !Number.isInteger(d.available_units)) continue;
      for (let u = 0; u < d.available_units; u++) slots.push({ property, night: d.date });
    }
  }
  let made = 0;
  const queue = slots.slice(0, count);
  const worker = async () => {
    for (let slot = queue.shift(); slot; slot = queue.shift()) {
      const res = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: slot.property }, check_in: slot.night, check_out: addDays(slot.night, 1) }));
      if (res.status === 201) made += 1;
      else if (!(res.status === 409 && res.body?.code === 'UNAVAILABLE')) expectStatus(ctx, res, 201, null, '4.5.R8', 'a create on a night the snapshot showed free (bookings to page through)');
    }
  };
  await Promise.all(Array.from({ length: FILL_PARALLEL }, worker));
  return made;
}

export const paginationChecks = [
  defineCheck({
    id: 'pagination.totals-and-order', title: 'Pages add up to the total, oldest update first (a later change moves a booking last), pagination top-level', suite,
    clauses: ['4.4.R1', '4.4.R2', '4.4.R3', '4.4.R4', '4.4.Q6', '4.4.Q7'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const stays = Array.from({ length: 7 }, () => farStay(ctx, 1));
      const created: any[] = [];
      for (const stay of stays) {
        const res = await createBooking(ctx, bookingBody(ctx, stay));
        expectStatus(ctx, res, 201, null, '4.5.R8', 'a create');
        created.push(res.body.data);
      }
      // §4.4 "by last update time": a later change to the first booking moves it behind the others, whatever its id or
      // the order it was created in (a list in creation or id order shows it first). Where the platform lets a booking change.
      let moved: number | null = null;
      if (ctx.control?.offers('booking.status')) {
        if (ctx.control.offers('clock.advance')) await ctx.control.advanceClock(60);
        else await after(ctx, created.at(-1).updated_at);
        moved = created[0].id as number;
        await ctx.control.setBookingStatus(moved, 'cancelled');
      }
      await ctx.forAll(fc.integer({ min: 1, max: 8 }), async (perPage) => {
        const query = { check_in_from: stays[0]!.check_in, check_in_to: stays.at(-1)!.check_in };
        const items = await walk(ctx, query, perPage);
        const ids = items.map((b) => b.id);
        if (new Set(ids).size !== ids.length) ctx.fail('RepeatedAcrossPages', `ids ${ids.join(', ')}`, 'each booking once', '4.4.R4');
        const first = await ctx.api.get('/bookings', { query: { ...query, per_page: perPage } });
        if (first.body.pagination.total !== items.length) ctx.fail('TotalMismatch', `total ${first.body.pagination.total}, walked ${items.length}`, 'total equals the items over all pages', '4.4.R2');
        if (!inOrder(items)) ctx.fail('NotOldestFirst', items.map((b) => b.updated_at).join(', '), 'ordered by last update, oldest first', '4.4.R4');
        if (moved !== null && items.at(-1)?.id !== moved) {
          ctx.fail('NotOldestFirst', `ids in order ${ids.join(', ')}`, `booking ${moved} last: created first, then changed after every other (ordered by last update, oldest first)`, '4.4.R4');
        }
      });
    },
  }),
  defineCheck({
    id: 'pagination.per-page-limits', title: 'per_page 1 and 200 are accepted and honoured, 0 and 201 refused, omitted is 50; page omitted is 1, page 0 refused; with no filter every booking is listed', suite,
    clauses: ['4.4.Q6', '4.4.Q7', '8.L1', '4.4.R5', '7.E8', '4.4.R1'], level: 'normative', needs: ['read'],
    async run(ctx) {
      for (const bad of [0, 201, -1]) {
        const res = await ctx.api.get('/bookings', { query: { per_page: bad } });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '8.L1', `GET /bookings?per_page=${bad}`);
        if (!res.body.errors?.per_page) ctx.fail('WrongErrorField', JSON.stringify(res.body.errors), 'errors keyed by the field: per_page', '7.C1');
      }
      const zero = await ctx.api.get('/bookings', { query: { page: 0 } });
      expectStatus(ctx, zero, 422, 'VALIDATION_FAILED', '4.4.Q6', 'GET /bookings?page=0');
      // A page size shows only over more bookings than one page of 1: two are made when there are fewer and the run may write.
      const probe = await ctx.api.get('/bookings', { query: { per_page: 1 } });
      expectStatus(ctx, probe, 200, null, '8.L1', 'GET /bookings?per_page=1');
      const made: number[] = [];
      if ((probe.body.pagination?.total ?? 0) < 2 && ctx.target.capabilities.includes('write')) {
        await ctx.stays.prime();
        for (let i = 0; i < 2; i++) {
          const res = await createBooking(ctx, bookingBody(ctx, farStay(ctx, 1)));
          expectStatus(ctx, res, 201, null, '4.5.R8', 'a create (bookings to page through)');
          made.push(res.body.data.id);
        }
      }
      // §4.4, §8: the last accepted sizes and the default, each echoed and honoured: page 1 holds min(per_page, total) bookings.
      for (const perPage of [1, 200, undefined] as const) {
        const what = perPage === undefined ? 'GET /bookings without per_page' : `GET /bookings?per_page=${perPage}`;
        const res = await ctx.api.get('/bookings', { query: perPage === undefined ? {} : { per_page: perPage } });
        expectStatus(ctx, res, 200, null, '8.L1', what);
        // Watch judges every list page in traffic with the same function (protocol/list-page.ts).
        const problems = listPageProblems(perPage === undefined ? {} : { per_page: perPage }, res.body.pagination, Array.isArray(res.body.data) ? res.body.data.length : null, what);
        for (const p of problems) ctx.fail(p.kind, p.received, p.documented, p.clause);
        // §4.4: every filter is optional; with none, the list holds every booking of the integration, the two just made too.
        const listed = new Set((res.body.data ?? []).map((b: any) => b.id));
        const missing = made.filter((id) => !listed.has(id));
        if (perPage === 200 && res.body.pagination?.total <= 200 && missing.length > 0) {
          ctx.fail('BookingNotListed', `${what}: total ${res.body.pagination?.total}, booking(s) ${missing.join(', ')} not listed`, 'with no filter, every booking of the integration, including the ones just created', '4.4.R1');
        }
      }
      // per_page 1 honoured beyond the first page: page 2 is the next booking, one of it.
      const second = await ctx.api.get('/bookings', { query: { per_page: 1, page: 2 } });
      expectStatus(ctx, second, 200, null, '4.4.Q6', 'GET /bookings?per_page=1&page=2');
      const want = Math.min(1, Math.max(0, second.body.pagination.total - 1));
      if (second.body.data.length !== want || (want === 1 && second.body.data[0].id === probe.body.data?.[0]?.id && probe.body.pagination.total >= 2)) {
        ctx.fail('PageSizeNotHonoured', `page 2 of per_page 1: ${JSON.stringify(second.body.data.map((b: any) => b.id))} (total ${second.body.pagination.total})`, `${want} booking, the one after page 1's`, '8.L1');
      }
    },
  }),
  defineCheck({
    id: 'pagination.full-pages-when-more-follow', title: 'A page that more pages follow holds per_page bookings, at per_page 1, 2 and 200: none is skipped between pages', suite,
    clauses: ['8.L1', '4.4.Q6', '4.4.Q7', '4.4.R2'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      const count = async (): Promise<number> => {
        const res = await ctx.api.get('/bookings', { query: { per_page: 1 } });
        expectStatus(ctx, res, 200, null, '4.4.R1', 'GET /bookings?per_page=1');
        return res.body.pagination?.total ?? 0;
      };
      let total = await count();
      // A page after the first needs more bookings than the page size: with writes the list is filled past the largest
      // size (the 199-at-200 breach shows only there). Live, where bookings stay, that is once per integration: a later
      // run finds the list long enough and books nothing here.
      const writes = ctx.target.capabilities.includes('write');
      const want = FULL_PAGE_SIZES.at(-1)! + 1;
      if (writes && total < want) {
        await fill(ctx, want - total);
        total = await count();
      }
      const judged: number[] = [];
      for (const perPage of FULL_PAGE_SIZES) {
        if (total <= perPage) continue;
        judged.push(perPage);
        const first = await ctx.api.get('/bookings', { query: { per_page: perPage, page: 1 } });
        expectStatus(ctx, first, 200, null, '4.4.Q7', `GET /bookings?per_page=${perPage}&page=1`);
        const second = await ctx.api.get('/bookings', { query: { per_page: perPage, page: 2 } });
        expectStatus(ctx, second, 200, null, '4.4.Q6', `GET /bookings?per_page=${perPage}&page=2`);
        const pages = [first, second];
        for (const [i, res] of pages.entries()) {
          const listed = res.body.pagination?.total;
          const rows = Array.isArray(res.body.data) ? res.body.data.length : null;
          // §4.4, §8: per_page is the page size and last_page = ceil(total / per_page), so page k holds bookings
          // (k − 1)·per_page + 1 to k·per_page: every page that more follow is full, and a short one skips a booking.
          const full = Math.max(0, Math.min(perPage, listed - i * perPage));
          if (Number.isInteger(listed) && rows !== full) {
            ctx.fail('ShortPage', `page ${i + 1} at per_page ${perPage} holds ${rows} bookings of total ${listed} (last_page ${res.body.pagination?.last_page})`, `${full}: a page that more pages follow holds per_page bookings, the next page starting after them (§4.4 per_page, §8 list page size)`, '8.L1');
          }
        }
        const ids = pages.flatMap((res) => (Array.isArray(res.body.data) ? res.body.data.map((b: any) => b.id) : []));
        if (new Set(ids).size !== ids.length) ctx.fail('RepeatedAcrossPages', `pages 1 and 2 at per_page ${perPage} list booking(s) ${ids.filter((x, k) => ids.indexOf(x) !== k).join(', ')} twice`, 'each booking once', '4.4.R2');
      }
      if (judged.length === 0) throw new NotApplicable(`the integration lists ${total} booking(s): no page size of ${FULL_PAGE_SIZES.join(', ')} has a page after the first${writes ? '' : ' (with --allow-writes the run makes a few)'}`);
    },
  }),
  defineCheck({
    id: 'pagination.updated-since-filters', title: 'updated_since returns only bookings updated at or after it: an older booking is left out', suite,
    clauses: ['4.4.Q1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const property = writableProperty(ctx);
      const stays = [farStay(ctx, 1), farStay(ctx, 1)];
      const older = await createBooking(ctx, bookingBody(ctx, stays[0]!));
      expectStatus(ctx, older, 201, null, '4.5.R8', 'a valid create');
      let newer = await createBooking(ctx, bookingBody(ctx, stays[1]!));
      expectStatus(ctx, newer, 201, null, '4.5.R8', 'a valid create');
      if (Date.parse(newer.body.data.updated_at) <= Date.parse(older.body.data.updated_at)) {
        // The same instant as far as the platform's timestamps tell: the mark must fall strictly after the older one.
        await after(ctx, older.body.data.updated_at);
        stays.push(farStay(ctx, 1));
        newer = await createBooking(ctx, bookingBody(ctx, stays[2]!));
        expectStatus(ctx, newer, 201, null, '4.5.R8', 'a valid create');
      }
      const mark = newer.body.data.updated_at as string;
      if (Date.parse(mark) <= Date.parse(older.body.data.updated_at)) throw new NotApplicable(`two creates more than a second apart share updated_at ${mark}; no booking is older than the mark`);
      const checkIns = stays.map((s) => s.check_in).sort();
      // Both bookings match every other filter, so only updated_since can tell them apart.
      const items = await walk(ctx, { property_id: property, check_in_from: checkIns[0]!, check_in_to: checkIns.at(-1)!, updated_since: mark }, 50);
      for (const b of items) updatedAtOrAfter(ctx, b, mark);
      if (items.some((b) => b.id === older.body.data.id)) ctx.fail('UpdatedSinceIgnored', `booking ${older.body.data.id} (updated ${older.body.data.updated_at}) returned for updated_since=${mark}`, 'a booking updated before updated_since is left out', '4.4.Q1');
      // §4.4: "any parseable date or timestamp". The same instant in other RFC 3339 spellings selects the same bookings,
      // and a mark two days away either side (a date, or the last second of a day) selects both or neither, whatever
      // the platform's zone. A platform that misreads an offset, a fraction or the 23rd hour answers otherwise.
      const ids = [older.body.data.id, newer.body.data.id];
      const day = (days: number) => new Date(Date.parse(mark) + days * 86_400_000).toISOString().slice(0, 10);
      const spellings: [string, boolean[]][] = [
        [new Date(Date.parse(mark)).toISOString(), [false, true]],
        [inZone(mark, 540), [false, true]],
        [inZone(mark, -180), [false, true]],
        // ISO 8601's other offset forms: +hhmm and +hh.
        [inZone(mark, 540).replace(/:00$/, '00'), [false, true]],
        [inZone(mark, 540).replace(/:00$/, ''), [false, true]],
        [mark.replace(/(:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/, (_m, s: string, f: string | undefined, z: string) => `${s}${f ?? '.'}000${z}`), [false, true]],
        [`${day(-2)}T23:59:59Z`, [true, true]],
        [`${day(-2)}T23:59Z`, [true, true]],
        [`${day(-2)}T23:59:59.999+00:00`, [true, true]],
        [day(-2), [true, true]],
        [`${day(-2)}T12:00:00`, [true, true]],
        [day(2), [false, false]],
        [`${day(2)}T00:00:00Z`, [false, false]],
        // Without an offset the time of day still counts from that day's midnight, in whatever zone it is read: the last
        // second of tomorrow is after both (a reading that subtracts the time of day lands before them).
        [`${day(1)}T23:59:59`, [false, false]],
      ];
      for (const [since, want] of spellings) {
        const found = new Set((await walk(ctx, { property_id: property, check_in_from: checkIns[0]!, check_in_to: checkIns.at(-1)!, updated_since: since }, 50)).map((b) => b.id));
        const got = ids.map((id) => found.has(id));
        if (got.some((g, i) => g !== want[i])) {
          ctx.fail('UpdatedSinceMisread', `updated_since=${since}: the older booking ${got[0] ? 'returned' : 'left out'}, the newer ${got[1] ? 'returned' : 'left out'}`, `older ${want[0] ? 'returned' : 'left out'}, newer ${want[1] ? 'returned' : 'left out'}: the same instant as ${mark} spelled otherwise, or two days away`, '4.4.Q1');
        }
      }
    },
  }),
  defineCheck({
    id: 'pagination.polling-never-misses', title: 'Polling with updated_since = highest updated_at seen never misses a change while bookings change', suite,
    clauses: ['4.4.Q1', '4.4.R4', '6.R9', '2.3.R9', '1.R2'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const stay = farStay(ctx, 1);
      await ctx.forAll(fc.array(fc.constantFrom('create', 'change', 'poll'), { minLength: 3, maxLength: 12 }), async (steps) => {
        const latest = new Map<number, number>();
        const cancelled = new Set<number>();
        const seen = new Map<number, number>();
        let mark: string | undefined;
        const poll = async () => {
          const query: Record<string, string | number> = { check_in_from: stay.check_in, check_in_to: stay.check_in };
          if (mark) query.updated_since = mark;
          const since = mark;
          for (const b of await walk(ctx, query, 3)) {
            if (since) updatedAtOrAfter(ctx, b, since);
            seen.set(b.id, Math.max(seen.get(b.id) ?? 0, b.revision));
            if (!mark || Date.parse(b.updated_at) > Date.parse(mark)) mark = b.updated_at;
          }
        };
        for (const step of [...steps, 'poll']) {
          if (step === 'create') {
            const res = await createBooking(ctx, bookingBody(ctx, stay));
            if (res.status === 201) latest.set(res.body.data.id, res.body.data.revision);
          } else if (step === 'change' && ctx.control?.offers('booking.status') && [...latest.keys()].some((id) => !cancelled.has(id))) {
            const id = [...latest.keys()].find((b) => !cancelled.has(b))!;
            cancelled.add(id);
            const changed = await ctx.control.setBookingStatus(id, 'cancelled');
            // The revision the partner API shows, whatever the control plane answered.
            latest.set(id, typeof changed?.revision === 'number' ? changed.revision : (await ctx.api.get(`/bookings/${id}`)).body?.data?.revision ?? latest.get(id)!);
          } else if (step === 'poll') await poll();
        }
        for (const [id, revision] of latest) {
          if ((seen.get(id) ?? 0) < revision) ctx.fail('PollingMissedChange', `booking ${id} seen at revision ${seen.get(id) ?? 'never'}`, `revision ${revision} seen by polling with updated_since`, '6.R9');
        }
      }, { books: true });
    },
  }),
];
