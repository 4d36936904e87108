/**
 * Schema (§2, §4, §7): every response of every check is validated against
 * spec/openapi.yaml by the client; these checks make sure every operation
 * is exercised at least once, successes and errors alike.
 */
import { addDays } from '../../protocol/calendar.ts';
import { defineCheck, expectStatus, type CheckContext } from '../check.ts';
import { horizonStay, knownProperty, writableProperty } from './support.ts';

const suite = 'schema';

/** §2.4: one entry per night in order, sellable units within the property's, a cap never exceeded, the block fields' types. */
export function judgeDateEntries(ctx: CheckContext, payload: { total_units: number; dates: any[] }, from: string): void {
  payload.dates.forEach((d, i) => {
    const night = addDays(from, i);
    if (d.date !== night) ctx.fail('NotOneEntryPerNight', `entry ${i} is ${d.date}`, `${night}: one entry per night of the window, in order`, '2.4.R1');
    if (!Number.isInteger(d.available_units) || d.available_units < 0 || d.available_units > d.total_units) {
      ctx.fail('SellableOutOfRange', `${d.date}: available_units ${d.available_units} of total_units ${d.total_units}`, 'sellable units that night, 0 to total_units', '2.4.R2');
    }
    if (d.total_units !== payload.total_units) ctx.fail('TotalUnitsDiffer', `${d.date}: total_units ${d.total_units}, the payload's total_units ${payload.total_units}`, 'total_units: the units at the property', '2.4.R2');
    if (d.units_cap !== null && (!Number.isInteger(d.units_cap) || d.available_units > d.units_cap)) {
      ctx.fail('CapExceeded', `${d.date}: available_units ${d.available_units} with units_cap ${d.units_cap}`, 'units_cap caps the sellable units of the night', '2.4.R3');
    }
    if (typeof d.is_blocked !== 'boolean' || (d.block_scope !== null && typeof d.block_scope !== 'string')) {
      ctx.fail('BlockFieldsWrong', `${d.date}: is_blocked ${JSON.stringify(d.is_blocked)}, block_scope ${JSON.stringify(d.block_scope)}`, 'is_blocked a boolean, block_scope a string or null', '2.4.R4');
    }
  });
}

