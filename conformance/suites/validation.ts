/**
 * Input validation (§4.4–§4.8, §7, §8): generated valid requests are
 * accepted; each generated single-field violation is refused with 422
 * naming that field and writes nothing; nothing ever answers 5xx. Requests
 * come from the OpenAPI schemas (conformance/arbitraries), not hand copies.
 */
import fc from 'fast-check';

import { loadContract } from '../../spec/contract.ts';
import { defineCheck, expectStatus, NotApplicable, type CheckContext } from '../check.ts';
import { dateTimeBetween, omit } from '../arbitraries/from-schema.ts';
import { bodyViolations, queryViolations, validBody, validQuery } from '../arbitraries/requests.ts';
import { addDays } from '../../protocol/calendar.ts';
import { bookingBody, coveredProperties, createBooking, describe, farStay, knownProperty, writableProperty } from './support.ts';
import { judgeDateEntries } from './schema.ts';
import { atPath } from './create-limits.ts';
import { singleFieldRefusal } from './single-field-refusal.ts';

const suite = 'validation';
const contract = loadContract();
const createOp = contract.operation('createBooking');

/** Valid create bodies the target can accept: its own property, a far-future stay, no pinned units. */
function acceptableBodies(ctx: CheckContext) {
  return fc.tuple(
    validBody('createBooking', {
      property: fc.constant({ doorloom_id: writableProperty(ctx) }),
      'units[].inventory_id': omit(),
      'units[].external_unit_id': omit(),
      external_booking_id: fc.constant('placeholder'),
    }, { maxItems: 2 }),
    fc.integer({ min: 0, max: 250 }),
    fc.integer({ min: 1, max: 5 }),
  ).map(([body, slot, nights]) => {
    const stay = farStay(ctx, nights, slot);
    return { ...(body as Record<string, unknown>), ...stay, external_booking_id: ctx.uniqueId('bk') };
  });
}

const QUERY_OPERATIONS: [string, string][] = [['listBookings', '/bookings'], ['listEvents', '/events']];
/** §4.8 {property}: the shortest reference the contract allows (PropertyRef minLength). */
const PROPERTY_REF_MIN_LENGTH = (contract.operation('getAvailabilitySnapshot').parameters.find((p) => p.name === 'property')!.schema as { minLength: number }).minLength;
/** §4.5 property.doorloom_id: the lowest the contract allows. */
const CREATE_PROPERTY_MINIMUM = ((createOp.requestBody!.schema.properties as any).property.properties.doorloom_id.minimum) as number;

function acceptableQuery(ctx: CheckContext, operationId: string) {
  // property_id must name a covered property (else 404, §1); leave it out when the run knows none.
  const property = knownProperty(ctx);
  const propertyId = property === null ? omit() : fc.oneof(omit(), fc.constant(property));
  const overrides: Record<string, fc.Arbitrary<unknown>> = operationId === 'listBookings'
    ? { property_id: propertyId, updated_since: fc.oneof(omit(), dateTimeBetween('2020-01-01', '2030-12-31')) }
    : { property_id: propertyId };
  return validQuery(operationId, overrides);
}

/** Every booking a list query returns, page by page (pages of 200, at most 20 pages: a narrow window returns few). */
async function listAll(ctx: CheckContext, query: Record<string, string | number>): Promise<{ items: any[]; complete: boolean }> {
  const items: any[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await ctx.api.get('/bookings', { query: { ...query, page, per_page: 200 } });
    expectStatus(ctx, res, 200, null, '4.4.R1', `GET /bookings with ${JSON.stringify(query)}`);
    items.push(...res.body.data);
    if (page >= (res.body.pagination?.last_page ?? 1)) return { items, complete: true };
  }
  return { items, complete: false };
}

/** §4.4 status values. */
const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled', 'completed', 'refunded'];

/**
 * §4.4: each list filter filters. Around one booking b (checking in on d,
 * with bookings before and after it where there are any): a window with d as
 * its first or its last day returns b (both bounds inclusive) and nothing
 * outside it; b's status and property return b and only matching bookings;
 * another status or property leaves b out.
 */
