/** §4.7 and §8: POST /sync normalisation, limits, charging order and monthly chunking, across clock moves. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, dateAt, endOfMonth } from '../protocol/calendar.ts';
import { monthChunks, normaliseTypes } from './domain/sync.ts';
import { expectConformingResponses, makeHarness, type Harness } from './testing.ts';

const HOUR = 3600;

async function rows(h: Harness, after = 0): Promise<any[]> {
  const out: any[] = [];
  for (let cursor = after, more = true; more;) {
    const res = await h.api('get', `/events?after_sequence=${cursor}&limit=200&include_superseded=true`);
    out.push(...res.body.data);
    cursor = res.body.cursor.next_after_sequence;
    more = res.body.cursor.has_more;
  }
  return out;
}

describe('POST /sync', () => {
  it('§4.7: normalises types to the .changed names and accepts both spellings', () => {
    expect(normaliseTypes(['rates', 'availability.changed', 'rates.changed'])).toEqual(['availability.changed', 'rates.changed']);
    expect(normaliseTypes(undefined)).toEqual(['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed']);
  });

  it('§4.7: an empty body queues every covered property and all five types', async () => {
    const h = makeHarness();
    const res = await h.api('post', '/sync');
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({
      queued_properties: h.fixtures.integrations[0]!.properties.length,
      horizon_days: 365,
      types: ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed'],
    });
    expectConformingResponses(h);
  });

  it('§4.7: one event per type, per property, per calendar month within the horizon, in sequence order', async () => {
    const h = makeHarness();
    const property = h.fixtures.integrations[0]!.properties[1]!.doorloom_id;
    const res = await h.api('post', '/sync').send({ property_ids: [property], types: ['rates', 'inventory'] });
    expect(res.status).toBe(202);
    h.sim.sync.drain();
    const events = await rows(h);
    const today = dateAt(h.sim.clock.now());
    const months = monthChunks(today, addDays(today, 364));
    expect(months).toHaveLength(13);
    expect(events.map((r) => [r.event.type, r.event.window])).toEqual([
      ...months.map((m) => ['rates.changed', m]),
      ...months.map((m) => ['inventory.changed', m]),
    ]);
    for (const r of events) {
      expect(r.event.window.to <= endOfMonth(r.event.window.from)).toBe(true);
      expect(r.event.property.doorloom_id).toBe(property);
    }
    expect(events.map((r) => r.sequence)).toEqual(events.map((_, i) => i + 1));
    expectConformingResponses(h);
  });

  it('a clock step answers only once a queued sync has recorded all its events (control plane clock.advance: everything due happens first)', async () => {
    // Issue 38: the runner waits for the step, not for a quiet second. The worker is kept from running here, so only
    // the step can have emitted the events: one per type, per property, per calendar month (§4.7).
    const h = makeHarness();
    h.sim.sync.kick = () => undefined;
    const property = h.fixtures.integrations[0]!.properties[1]!.doorloom_id;
    expect((await h.api('post', '/sync').send({ property_ids: [property], types: ['property'] })).status).toBe(202);
    expect(await rows(h)).toEqual([]);
    await h.staff('post', '/clock/advance', { seconds: 0 });
    const today = dateAt(h.sim.clock.now());
    expect((await rows(h)).map((r) => r.event.window)).toEqual(monthChunks(today, addDays(today, 364)));
    expect(h.sim.events.syncJobs()).toEqual([]);
  });

  it('§4.7: validation runs before the interval is charged, so a 422 does not consume the window', async () => {
    const h = makeHarness();
    const other = h.fixtures.integrations[1]!.properties[0]!.doorloom_id;
    const notMapped = await h.api('post', '/sync').send({ property_ids: [other] });
    expect(notMapped.status).toBe(422);
    expect(notMapped.body.code).toBe('PROPERTY_NOT_MAPPED');
    expect(notMapped.body.errors).toHaveProperty(['property_ids.0']);
    for (const body of [{ types: ['bookings'] }, { property_ids: [] }, { property_ids: Array.from({ length: 501 }, (_, i) => i + 1) }, { property_ids: 'all' }, { types: [] }]) {
      const res = await h.api('post', '/sync').send(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await h.api('post', '/sync')).status).toBe(202);
    expectConformingResponses(h);
  });

  it('§4.7, §8: within 24 hours SYNC_TOO_SOON with errors.retry_after; the seventh call of a day RATE_LIMITED', async () => {
    const h = makeHarness();
    expect((await h.api('post', '/sync')).status).toBe(202);
    await h.staff('post', '/clock/advance', { seconds: HOUR });
    const soon = await h.api('post', '/sync');
    expect(soon.status).toBe(429);
    expect(soon.body.code).toBe('SYNC_TOO_SOON');
    expect(soon.body.errors.retry_after).toBe(23 * HOUR);
    expect(soon.headers['retry-after']).toBe(String(23 * HOUR));
    for (let i = 0; i < 4; i++) expect((await h.api('post', '/sync')).body.code).toBe('SYNC_TOO_SOON');
    const capped = await h.api('post', '/sync');
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('RATE_LIMITED');
    expect(capped.headers['retry-after']).toBeDefined();
    // Refusals count toward the cap: 24 hours after them the rolling day is clear again.
    await h.staff('post', '/clock/advance', { seconds: 23 * HOUR });
    expect((await h.api('post', '/sync')).body.code).toBe('RATE_LIMITED');
    await h.staff('post', '/clock/advance', { seconds: HOUR });
    expect((await h.api('post', '/sync')).status).toBe(202);
    expectConformingResponses(h);
  });

  it('§8 "one per 24 hours", stated from the document: SYNC_TOO_SOON one second before the 24 hours (retry_after 1), accepted at 24 hours', async () => {
    const DAY_SECONDS = 24 * 60 * 60;
    const h = makeHarness();
    expect((await h.api('post', '/sync')).status).toBe(202);
    await h.staff('post', '/clock/advance', { seconds: DAY_SECONDS - 1 });
    const soon = await h.api('post', '/sync');
    expect(soon.body.code).toBe('SYNC_TOO_SOON');
    expect(soon.body.errors.retry_after).toBe(1);
    await h.staff('post', '/clock/advance', { seconds: 1 });
    expect((await h.api('post', '/sync')).status).toBe(202);
  });

  it('§7, §8: the daily cap\'s Retry-After holds when the calls came together: counted from the call that must leave the rolling day, not the oldest', async () => {
    const DAY_SECONDS = 24 * 60 * 60;
    const h = makeHarness();
    expect((await h.api('post', '/sync')).status).toBe(202);
    await h.staff('post', '/clock/advance', { seconds: HOUR });
    // Five refusals and the capped call, all an hour after the first: the oldest leaving (23 hours on) is not enough.
    for (let i = 0; i < 5; i++) expect((await h.api('post', '/sync')).body.code).toBe('SYNC_TOO_SOON');
    const capped = await h.api('post', '/sync');
    expect(capped.body.code).toBe('RATE_LIMITED');
    expect(capped.headers['retry-after']).toBe(String(DAY_SECONDS));
    await h.staff('post', '/clock/advance', { seconds: DAY_SECONDS - 1 });
    expect((await h.api('post', '/sync')).body.code).toBe('RATE_LIMITED');
    await h.staff('post', '/clock/advance', { seconds: 1 });
    expect((await h.api('post', '/sync')).status).toBe(202);
  });

  it('§8 "six calls per day, refusals included", stated from the document: the sixth call is answered by the interval, the seventh is RATE_LIMITED', async () => {
    const SIX = 6;
    const h = makeHarness();
    const codes: string[] = [];
    for (let i = 0; i < SIX + 1; i++) {
      const res = await h.api('post', '/sync');
      codes.push(res.status === 202 ? 'ACCEPTED' : res.body.code);
    }
    expect(codes).toEqual(['ACCEPTED', 'SYNC_TOO_SOON', 'SYNC_TOO_SOON', 'SYNC_TOO_SOON', 'SYNC_TOO_SOON', 'SYNC_TOO_SOON', 'RATE_LIMITED']);
  });

  it('§6.7 "retained 30 days", stated from the document: a sync\'s events are replayed a second before 30 days and gone a second after', async () => {
    const RETENTION_SECONDS = 30 * 24 * 60 * 60;
    const h = makeHarness();
    const before = (await h.api('get', '/events?limit=1')).body.cursor.latest_sequence as number;
    expect((await h.api('post', '/sync')).status).toBe(202);
    await h.staff('post', '/clock/advance', { seconds: 1 });
    const events = await rows(h, before);
    expect(events.length).toBeGreaterThan(0);
    // The events of one sync step share their recording time: judge them from it.
    const recorded = Math.max(...events.map((r) => Date.parse(r.event.occurred_at)));
    const synced = events.filter((r) => Date.parse(r.event.occurred_at) === recorded).map((r) => r.sequence);
    const { epoch_ms: now } = await h.staff<{ epoch_ms: number }>('post', '/clock/advance', { seconds: 0 });
    await h.staff('post', '/clock/advance', { seconds: Math.round((recorded + (RETENTION_SECONDS - 1) * 1000 - now) / 1000) });
    expect((await rows(h, before)).map((r) => r.sequence)).toEqual(expect.arrayContaining(synced));
    await h.staff('post', '/clock/advance', { seconds: 2 });
    expect((await rows(h, before)).filter((r) => synced.includes(r.sequence))).toEqual([]);
  });

  it('§4.7, §8: over any sequence of calls and clock moves, answers follow the charging model', async () => {
    type Call = { advance: number; valid: boolean };
    await fc.assert(fc.asyncProperty(fc.array(fc.record({ advance: fc.integer({ min: 0, max: 30 }), valid: fc.boolean() }), { minLength: 1, maxLength: 20 }), async (calls: Call[]) => {
      const h = makeHarness();
      let now = 0;
      let lastAccepted: number | null = null;
      let charged: number[] = [];
      for (const call of calls) {
        now += call.advance * HOUR;
        if (call.advance > 0) await h.staff('post', '/clock/advance', { seconds: call.advance * HOUR });
        const res = await h.api('post', '/sync').send(call.valid ? {} : { types: ['nope'] });
        if (!call.valid) {
          expect(res.status).toBe(422);
          continue;
        }
        charged = charged.filter((t) => now - t < 24 * HOUR);
        charged.push(now);
        const expected = charged.length > 6 ? 'RATE_LIMITED' : lastAccepted !== null && now - lastAccepted < 24 * HOUR ? 'SYNC_TOO_SOON' : 'ACCEPTED';
        if (expected === 'ACCEPTED') lastAccepted = now;
        expect(res.status === 202 ? 'ACCEPTED' : res.body.code).toBe(expected);
      }
      expectConformingResponses(h);
    }), { numRuns: 30 });
  });

  it('§4.7: sync events are recorded only for subscribed types', async () => {
    const h = makeHarness();
    await h.staff('put', '/integrations/1/webhook', { event_types: ['rates.changed'] });
    const property = h.fixtures.integrations[0]!.properties[1]!.doorloom_id;
    await h.api('post', '/sync').send({ property_ids: [property], types: ['rates', 'restrictions'] });
    h.sim.sync.drain();
    expect(new Set((await rows(h)).map((r) => r.event.type))).toEqual(new Set(['rates.changed']));
  });

  it('runs queued syncs in the background without a drain', async () => {
    const h = makeHarness();
    await h.api('post', '/sync').send({ types: ['property'] });
    for (let i = 0; i < 50 && h.sim.events.syncJobs().length > 0; i++) await new Promise((r) => setImmediate(r));
    expect(h.sim.events.syncJobs()).toEqual([]);
    expect((await rows(h)).length).toBe(13 * h.fixtures.integrations[0]!.properties.length);
  });
});
