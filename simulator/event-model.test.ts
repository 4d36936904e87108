/**
 * The event model as properties over random sequences of changes (§2.5–§2.7,
 * §3.3, §4.6, §4.8, §6): creates, cancellations, staff changes to nights,
 * rates, restrictions and units, syncs and clock moves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, dateAt } from '../protocol/calendar.ts';
import { expectConformingResponses, makeHarness, newKey, type Harness } from './testing.ts';

type Op =
  | { kind: 'create'; property: number; offset: number; nights: number; units: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'nights'; property: number; offset: number; span: number; blocked: boolean; cap: number | null }
  | { kind: 'rates'; property: number; offset: number; span: number; rate: number }
  | { kind: 'restrictions'; property: number; offset: number; span: number; minStay: number }
  | { kind: 'unit'; pick: number; active: boolean }
  | { kind: 'sync'; property: number | null; type: 'availability' | 'rates' | 'restrictions' | null }
  | { kind: 'clock'; hours: number }
  | { kind: 'snapshot'; snap: 'availability' | 'rates' | 'restrictions'; property: number; offset: number; span: number };

// Offsets keep every window at least 5 days ahead even after all clock moves (at most 3 days in all).
const offset = fc.integer({ min: 5, max: 40 });
const propertyIndex = fc.integer({ min: 0, max: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), property: propertyIndex, offset, nights: fc.integer({ min: 1, max: 4 }), units: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nights' as const), property: propertyIndex, offset, span: fc.integer({ min: 0, max: 6 }), blocked: fc.boolean(), cap: fc.option(fc.integer({ min: 0, max: 3 })) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rates' as const), property: propertyIndex, offset, span: fc.integer({ min: 0, max: 6 }), rate: fc.integer({ min: 1000, max: 9000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restrictions' as const), property: propertyIndex, offset, span: fc.integer({ min: 0, max: 6 }), minStay: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unit' as const), pick: fc.nat(), active: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sync' as const), property: fc.option(propertyIndex), type: fc.option(fc.constantFrom('availability' as const, 'rates' as const, 'restrictions' as const)) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clock' as const), hours: fc.integer({ min: 0, max: 12 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('snapshot' as const), snap: fc.constantFrom('availability' as const, 'rates' as const, 'restrictions' as const), property: propertyIndex, offset, span: fc.integer({ min: 0, max: 20 }) }) },
);

interface Checkpoint {
  snap: 'availability' | 'rates' | 'restrictions';
  property: number;
  from: string;
  to: string;
  body: any;
}

/** Runs the ops; returns the snapshots taken along the way. */
async function run(h: Harness, ops: Op[]): Promise<Checkpoint[]> {
  const props = h.fixtures.integrations[0]!.properties.filter((p) => !p.archived).map((p) => p.doorloom_id);
  const units = h.fixtures.integrations[0]!.properties.filter((p) => !p.archived).flatMap((p) => p.units.map((u) => u.inventory_id));
  const today = () => dateAt(h.sim.clock.now());
  const bookings: number[] = [];
  const checkpoints: Checkpoint[] = [];
  let hours = 0;
  for (const op of ops) {
    switch (op.kind) {
      case 'create': {
        const checkIn = addDays(today(), op.offset);
        const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({
          property: { doorloom_id: props[op.property] }, check_in: checkIn, check_out: addDays(checkIn, op.nights),
          units: Array.from({ length: op.units }, () => ({ adults: 1 })),
        }));
        expect([201, 409]).toContain(res.status);
        if (res.status === 201) bookings.push(res.body.data.id);
        break;
      }
      case 'cancel':
        if (bookings.length > 0) {
          const [id] = bookings.splice(op.pick % bookings.length, 1);
          await h.staff('post', `/bookings/${id}/status`, { status: 'cancelled' });
        }
        break;
      case 'nights':
        await h.staff('put', `/properties/${props[op.property]}/nights`, { from: addDays(today(), op.offset), to: addDays(today(), op.offset + op.span), is_blocked: op.blocked, units_cap: op.cap });
        break;
      case 'rates':
        await h.staff('put', `/properties/${props[op.property]}/rates`, { from: addDays(today(), op.offset), to: addDays(today(), op.offset + op.span), base_rate: op.rate });
        break;
      case 'restrictions':
        await h.staff('put', `/properties/${props[op.property]}/restrictions`, { from: addDays(today(), op.offset), to: addDays(today(), op.offset + op.span), min_stay: op.minStay });
        break;
      case 'unit':
        await h.staff('post', `/units/${units[op.pick % units.length]}/${op.active ? 'activate' : 'deactivate'}`);
        break;
      case 'sync': {
        const body: Record<string, unknown> = {};
        if (op.property !== null) body.property_ids = [props[op.property]];
        if (op.type !== null) body.types = [op.type];
        const res = await h.api('post', '/sync').send(body);
        expect([202, 429]).toContain(res.status);
        h.sim.sync.drain();
        break;
      }
      case 'clock':
        if (hours + op.hours <= 72) {
          hours += op.hours;
          await h.staff('post', '/clock/advance', { seconds: op.hours * 3600 });
        }
        break;
      case 'snapshot': {
        const from = addDays(today(), op.offset);
        const to = addDays(from, op.span);
        const res = await h.api('get', `/properties/${props[op.property]}/${op.snap}?from=${from}&to=${to}`);
        expect(res.status).toBe(200);
        checkpoints.push({ snap: op.snap, property: props[op.property]!, from, to, body: res.body.data });
        break;
      }
    }
  }
  return checkpoints;
}