async function listFiltersFilter(ctx: CheckContext): Promise<void> {
  const sample = async () => (await ctx.api.get('/bookings', { query: { per_page: 200 } })).body?.data ?? [];
  let bookings: any[] = await sample();
  // Bookings on three nights in a row let a bound that is ignored show; made when missing and the run may write.
  if (new Set(bookings.map((b) => b.check_in)).size < 3 && ctx.target.capabilities.includes('write')) {
    await ctx.stays.prime();
    const run = farStay(ctx, 3);
    for (let i = 0; i < 3; i++) {
      const check_in = addDays(run.check_in, i);
      const res = await createBooking(ctx, bookingBody(ctx, { property: { doorloom_id: writableProperty(ctx, i) }, check_in, check_out: addDays(check_in, 1), ...(i === 1 ? { status: 'pending' } : {}) }));
      expectStatus(ctx, res, 201, null, '4.5.R8', 'a create (bookings to filter)');
    }
    bookings = await sample();
  }
  if (bookings.length === 0) throw new NotApplicable('the integration has no bookings to filter and this run may not create one (--allow-writes)');
  const known = new Set(ctx.target.properties.map((p) => p.doorloom_id));
  const days = [...new Set(bookings.map((b) => b.check_in as string))].sort();
  // A booking strictly inside the dates seen, on a property the run knows is covered, where there is one.
  const b = bookings.find((x) => x.check_in > days[0]! && x.check_in < days.at(-1)! && known.has(x.property?.doorloom_id))
    ?? bookings.find((x) => known.has(x.property?.doorloom_id)) ?? bookings[0];
  const d = b.check_in as string;
  const window = { check_in_from: d, check_in_to: d };
  const judge = async (query: Record<string, string | number>, clause: string, what: string, holds: (x: any) => boolean, includesB: boolean) => {
    const { items, complete } = await listAll(ctx, query);
    const stray = items.find((x) => !holds(x));
    if (stray) ctx.fail('FilterNotApplied', `GET /bookings ${JSON.stringify(query)} returned booking ${stray.id} (${what.replace('$', JSON.stringify({ status: stray.status, property_id: stray.property?.doorloom_id, check_in: stray.check_in }))})`, `only bookings matching ${JSON.stringify(query)}`, clause);
    const found = items.some((x) => x.id === b.id);
    if (includesB && !found && complete) ctx.fail('FilterDropsMatch', `GET /bookings ${JSON.stringify(query)} left out booking ${b.id} (status ${b.status}, property ${b.property?.doorloom_id}, check_in ${d})`, `booking ${b.id} returned: it matches ${JSON.stringify(query)}`, clause);
    if (!includesB && found) ctx.fail('FilterNotApplied', `GET /bookings ${JSON.stringify(query)} returned booking ${b.id} (status ${b.status}, property ${b.property?.doorloom_id}, check_in ${d})`, `booking ${b.id} left out: it does not match ${JSON.stringify(query)}`, clause);
  };
  // Inclusive bounds: d as the earliest and as the latest check-in.
  await judge({ check_in_from: d, check_in_to: addDays(d, 1) }, '4.4.Q4', 'check_in $', (x) => x.check_in >= d && x.check_in <= addDays(d, 1), true);
  await judge({ check_in_from: addDays(d, -1), check_in_to: d }, '4.4.Q5', 'check_in $', (x) => x.check_in >= addDays(d, -1) && x.check_in <= d, true);
  // Each bound alone leaves b out: a one-day window next to d (ignore that bound and b comes back).
  await judge({ check_in_from: addDays(d, 1), check_in_to: addDays(d, 1) }, '4.4.Q4', 'check_in $', (x) => x.check_in === addDays(d, 1), false);
  await judge({ check_in_from: addDays(d, -1), check_in_to: addDays(d, -1) }, '4.4.Q5', 'check_in $', (x) => x.check_in === addDays(d, -1), false);
  // status: b's own returns b and only that status; any other leaves b out.
  await judge({ ...window, status: b.status }, '4.4.Q2', '$', (x) => x.status === b.status && x.check_in === d, true);
  const other = BOOKING_STATUSES.find((s) => s !== b.status)!;
  await judge({ ...window, status: other }, '4.4.Q2', '$', (x) => x.status === other && x.check_in === d, false);
  // property_id: only covered properties may be named (§1: another is 404).
  if (known.has(b.property?.doorloom_id)) {
    await judge({ ...window, property_id: b.property.doorloom_id }, '4.4.Q3', '$', (x) => x.property?.doorloom_id === b.property.doorloom_id && x.check_in === d, true);
    const elsewhere = ctx.target.properties.find((p) => !p.archived && p.doorloom_id !== b.property.doorloom_id)?.doorloom_id;
    if (elsewhere !== undefined) await judge({ ...window, property_id: elsewhere }, '4.4.Q3', '$', (x) => x.property?.doorloom_id === elsewhere && x.check_in === d, false);
  }
}

/** §7: a 422 VALIDATION_FAILED's `errors` is keyed by field path (never an empty one), each value an array of messages. */
function fieldPaths(ctx: CheckContext, res: { status: number; body: any }, what: string): void {
  if (res.status !== 422 || res.body?.code !== 'VALIDATION_FAILED') return;
  const errors = res.body.errors;
  const bad = errors === null || typeof errors !== 'object' || Array.isArray(errors) ? ['(not an object)']
    : Object.entries(errors).filter(([k, v]) => k === '' || !Array.isArray(v) || v.length === 0 || v.some((m) => typeof m !== 'string')).map(([k]) => JSON.stringify(k));
  if (bad.length > 0) ctx.fail('ErrorsNotKeyedByField', `errors ${JSON.stringify(errors).slice(0, 200)} for ${what}`, 'errors keyed by field path, each value an array of messages', '7.C1');
}

/**
 * §7: a 422's errors are keyed by field path (the same paths validation.body-violation-refused asks for). A refused
 * property is named by `property` or a path under it; a refused unit by its exact path, `units.0.inventory_id` when
 * it was pinned by inventory_id, `units.0.external_unit_id` by alias.
 */
function namesField(ctx: CheckContext, res: { body?: any }, field: string, what: string): void {
  if (res.body?.success !== false) return;
  const keys = Object.keys(res.body?.errors ?? {});
  const named = field === 'property' ? keys.some((k) => k === 'property' || k.startsWith('property.')) : keys.includes(field);
  if (!named) ctx.fail('RefusalNotNamed', `${what}: errors keyed ${keys.join(', ') || '(none)'}`, `errors naming ${field === 'property' ? 'property (or a path under it)' : field}`, '7.C1');
}

/**
 * §7 keys a 422 "by field path" and shows no path syntax: the segments of a path however spelled, dotted or bracketed
 * (`units.1.inventory_id`, `units[1].inventory_id`, `types[].0`); empty brackets (a query array's `[]`) are no segment.
 */
export function pathSegments(path: string): string[] {
  return path.replace(/\[([^\]]*)\]/g, '.$1').split('.').filter((s) => s !== '');
}