export const schemaChecks = [
  defineCheck({
    id: 'schema.read-operations-conform', title: 'Every read operation answers with a documented status and body', suite,
    clauses: ['4.R2', '4.C5', '4.1.R3', '4.4.R1', '4.6.R1', '4.6.R2', '4.8.R1', '2.7.R1', '2.7.R2', '9.R1', '9.R1a', '1.C3', '4.C2', '1.R5', '4.C1', '2.1.R9', '2.4.R1', '2.4.R2', '2.4.R4'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const me = await ctx.api.get('/me');
      expectStatus(ctx, me, 200, null, '4.1.R3', 'GET /me');
      if (me.body.data.api_version !== '2026-09') ctx.fail('WrongApiVersion', String(me.body.data.api_version), '2026-09', '9.R1a');
      const brand = me.body.data.brand;
      if (brand === null || typeof brand !== 'object' || Array.isArray(brand) || !Number.isInteger(brand.id) || typeof brand.name !== 'string' || brand.name === '') ctx.fail('NotOneBrand', JSON.stringify(brand), 'brand: the one brand the integration belongs to ({id, name}: its name, not an empty string)', '1.C3');
      if (!/^application\/json\b/.test(me.headers['content-type'] ?? '')) ctx.fail('NotJson', `Content-Type ${me.headers['content-type']}`, 'application/json bodies', '4.C2');
      // §1 point 5: the record shows status, webhook health, the sequence watermark and coverage.
      const record = me.body.data;
      const shown = { status: record.status, 'webhook.consecutive_failures': record.webhook?.consecutive_failures, 'webhook.undelivered_events': record.webhook?.undelivered_events, 'webhook.last_sequence': record.webhook?.last_sequence, covered_properties: record.covered_properties };
      const missing = Object.entries(shown).filter(([, v]) => v === undefined).map(([k]) => k);
      if (missing.length > 0) ctx.fail('RecordIncomplete', `GET /me data without ${missing.join(', ')}`, 'the integration record: status, webhook health, sequence watermark, coverage', '1.R5');
      if (!['active', 'paused', 'disabled'].includes(record.status)) ctx.fail('UnknownStatus', `status ${JSON.stringify(record.status)}`, 'active, paused or disabled', '2.1.R9');
      // §4: every path is relative to {base_url}/api/integrations/v1; the target answered /me there, or it is elsewhere.
      const root = new URL(ctx.target.baseUrl).pathname.replace(/\/$/, '');
      if (!root.endsWith('/api/integrations/v1')) ctx.fail('BasePath', `the API answers under ${root || '/'}`, 'all paths relative to {base_url}/api/integrations/v1', '4.C1');
      expectStatus(ctx, await ctx.api.get('/bookings'), 200, null, '4.4.R1', 'GET /bookings');
      expectStatus(ctx, await ctx.api.get('/events', { query: { limit: 5 } }), 200, null, '4.6.R1', 'GET /events');
      // A live run that names no property still checks everything else.
      const property = knownProperty(ctx);
      if (property === null) return;
      const stay = horizonStay(ctx, 3);
      const snap = await ctx.api.get(`/properties/${property}/availability`, { query: { from: stay.check_in, to: stay.check_out } });
      expectStatus(ctx, snap, 200, null, '4.8.R1', 'GET availability snapshot');
      if (snap.body.data?.data?.dates?.length !== 4) ctx.fail('WrongWindow', `${snap.body.data?.data?.dates?.length} dates`, '4 nights for an inclusive window of 4 days', '2.7.R2');
      judgeDateEntries(ctx, snap.body.data.data, stay.check_in);
    },
  }),
  defineCheck({
    id: 'schema.assumed-operations-conform', title: 'Rates and restrictions snapshots and the property list answer with the assumed shapes; an unknown path is 404 NOT_FOUND; an updated_since naming no real date or time is 422', suite,
    clauses: ['4.8.R5', '4.8.R6', '2.1.R8', '4.R2', '4.4.R5'], level: 'assumption', needs: ['read'], wants: ['property'],
    async run(ctx) {
      const property = writableProperty(ctx);
      const stay = horizonStay(ctx, 2);
      for (const kind of ['rates', 'restrictions']) {
        expectStatus(ctx, await ctx.api.get(`/properties/${property}/${kind}`, { query: { from: stay.check_in, to: stay.check_out } }), 200, null, '4.8.R5', `GET ${kind} snapshot`);
      }
      const list = await ctx.api.get('/properties');
      expectStatus(ctx, list, 200, null, '4.8.R6', 'GET /properties');
      const covered = (await ctx.api.get('/me')).body.data.covered_properties;
      if (list.body.pagination?.total !== covered) ctx.fail('CoveredCountWrong', `covered_properties ${covered}, GET /properties total ${list.body.pagination?.total}`, 'covered_properties is the count of covered properties', '2.1.R8');
      // §4.4 "any parseable date or timestamp", as spec/openapi.yaml's x-assumption on updated_since reads it: ISO 8601 whose
      // fields name a real date and time, so a day, hour, minute, second or offset out of range fails validation (422).
      for (const since of ['2026-02-30', '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-01-01T23:59:60Z', '2026-01-01T00:00:00+24:00']) {
        const res = await ctx.api.get('/bookings', { query: { updated_since: since } });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '4.4.R5', `GET /bookings?updated_since=${since} (no such date or time)`);
        if (!Array.isArray(res.body?.errors?.updated_since)) ctx.fail('WrongErrorField', JSON.stringify(res.body?.errors), `errors.updated_since for updated_since=${since}`, '4.4.R5');
      }
      // x-assumptions unknown-routes: paths are exact, and a path §4 does not name answers 404 NOT_FOUND in the error
      // envelope (every response is an envelope, §4); only the switched-off API answers a bare 404 (§5.6). Sent without a
      // key, 401 UNAUTHENTICATED is as good: §4 "all endpoints require the bearer header" and §5.1 "no endpoint is
      // unauthenticated" allow a platform to authenticate before it routes, and the assumption does not claim the order.
      for (const [path, token] of [['/no-such-path', undefined], ['/no-such-path', null], ['/ME', undefined], ['/me/', undefined]] as const) {
        const res = await ctx.api.get(path, { token });
        const what = `GET ${path}${token === null ? ' without a key' : ''} (a path §4 does not name)`;
        const allowed = token === null ? ['404 NOT_FOUND', '401 UNAUTHENTICATED'] : ['404 NOT_FOUND'];
        const got = `${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
        if (!allowed.includes(got)) ctx.fail('UnexpectedStatus', `${got} for ${what}`, `${allowed.join(' or ')} for ${what}`, '4.R2');
        if (res.body?.success !== false || typeof res.body?.message !== 'string' || typeof res.body?.errors !== 'object') ctx.fail('NotAnEnvelope', `${res.text.slice(0, 120)} for ${what}`, 'the error envelope {success: false, code, message, errors}', '4.R2');
      }
      // Paged like GET /bookings (the assumption): two per page, the second page holds the third and fourth of the whole list.
      const all = (await ctx.api.get('/properties', { query: { per_page: 200 } })).body?.data ?? [];
      const second = await ctx.api.get('/properties', { query: { per_page: 2, page: 2 } });
      expectStatus(ctx, second, 200, null, '4.8.R6', 'GET /properties?per_page=2&page=2');
      const want = all.slice(2, 4).map((p: any) => p.doorloom_id);
      const got = (second.body?.data ?? []).map((p: any) => p.doorloom_id);
      const page = second.body?.pagination;
      const last = Math.max(1, Math.ceil(all.length / 2));
      if (JSON.stringify(got) !== JSON.stringify(want) || page?.total !== all.length || page?.last_page !== last) {
        ctx.fail('PropertyPagingWrong', `page 2 of 2 per page holds ${JSON.stringify(got)}, pagination ${JSON.stringify(page)}`, `paged like GET /bookings: ${JSON.stringify(want)}, total ${all.length}, last_page ${last}`, '4.8.R6');
      }
      // The same assumption: each entry's inventory is an inventory.changed payload for the property's state, so its
      // total_units counts what an availability snapshot counts (§2.4 "units at the property"); its property names a time zone.
      for (const p of all.slice(0, 4)) {
        const snap = await ctx.api.get(`/properties/${p.doorloom_id}/availability`, { query: { from: stay.check_in, to: stay.check_in } });
        const total = snap.body?.data?.data?.total_units;
        if (snap.status === 200 && typeof total === 'number' && p.inventory?.total_units !== total) ctx.fail('InventoryTotalDiffers', `property ${p.doorloom_id}: GET /properties inventory.total_units ${p.inventory?.total_units}, availability snapshot total_units ${total}`, 'the same units at the property in both', '4.8.R6');
        let zone = false;
        try {
          zone = typeof p.property?.time_zone === 'string' && p.property.time_zone !== '' && new Intl.DateTimeFormat('en', { timeZone: p.property.time_zone }) !== null;
        } catch {
          zone = false;
        }
        if (!zone) ctx.fail('TimeZoneUnnamed', `property ${p.doorloom_id}: time_zone ${JSON.stringify(p.property?.time_zone)}`, 'a time zone name (the platform zone, spec x-assumption-time-zone)', '4.8.R6');
      }
    },
  }),
  defineCheck({
    id: 'schema.error-envelope', title: 'Errors use the envelope: success false, code, message and errors keyed by field path', suite,
    clauses: ['7.C1', '4.C6', '7.E8', '4.4.R5', '4.6.R8'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const cases: [string, Record<string, string | number>][] = [['/bookings', { per_page: 'many' }], ['/events', { limit: 0 }]];
      for (const [path, query] of cases) {
        const res = await ctx.api.get(path, { query });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', '7.C1', `GET ${path} with ${JSON.stringify(query)}`);
        const field = Object.keys(query)[0]!;
        const errors = res.body.errors?.[field];
        if (!Array.isArray(errors) || errors.some((m: unknown) => typeof m !== 'string')) ctx.fail('ErrorsNotKeyedByField', JSON.stringify(res.body.errors), `errors.${field} is an array of messages`, '7.C1');
      }
    },
  }),
];