/** Every retained event row, superseded ones included, by walking the cursor. */
async function allRows(h: Harness, query = 'include_superseded=true'): Promise<any[]> {
  const rows: any[] = [];
  for (let after = 0, more = true; more;) {
    const res = await h.api('get', `/events?after_sequence=${after}&limit=200&${query}`);
    expect(res.status).toBe(200);
    rows.push(...res.body.data);
    after = res.body.cursor.next_after_sequence;
    more = res.body.cursor.has_more;
  }
  return rows;
}

/** Per night: the comparable state of a payload (dates[] entry, plus units held for availability). */
function byNight(snap: Checkpoint['snap'], payload: any, from: string, to: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const entry of payload.dates) {
    if (entry.date < from || entry.date > to) continue;
    const held = snap === 'availability'
      ? payload.units.filter((u: any) => u.unavailable_dates.includes(entry.date)).map((u: any) => u.inventory_id).sort()
      : undefined;
    out.set(entry.date, { entry, held });
  }
  return out;
}

const params = { numRuns: 20, endOnFailure: true } as const;

describe('event model', () => {
  it('§2.5, §4.6: sequences are strictly increasing, never reused, and latest_sequence equals /me last_sequence', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
      const h = makeHarness();
      await run(h, ops);
      const rows = await allRows(h);
      const seqs = rows.map((r) => r.sequence);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      expect(rows.every((r) => r.event.sequence === r.sequence)).toBe(true);
      const me = await h.api('get', '/me');
      expect(me.body.data.webhook.last_sequence).toBe(seqs.length);
      const page = await h.api('get', '/events?limit=1');
      expect(page.body.cursor.latest_sequence).toBe(seqs.length);
      expectConformingResponses(h);
    }), params);
  });

  it('§4.6: paging from any cursor with any limit visits every non-superseded event exactly once, in order', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(opArb, { minLength: 1, maxLength: 25 }), fc.nat(), fc.integer({ min: 1, max: 9 }),
      // Filters are the exception, so most runs page through many events.
      fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('availability.changed', 'rates.changed', 'booking.changed') }),
      fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: propertyIndex }),
      async (ops, start, limit, type, property) => {
        const h = makeHarness();
        await run(h, ops);
        const all = await allRows(h);
        const after = start % (Math.floor(all.length / 3) + 1);
        const propertyId = property === null ? undefined : h.fixtures.integrations[0]!.properties[property]!.doorloom_id;
        const expected = all.filter((r) => r.sequence > after && r.status !== 'superseded' &&
          (type === null || r.event.type === type) && (propertyId === undefined || r.event.property.doorloom_id === propertyId)).map((r) => r.sequence);
        const seen: number[] = [];
        let cursor = after;
        for (let guard = 0; guard < 1000; guard++) {
          const filters = `${type ? `&types[]=${type}` : ''}${propertyId ? `&property_id=${propertyId}` : ''}`;
          const res = await h.api('get', `/events?after_sequence=${cursor}&limit=${limit}${filters}`);
          expect(res.status).toBe(200);
          expect(res.body.data.length).toBeLessThanOrEqual(limit);
          expect(res.body.cursor.after_sequence).toBe(cursor);
          seen.push(...res.body.data.map((r: any) => r.sequence));
          expect(res.body.cursor.next_after_sequence).toBeGreaterThanOrEqual(cursor);
          cursor = res.body.cursor.next_after_sequence;
          if (!res.body.cursor.has_more) break;
        }
        expect(seen).toEqual(expected);
        expectConformingResponses(h);
      }), params);
  });

  it('§3.3: a superseded event is always fully covered by a newer event of the same type and property', async () => {
    // The property holds vacuously on runs that supersede nothing: count what was judged, and judge enough.
    let judged = 0;
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
      const h = makeHarness();
      await run(h, ops);
      const rows = await allRows(h);
      for (const old of rows.filter((r) => r.status === 'superseded')) {
        judged += 1;
        const e = old.event;
        const cover = rows.find((r) => r.sequence > old.sequence && r.event.type === e.type &&
          r.event.property.doorloom_id === e.property.doorloom_id &&
          (e.type !== 'booking.changed' || r.event.data.id === e.data.id) &&
          r.event.window.from <= e.window.from && r.event.window.to >= e.window.to);
        expect(cover, `superseded event ${old.sequence} has no newer covering event`).toBeDefined();
      }
      const defaults = await allRows(h, 'include_superseded=false');
      expect(defaults.some((r) => r.status === 'superseded')).toBe(false);
    }), { ...params, numRuns: 60 });
    expect(judged, 'no generated run superseded anything: the property proved nothing').toBeGreaterThan(10);
  });

  it('§4.8 watermark rule: a snapshot plus every later event (apply-if-newer) equals a later snapshot', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
      const h = makeHarness();
      const checkpoints = await run(h, ops);
      const rows = await allRows(h, 'include_superseded=false');
      for (const cp of checkpoints) {
        const state = byNight(cp.snap, cp.body.data, cp.from, cp.to);
        for (const r of rows) {
          if (r.sequence <= cp.body.sequence || r.event.type !== `${cp.snap}.changed` || r.event.property.doorloom_id !== cp.property) continue;
          for (const [date, value] of byNight(cp.snap, r.event.data, cp.from, cp.to)) state.set(date, value);
        }
        const later = await h.api('get', `/properties/${cp.property}/${cp.snap}?from=${cp.from}&to=${cp.to}`);
        expect(Object.fromEntries(state)).toEqual(Object.fromEntries(byNight(cp.snap, later.body.data.data, cp.from, cp.to)));
      }
    }), params);
  });

  it('§2.7: snapshot data.data is byte-identical to the data of an event for the same window and state', async () => {
    const h = makeHarness();
    const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    const from = addDays(dateAt(h.sim.clock.now()), 10);
    await h.staff('put', `/properties/${property}/nights`, { from, to: addDays(from, 3), units_cap: 1 });
    await h.staff('put', `/properties/${property}/rates`, { from, to: addDays(from, 3), base_rate: 7777 });
    await h.staff('put', `/properties/${property}/restrictions`, { from, to: addDays(from, 3), min_stay: 3 });
    const rows = await allRows(h);
    for (const snap of ['availability', 'rates', 'restrictions']) {
      const event = rows.filter((r) => r.event.type === `${snap}.changed`).at(-1)!.event;
      const res = await h.api('get', `/properties/${property}/${snap}?from=${event.window.from}&to=${event.window.to}`);
      const text = res.text;
      const start = text.indexOf('"data":{"', text.indexOf('"window"'));
      expect(text.slice(start + 7, -2)).toBe(JSON.stringify(event.data));
    }
    expectConformingResponses(h);
  });

  it('§3.1: a disabled integration records nothing', async () => {
    const h = makeHarness();
    const disabled = h.fixtures.integrations[2]!;
    await h.staff('put', `/properties/${disabled.properties[0]!.doorloom_id}/rates`, { from: '2026-10-01', to: '2026-10-02', base_rate: 1 });
    expect(h.sim.store.get('integrations', String(disabled.id))!.last_sequence).toBe(0);
    await h.staff('post', `/integrations/${disabled.id}/enable`);
    await h.staff('put', `/properties/${disabled.properties[0]!.doorloom_id}/rates`, { from: '2026-10-01', to: '2026-10-02', base_rate: 2 });
    expect(h.sim.store.get('integrations', String(disabled.id))!.last_sequence).toBe(1);
  });

  it('§2.1: dates beyond horizon_days are not pushed; only subscribed types and covered properties are', async () => {
    const h = makeHarness();
    const acme = h.fixtures.integrations[0]!;
    const today = dateAt(h.sim.clock.now());
    await h.staff('put', `/properties/${acme.properties[0]!.doorloom_id}/rates`, { from: addDays(today, 365), to: addDays(today, 400), base_rate: 1 });
    await h.staff('put', `/properties/${acme.properties[0]!.doorloom_id}/rates`, { from: addDays(today, 360), to: addDays(today, 400), base_rate: 2 });
    await h.staff('put', `/integrations/${acme.id}/webhook`, { event_types: ['booking.changed'] });
    await h.staff('put', `/properties/${acme.properties[0]!.doorloom_id}/rates`, { from: addDays(today, 1), to: addDays(today, 2), base_rate: 3 });
    await h.staff('put', `/properties/${h.fixtures.integrations[1]!.properties[0]!.doorloom_id}/rates`, { from: addDays(today, 1), to: addDays(today, 2), base_rate: 3 });
    const rows = await allRows(h);
    expect(rows.map((r) => [r.event.type, r.event.window])).toEqual([['rates.changed', { from: addDays(today, 360), to: addDays(today, 364) }]]);
    expectConformingResponses(h);
  });
});