/** The query parameter a field path is in: `types` of `types[]`, `types[].0`, `types.0`, `types[0]`; `limit` of `limit`. */
export function parameterOf(path: string): string {
  return pathSegments(path)[0] ?? '';
}

/**
 * A key names `path` or a path within it, however either is spelled: `units.1`, `units[1]`, `units.1.inventory_id`
 * and `units[1].external_unit_id` all name `units.1`; `units`, `units.0` and `units.10` do not.
 */
export function keyWithin(key: string, path: string): boolean {
  const want = pathSegments(path);
  const got = pathSegments(key);
  return want.length > 0 && want.every((s, i) => got[i] === s);
}

/**
 * §7 keys a 422 "by field path" and shows no path syntax: a key names the
 * refused query parameter when it is the parameter or any path within it,
 * however spelled (`types`, `types[]`, `types[].0`, `types.0`, `types[0]`);
 * a key naming another parameter does not.
 */
export function namesParameter(key: string, path: string): boolean {
  return key === path || parameterOf(key) === parameterOf(path);
}

/** §4.5 body table: the clause of each field a create requires (nested ones too); a field the contract makes required needs its clause here. */
const REQUIRED_CLAUSES: Record<string, string> = {
  external_booking_id: '4.5.Q3', property: '4.5.Q4', units: '4.5.Q5', 'units.0.adults': '4.5.Q8', check_in: '4.5.Q12', check_out: '4.5.Q13',
  guest: '4.5.Q15', 'guest.name': '4.5.Q15', 'guest.mobile': '4.5.Q17', pricing: '4.5.Q20', 'pricing.total': '4.5.Q20',
};

/** A valid body holding every object the operation's body may nest, so each required field, however deep, can be dropped. */
const REQUIRED_BASES: Record<string, (ctx: CheckContext) => Record<string, unknown>> = {
  createBooking: (ctx) => bookingBody(ctx, { units: [{ adults: 1, children: 0 }], payment: { status: 'unpaid' }, source: { channel: 'conformance' } }),
  requestSync: () => ({}),
};

/** The property-id query filters (§4.4, §4.6) and the range the contract gives each (spec/openapi.yaml). */
const PROPERTY_FILTERS = QUERY_OPERATIONS.map(([op, path]) => {
  const schema = contract.operation(op).parameters.find((p) => p.name === 'property_id')!.schema as { minimum: number };
  return { op, path, minimum: schema.minimum, clause: op === 'listEvents' ? '4.6.Q3' : '4.4.Q3', refusal: op === 'listEvents' ? '4.6.R8' : '4.4.R5' };
});

/** Each enum field of a body schema (nested objects and array items, the first item standing for all), by dotted path. */
function enumFields(schema: any, at: string[] = []): { path: string[]; values: unknown[] }[] {
  if (Array.isArray(schema?.enum)) return [{ path: at, values: schema.enum }];
  if (schema?.type === 'array') return enumFields(schema.items, [...at, '0']);
  return Object.entries((schema?.properties ?? {}) as Record<string, unknown>).flatMap(([name, sub]) => enumFields(sub, [...at, name]));
}

/**
 * The edges of a list or replay query the contract allows, each sent alone: every value of an enum (`types[]` one
 * type at a time) and every integer parameter at its maximum (the largest is spec x-assumptions safe-integers where
 * §4.4 and §4.6 show none).
 */
function queryEdges(operationId: string): { name: string; value: string | string[]; what: string }[] {
  return contract.operation(operationId).parameters.filter((p) => p.in === 'query').flatMap((p): { name: string; value: string | string[]; what: string }[] => {
    const schema = p.schema as any;
    if (schema.type === 'array' && Array.isArray(schema.items?.enum)) return (schema.items.enum as string[]).map((v) => ({ name: p.name, value: [v], what: `one of its values, ${v}` }));
    if (Array.isArray(schema.enum)) return (schema.enum as string[]).map((v) => ({ name: p.name, value: v, what: `one of its values, ${v}` }));
    if (schema.type === 'integer' && typeof schema.maximum === 'number') return [{ name: p.name, value: String(schema.maximum), what: `its largest value, ${schema.maximum}` }];
    return [];
  });
}

export const validationChecks = [
  defineCheck({
    id: 'validation.valid-bodies-accepted', title: 'Generated valid create bodies are never refused by validation', suite,
    clauses: ['4.5.Q36', '4.5.R8', '7.E8'], level: 'normative', needs: ['write'],
    async run(ctx) {
      // Every run, whatever the draws: each value of every enum of the body (§4.5: meal_plan, payment.status,
      // collected_by, status, currency), the i-th create taking each field's i-th value (its last once it has no more).
      const enums = enumFields(createOp.requestBody!.schema);
      for (let i = 0; i < Math.max(...enums.map((e) => e.values.length)); i++) {
        const body = enums.reduce((b, e) => atPath(b, e.path, e.values[Math.min(i, e.values.length - 1)]), bookingBody(ctx, { units: [{ adults: 1 }] }));
        const res = await createBooking(ctx, body);
        if (res.status !== 201 && !(res.status === 409 && res.body?.code === 'UNAVAILABLE')) {
          ctx.fail('ValidBodyRefused', `${describe(res)} ${JSON.stringify(res.body?.errors ?? {})} for ${enums.map((e) => `${e.path.join('.')} ${JSON.stringify(e.values[Math.min(i, e.values.length - 1)])}`).join(', ')}`, '201 (or 409 UNAVAILABLE when no unit is free): each value §4.5 lists is accepted', '4.5.Q36');
        }
      }
      await ctx.forAll(acceptableBodies(ctx), async (body) => {
        const res = await createBooking(ctx, body);
        if (res.status !== 201 && !(res.status === 409 && res.body?.code === 'UNAVAILABLE')) {
          ctx.fail('ValidBodyRefused', `${describe(res)} ${JSON.stringify(res.body?.errors ?? {})}`, '201 (or 409 UNAVAILABLE when no unit is free) for a body valid under §4.5', '4.5.Q36');
        }
      }, { books: true });
    },
  }),
  defineCheck({
    id: 'validation.body-violation-refused', title: 'Each single-field violation of a create body is 422 naming that field, and writes nothing', suite,
    clauses: ['4.5.Q36', '7.C1', '7.E8', '8.L6', '8.L7', '8.L8', '4.5.Q3', '4.5.Q5', '4.5.Q8', '4.5.Q9', '4.5.Q15', '4.5.Q21', '4.5.Q31'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const cases = acceptableBodies(ctx).chain((base) => {
        const all = bodyViolations('createBooking', base);
        return fc.constantFrom(...all).map((violation) => ({ base, violation }));
      });
      await ctx.forAll(cases, async ({ base, violation }) => {
        const invalid = violation.apply(base) as Record<string, unknown>;
        const res = await createBooking(ctx, invalid);
        // VALIDATION_FAILED, or §7 PROPERTY_NOT_MAPPED for a missing property reference.
        const code = singleFieldRefusal('createBooking', invalid);
        expectStatus(ctx, res, 422, code, code === 'VALIDATION_FAILED' ? '4.5.Q36' : '7.E11', `a body with ${violation.description}`);
        if (!res.body.errors?.[violation.path]) {
          ctx.fail('ViolationNotNamed', `errors keyed ${Object.keys(res.body.errors ?? {}).join(', ') || '(none)'}`, `errors naming ${violation.path} (${violation.description})`, '7.C1');
        }
        if (typeof invalid.external_booking_id === 'string' && invalid.external_booking_id.length > 0 && invalid.external_booking_id.length <= 128) {
          const read = await ctx.api.get(`/bookings/external/${encodeURIComponent(invalid.external_booking_id)}`);
          expectStatus(ctx, read, 404, 'NOT_FOUND', '4.5.Q36', 'reading the booking a refused create named');
        }
      });
    },
  }),
  defineCheck({
    id: 'validation.required-fields-refused', title: 'A body without any one of its required fields (nested ones too) is refused 422 naming that field, and writes nothing', suite,
    clauses: ['4.5.Q3', '4.5.Q4', '4.5.Q5', '4.5.Q8', '4.5.Q12', '4.5.Q13', '4.5.Q15', '4.5.Q17', '4.5.Q20', '4.5.Q36', '7.C1', '7.E8', '7.E11'], level: 'normative', needs: ['write'],
    async run(ctx) {
      // Every operation with a JSON body, each required field of the contract dropped alone (§4.5 "Required: yes"; §7 names the field).
      for (const op of contract.operations.filter((o) => o.requestBody !== null)) {
        const base = REQUIRED_BASES[op.id];
        const drops = base ? bodyViolations(op.id, base(ctx)).filter((v) => v.keyword === 'required' || v.keyword === 'anyOf') : [];
        if (!base && contract.operation(op.id).requestBody!.schema.required !== undefined) throw new Error(`spec/openapi.yaml: ${op.id} requires body fields and validation.required-fields-refused has no valid body of it to drop them from`);
        for (const drop of drops) {
          const clause = REQUIRED_CLAUSES[drop.path];
          if (clause === undefined) throw new Error(`spec/openapi.yaml requires ${drop.path} (${op.id}) and validation.required-fields-refused knows no clause of it`);
          // A fresh external id per request: nothing a refusal wrote can be found under another's.
          const invalid = drop.apply({ ...base!(ctx) }) as Record<string, unknown>;
          const res = await ctx.api.post(op.path, { body: invalid, headers: { 'Idempotency-Key': ctx.uniqueId('key') } });
          // VALIDATION_FAILED, or §7 PROPERTY_NOT_MAPPED for a missing property reference.
          const code = singleFieldRefusal(op.id, invalid);
          expectStatus(ctx, res, 422, code, code === 'VALIDATION_FAILED' ? clause : '7.E11', `${op.method.toUpperCase()} ${op.path} with ${drop.description}`);
          if (!res.body?.errors?.[drop.path]) ctx.fail('RequiredFieldNotNamed', `errors keyed ${Object.keys(res.body?.errors ?? {}).join(', ') || '(none)'} for ${drop.description}`, `errors naming ${drop.path}, the required field left out`, '7.C1');
          if (op.id === 'createBooking' && typeof invalid.external_booking_id === 'string') {
            const read = await ctx.api.get(`/bookings/external/${encodeURIComponent(invalid.external_booking_id)}`);
            expectStatus(ctx, read, 404, 'NOT_FOUND', clause, `reading the booking a create without ${drop.path} named`);
          }
        }
      }
    },
  }),
  defineCheck({
    id: 'validation.lowest-property-id-accepted', title: 'The lowest property id the contract allows is never refused as invalid where a property id is taken (filters, the snapshot path, the create body; 404 NOT_FOUND or PROPERTY_NOT_MAPPED for an id no covered property has); one below it is 422 naming the field', suite,
    clauses: ['4.4.Q3', '4.6.Q3', '4.8.Q1', '4.5.Q4', '4.4.R5', '4.6.R8', '7.C1'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      // §4.4, §4.6 property_id: the contract's minimum is a valid filter (an id no covered property has is 404, §1); one below is invalid.
      for (const f of PROPERTY_FILTERS) {
        const lowest = await ctx.api.get(f.path, { query: { property_id: f.minimum } });
        if (lowest.status === 422) ctx.fail('LowestIdRefused', `${describe(lowest)} ${JSON.stringify(lowest.body?.errors ?? {})} for GET ${f.path}?property_id=${f.minimum}`, `200, or 404 NOT_FOUND for a property not covered: ${f.minimum} is the lowest property id the contract allows`, f.clause);
        if (lowest.status !== 200) expectStatus(ctx, lowest, 404, 'NOT_FOUND', f.clause, `GET ${f.path}?property_id=${f.minimum}`);
        const below = await ctx.api.get(f.path, { query: { property_id: f.minimum - 1 } });
        expectStatus(ctx, below, 422, 'VALIDATION_FAILED', f.refusal, `GET ${f.path}?property_id=${f.minimum - 1} (below the contract's minimum ${f.minimum})`);
        if (!below.body.errors?.property_id) ctx.fail('WrongErrorField', JSON.stringify(below.body.errors), 'errors keyed by the field: property_id', '7.C1');
      }
      // §4.8 {property}: an id or an alias; the shortest the contract allows (PropertyRef minLength) names no covered property here, so 404, never 422.
      const ref = '1'.repeat(PROPERTY_REF_MIN_LENGTH);
      const night = farStay(ctx).check_in;
      const snapshot = await ctx.api.get(`/properties/${ref}/availability`, { query: { from: night, to: night } });
      if (snapshot.status === 422) ctx.fail('LowestIdRefused', `${describe(snapshot)} ${JSON.stringify(snapshot.body?.errors ?? {})} for GET /properties/${ref}/availability of one night`, `200, or 404 NOT_FOUND for a property not covered: "${ref}" is a property reference the contract allows`, '4.8.Q1');
      if (snapshot.status !== 200) expectStatus(ctx, snapshot, 404, 'NOT_FOUND', '4.8.R3', `GET /properties/${ref}/availability`);
      // §4.5 property.doorloom_id: the lowest id is refused, if at all, as no covered property (PROPERTY_NOT_MAPPED), never as invalid.
      // The sync body's lowest id is the run's first sync refusal (sync-allowance.ts), judged by sync.validation-before-charge.
      // A create may book: live, only on a property the run names (docs/conformance.md, what a live run leaves behind).
      const named = ctx.target.properties.some((p) => p.doorloom_id === CREATE_PROPERTY_MINIMUM && !p.archived);
      if (!ctx.target.capabilities.includes('write') || (ctx.target.kind !== 'in-process' && !named)) return;
      const body = bookingBody(ctx, { property: { doorloom_id: CREATE_PROPERTY_MINIMUM } });
      const created = await createBooking(ctx, body);
      if (created.status === 422 && created.body?.code === 'VALIDATION_FAILED' && Object.keys(created.body.errors ?? {}).some((k) => k.startsWith('property'))) {
        ctx.fail('LowestIdRefused', `${describe(created)} ${JSON.stringify(created.body.errors)} for a create on property.doorloom_id ${CREATE_PROPERTY_MINIMUM}`, `PROPERTY_NOT_MAPPED for an id no covered property has (or 201): ${CREATE_PROPERTY_MINIMUM} is the lowest property id the contract allows`, '4.5.Q4');
      }
    },
  }),
  defineCheck({
    id: 'validation.valid-queries-accepted', title: 'Generated valid list and replay queries are answered 200; the list filters status, property_id, check_in_from and check_in_to filter, both dates inclusive', suite,
    clauses: ['4.4.Q1', '4.4.Q2', '4.4.Q3', '4.4.Q4', '4.4.Q5', '4.6.Q1', '4.6.Q2', '4.6.Q3', '4.6.Q4', '4.6.Q5'], level: 'normative', needs: ['read'], wants: ['write'],
    async run(ctx) {
      const cases = fc.constantFrom(...QUERY_OPERATIONS).chain(([op, path]) => acceptableQuery(ctx, op).map((query) => ({ path, query })));
      await ctx.forAll(cases, async ({ path, query }) => {
        const res = await ctx.api.get(path, { query });
        expectStatus(ctx, res, 200, null, path === '/events' ? '4.6.R1' : '4.4.R1', `GET ${path} with ${JSON.stringify(query)}`);
      });
      // Every run, whatever the draws: each enum value and each integer at its largest (queryEdges).
      for (const [op, path] of QUERY_OPERATIONS) {
        for (const edge of queryEdges(op)) {
          const res = await ctx.api.get(path, { query: { [edge.name]: edge.value } });
          // A property id no covered property has is 404 NOT_FOUND (§1), not a refusal of the value.
          if (edge.name === 'property_id' && res.status === 404 && res.body?.code === 'NOT_FOUND') continue;
          expectStatus(ctx, res, 200, null, path === '/events' ? '4.6.R1' : '4.4.R1', `GET ${path}?${edge.name}=${edge.value} (${edge.what})`);
        }
      }
      await listFiltersFilter(ctx);
    },
  }),
  defineCheck({
    id: 'validation.query-violation-refused', title: 'Each single-parameter violation of a list or replay query is 422 naming the parameter', suite,
    clauses: ['4.4.R5', '4.6.R8', '8.L1', '8.L2', '7.E8', '7.C1'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const cases = fc.constantFrom(...QUERY_OPERATIONS).chain(([op, path]) => acceptableQuery(ctx, op).chain((base) => {
        const all = queryViolations(op, base);
        return all.length === 0 ? fc.constant(null) : fc.constantFrom(...all).map((violation) => ({ path, base, violation }));
      })).filter((c): c is NonNullable<typeof c> => c !== null);
      await ctx.forAll(cases, async ({ path, base, violation }) => {
        const query = violation.apply(base) as Record<string, string | string[]>;
        const res = await ctx.api.get(path, { query });
        expectStatus(ctx, res, 422, 'VALIDATION_FAILED', path === '/events' ? '4.6.R8' : '4.4.R5', `GET ${path} with ${violation.description}`);
        if (!Object.keys(res.body.errors ?? {}).some((k) => namesParameter(k, violation.path))) {
          ctx.fail('ViolationNotNamed', `errors keyed ${Object.keys(res.body.errors ?? {}).join(', ')}`, `errors naming the parameter ${parameterOf(violation.path)} (${violation.path} or any spelling of a path in it)`, '7.C1');
        }
      });
      // Every run, whatever the draws: each integer parameter one above its largest (queryEdges' other side), and far
      // above it, 1e400 (an integer a double reads as Infinity: still above the largest).
      for (const [op, path] of QUERY_OPERATIONS) {
        for (const edge of queryEdges(op).filter((e) => /^[0-9]+$/.test(String(e.value)))) {
          for (const [above, what] of [[String(Number(edge.value) + 1), 'one above its largest'], ['1e400', 'far above its largest']] as const) {
            const res = await ctx.api.get(path, { query: { [edge.name]: above } });
            expectStatus(ctx, res, 422, 'VALIDATION_FAILED', path === '/events' ? '4.6.R8' : '4.4.R5', `GET ${path}?${edge.name}=${above} (${what}, ${edge.value})`);
            if (!Object.keys(res.body.errors ?? {}).some((k) => namesParameter(k, edge.name))) ctx.fail('ViolationNotNamed', `errors keyed ${Object.keys(res.body.errors ?? {}).join(', ')}`, `errors naming the parameter ${edge.name}`, '7.C1');
          }
        }
      }
    },
  }),
  defineCheck({
    id: 'validation.never-5xx', title: 'Malformed and arbitrary bodies and queries get a 4xx envelope, never 5xx', suite,
    clauses: ['4.R2', '7.C1', '7.E8'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const raw = fc.oneof(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.string(),
        fc.constantFrom('{', '{"external_booking_id":', '[1,2', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}', 'null', '"text"', '\u0000'),
      );
      const refused = async ([body, type]: [string, string]) => {
        const res = await ctx.api.post('/bookings', { rawBody: body, headers: { 'Idempotency-Key': ctx.uniqueId('key'), 'Content-Type': type } });
        if (res.status >= 500) ctx.fail('ServerError', `${describe(res)} for the body ${JSON.stringify(body).slice(0, 120)}`, 'a 4xx error envelope for bad input', '4.R2');
        if (res.status < 400 || res.body?.success !== false) ctx.fail('BadInputAccepted', `${describe(res)} for the body ${JSON.stringify(body).slice(0, 120)}`, '422 in the error envelope', '7.C1');
        fieldPaths(ctx, res, `the body ${JSON.stringify(body).slice(0, 120)}`);
      };
      // The plainest bad inputs every run, whatever the property draws: truncated JSON, a wrong content type, an array
      // nested 100,000 levels deep after a string and an object as deep (a parser or walker that recurses per level overflows its stack on them).
      const deep = `["deep",${'['.repeat(100_000)}${']'.repeat(100_001)}`;
      const deepObject = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
      for (const example of [['{', 'application/json'], ['[1,2', 'application/json'], ['{}', 'text/plain'], [deep, 'application/json'], [deepObject, 'application/json'], ['', 'application/json']] as [string, string][]) await refused(example);
      // A create valid in every field but one byte: a guest name that is not UTF-8 is not JSON text (Conventions: bodies are
      // JSON, RFC 8259 §8.1), so it is refused, never stored with the byte replaced.
      const bytes = Buffer.from(JSON.stringify(bookingBody(ctx, { guest: { name: 'Conformance #', mobile: '9000000000' } })), 'utf8');
      bytes[bytes.indexOf('Conformance #') + 12] = 0xff;
      const notUtf8 = await ctx.api.post('/bookings', { rawBody: bytes, headers: { 'Idempotency-Key': ctx.uniqueId('key'), 'Content-Type': 'application/json' } });
      if (notUtf8.status >= 500) ctx.fail('ServerError', `${describe(notUtf8)} for a create whose guest.name holds the byte 0xFF`, 'a 4xx error envelope for bad input', '4.R2');
      if (notUtf8.status < 400 || notUtf8.body?.success !== false) ctx.fail('BadInputAccepted', `${describe(notUtf8)} for a create whose guest.name holds the byte 0xFF (not UTF-8)`, '422 in the error envelope: a body that is not UTF-8 is not JSON', '7.C1');
      fieldPaths(ctx, notUtf8, 'a create whose guest.name holds the byte 0xFF');
      await ctx.forAll(fc.tuple(raw, fc.constantFrom('application/json', 'text/plain')), refused);
      const junk = fc.dictionary(fc.constantFrom('page', 'per_page', 'status', 'updated_since', 'after_sequence', 'limit', 'types[]', 'property_id', 'x'), fc.string({ maxLength: 12 }));
      await ctx.forAll(fc.tuple(fc.constantFrom('/bookings', '/events'), junk), async ([path, query]) => {
        const res = await ctx.api.get(path, { query });
        if (res.status >= 500) ctx.fail('ServerError', `${describe(res)} for GET ${path} ${JSON.stringify(query)}`, 'a 200 or a 4xx error envelope', '4.R2');
      });
    },
  }),
  defineCheck({
    id: 'validation.property-not-mapped', title: 'An unknown property is 422 PROPERTY_NOT_MAPPED naming property and writes nothing; a covered property\'s alias alone books on it', suite,
    clauses: ['4.5.Q32', '7.E11', '4.5.Q4', '7.C1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const body = { external_booking_id: ctx.uniqueId('bk'), property: { doorloom_id: 2_000_000_000 }, units: [{ adults: 1 }], ...farStay(ctx), guest: { name: 'Conformance', mobile: '9000000000' }, pricing: { total: 1 } };
      const unknown = await createBooking(ctx, body);
      expectStatus(ctx, unknown, 422, 'PROPERTY_NOT_MAPPED', '4.5.Q32', 'a create on an unknown property');
      namesField(ctx, unknown, 'property', 'a create on an unknown property');
      const alias = { ...body, external_booking_id: ctx.uniqueId('bk'), property: { external_id: `${ctx.runId}-no-such-alias` } };
      const unknownAlias = await createBooking(ctx, alias);
      expectStatus(ctx, unknownAlias, 422, 'PROPERTY_NOT_MAPPED', '4.5.Q32', 'a create on an unknown property alias');
      namesField(ctx, unknownAlias, 'property', 'a create on an unknown property alias');
      // §4.5: property.external_id alone is one of the two references: a covered property's own alias books on that property.
      const known = ctx.target.properties.find((p) => !p.archived && p.external_id !== '');
      if (!known) return;
      const byAlias = await createBooking(ctx, { ...body, external_booking_id: ctx.uniqueId('bk'), property: { external_id: known.external_id } });
      if (byAlias.status === 409) throw new NotApplicable(`property ${known.doorloom_id} (${known.external_id}) had no free unit on the stay tried (409 UNAVAILABLE)`);
      expectStatus(ctx, byAlias, 201, null, '4.5.Q4', `a create naming property ${known.doorloom_id} by its alias ${known.external_id} alone`);
      if (byAlias.body?.data?.property?.doorloom_id !== known.doorloom_id) ctx.fail('WrongProperty', `property ${JSON.stringify(byAlias.body?.data?.property)}`, `property.doorloom_id ${known.doorloom_id}, the property of alias ${known.external_id}`, '4.5.Q4');
    },
  }),
  defineCheck({
    id: 'validation.domain-refusals', title: 'Archived property, unknown and inactive units are refused with their own codes, naming the field; a unit\'s own alias pins it; an inactive unit is never counted sellable', suite,
    clauses: ['4.5.Q33', '4.5.Q34', '4.5.Q35', '7.E12', '7.E13', '7.E14', '4.5.R6a', '7.C1', '2.4.R2', '4.5.Q6'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const known = await coveredProperties(ctx);
      const archived = known.find((p) => p.archived);
      const withInactive = known.find((p) => !p.archived && p.units.some((u) => !u.active));
      if (!archived || !withInactive) throw new NotApplicable('needs a covered archived property and a covered property with an inactive unit (none among the named properties or GET /properties)');
      const body = (overrides: object, stay = farStay(ctx)) => ({ external_booking_id: ctx.uniqueId('bk'), units: [{ adults: 1 }], ...stay, guest: { name: 'Conformance', mobile: '9000000000' }, pricing: { total: 1 }, ...overrides });
      const onArchived = await createBooking(ctx, body({ property: { doorloom_id: archived.doorloom_id } }));
      expectStatus(ctx, onArchived, 422, 'PROPERTY_ARCHIVED', '4.5.Q33', 'a create on an archived property');
      namesField(ctx, onArchived, 'property', 'a create on an archived property');
      const unknownUnit = await createBooking(ctx, body({ property: { doorloom_id: withInactive.doorloom_id }, units: [{ adults: 1, external_unit_id: 'no-such-unit' }] }));
      expectStatus(ctx, unknownUnit, 422, 'UNIT_NOT_MAPPED', '4.5.Q34', 'a create pinning an unknown unit alias');
      namesField(ctx, unknownUnit, 'units.0.external_unit_id', 'a create pinning an unknown unit alias');
      // §4.5 units[].inventory_id pins a platform unit: one the property does not have is refused (4xx, nothing booked), named.
      const noSuchUnit = await createBooking(ctx, body({ property: { doorloom_id: withInactive.doorloom_id }, units: [{ adults: 1, inventory_id: 2_000_000_000 }] }));
      expectStatus(ctx, noSuchUnit, 422, null, '4.5.Q6', 'a create pinning inventory_id 2000000000, no unit of the property');
      namesField(ctx, noSuchUnit, 'units.0.inventory_id', 'a create pinning an unknown inventory_id');
      const inactive = withInactive.units.find((u) => !u.active)!;
      const onInactive = await createBooking(ctx, body({ property: { doorloom_id: withInactive.doorloom_id }, units: [{ adults: 1, inventory_id: inactive.inventory_id }] }));
      expectStatus(ctx, onInactive, 422, 'UNIT_INACTIVE', '4.5.Q35', 'a create pinning an inactive unit');
      namesField(ctx, onInactive, 'units.0.inventory_id', 'a create pinning an inactive unit by inventory_id');
      // The same unit by its alias: refused alike, and the refusal names the field that was sent (§7 errors keyed by field path).
      if (typeof inactive.external_unit_id === 'string' && inactive.external_unit_id !== '') {
        const byAlias = await createBooking(ctx, body({ property: { doorloom_id: withInactive.doorloom_id }, units: [{ adults: 1, external_unit_id: inactive.external_unit_id }] }));
        expectStatus(ctx, byAlias, 422, 'UNIT_INACTIVE', '4.5.Q35', `a create pinning the inactive unit by its alias ${inactive.external_unit_id}`);
        namesField(ctx, byAlias, 'units.0.external_unit_id', 'a create pinning an inactive unit by external_unit_id');
      }
      // §2.4: available_units are the units sellable that night, and an inactive unit is refused at create: never counted sellable.
      const active = withInactive.units.filter((u) => u.active).length;
      const far = farStay(ctx);
      const snap = await ctx.api.get(`/properties/${withInactive.doorloom_id}/availability`, { query: { from: far.check_in, to: far.check_in } });
      const sellable = snap.status === 200 ? snap.body?.data?.data?.dates?.[0]?.available_units : undefined;
      // §2.4, §4.8: the payload's total_units and each night's are the same count, the units at the property.
      if (snap.status === 200 && Array.isArray(snap.body?.data?.data?.dates)) judgeDateEntries(ctx, snap.body.data.data, far.check_in);
      if (typeof sellable === 'number' && sellable > active) ctx.fail('InactiveUnitSellable', `${far.check_in}: available_units ${sellable} on property ${withInactive.doorloom_id}`, `at most ${active}, its active units (unit ${inactive.inventory_id} is inactive)`, '2.4.R2');
      // §4.5 rule 7: the 409 body's total_units is the units at the property, as each of its dates[] says (§2.4); an
      // inactive unit makes a count of every unit differ. Only where the run may write on that property.
      const activeUnit = withInactive.units.find((u) => u.active);
      if (activeUnit && ctx.target.properties.some((p) => p.doorloom_id === withInactive.doorloom_id && !p.archived)) {
        const pinned = { property: { doorloom_id: withInactive.doorloom_id }, units: [{ adults: 1, inventory_id: activeUnit.inventory_id }], ...farStay(ctx) };
        const held = await createBooking(ctx, body(pinned));
        const taken = held.status === 201 ? await createBooking(ctx, body(pinned)) : undefined;
        const availability = taken?.status === 409 ? taken.body?.errors?.availability : undefined;
        if (availability && Array.isArray(availability.dates) && typeof availability.window?.from === 'string') judgeDateEntries(ctx, availability, availability.window.from);
      }
      // §4.5, §7 UNIT_NOT_MAPPED: an alias that belongs to another property is not this property's unit (tried last: it needs a known alias).
      const other = known.find((p) => !p.archived && p.doorloom_id !== withInactive.doorloom_id && p.units.some((u) => u.active && typeof u.external_unit_id === 'string' && u.external_unit_id !== ''));
      if (!other) throw new NotApplicable('needs a second covered property whose unit alias is known (target fixtures or GET /properties) to pin another property\'s unit');
      const alias = other.units.find((u) => u.active && typeof u.external_unit_id === 'string' && u.external_unit_id !== '')!.external_unit_id!;
      const foreign = body({ property: { doorloom_id: withInactive.doorloom_id }, units: [{ adults: 1, external_unit_id: alias }] });
      const res = await createBooking(ctx, foreign);
      expectStatus(ctx, res, 422, 'UNIT_NOT_MAPPED', '4.5.Q34', `a create on property ${withInactive.doorloom_id} pinning ${alias}, a unit alias of property ${other.doorloom_id}`);
      namesField(ctx, res, 'units.0.external_unit_id', `a create pinning ${alias}, a unit alias of another property`);
      const written = await ctx.api.get(`/bookings/external/${encodeURIComponent(foreign.external_booking_id as string)}`);
      expectStatus(ctx, written, 404, 'NOT_FOUND', '4.5.Q34', 'reading the refused create by its external_booking_id');
      // The same alias on its own property is that property's unit: pinned and booked (§4.5 rule 6), not refused as
      // unknown. Only where the run may write on that property (live: a named --property).
      if (!ctx.target.properties.some((p) => p.doorloom_id === other.doorloom_id && !p.archived)) return;
      // The planner counts free units, not which: a night with every active unit free is one where the pinned unit is.
      const ownUnits = other.units.filter((u) => u.active).length;
      const stay = ctx.stays.take('far', 1, ownUnits) ?? farStay(ctx);
      const own = await createBooking(ctx, body({ property: { doorloom_id: other.doorloom_id }, units: [{ adults: 1, external_unit_id: alias }] }, stay));
      if (own.status === 409) {
        // Read again: a world shared with guests may have filled the night since. With every active unit still free, the 409 refused a free pinned unit (§4.5 rule 6).
        const now = await ctx.api.get(`/properties/${other.doorloom_id}/availability`, { query: { from: stay.check_in, to: stay.check_in } });
        const free = now.status === 200 ? now.body?.data?.data?.dates?.[0]?.available_units : undefined;
        if (typeof free !== 'number' || free < ownUnits) throw new NotApplicable(`the unit ${alias} of property ${other.doorloom_id} was taken on the stay tried (409 UNAVAILABLE; ${free ?? 'unread'} of ${ownUnits} active units free now)`);
      }
      expectStatus(ctx, own, 201, null, '4.5.R6a', `a create on property ${other.doorloom_id} pinning its own unit alias ${alias}`);
    },
  }),
];

