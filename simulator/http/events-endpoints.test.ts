/** §4.6 replay parameters and retention, §4.8 snapshot rules, the property list. */
import { describe, expect, it } from 'vitest';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { expectConformingResponses, makeHarness, newKey } from '../testing.ts';

describe('GET /events', () => {
  it.each([
    ['limit=0', 'limit'], ['limit=201', 'limit'], ['after_sequence=-1', 'after_sequence'], ['after_sequence=abc', 'after_sequence'],
    ['types[]=bookings.changed', 'types[].0'], ['include_superseded=maybe', 'include_superseded'], ['property_id=x', 'property_id'],
  ])('§4.6: %s is 422 VALIDATION_FAILED naming the parameter', async (query, field) => {
    const h = makeHarness();
    const res = await h.api('get', `/events?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.errors).join()).toContain(field.split('.')[0]);
    expectConformingResponses(h);
  });

  it('§4.6: limit defaults to 100 and cursor is a top-level sibling of data', async () => {
    const h = makeHarness();
    const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    for (let i = 0; i < 110; i++) await h.staff('put', `/properties/${property}/rates`, { from: addDays('2026-10-01', i), to: addDays('2026-10-01', i), base_rate: 1000 + i });
    const res = await h.api('get', '/events');
    expect(res.body.data).toHaveLength(100);
    expect(res.body.cursor).toEqual({ after_sequence: 0, next_after_sequence: 100, has_more: true, latest_sequence: 110, retention_days: 30 });
    expect(res.body.data.cursor).toBeUndefined();
    expectConformingResponses(h);
  });

  it('§6.7: events are retained 30 days; an older cursor resumes at the oldest retained event', async () => {
    const h = makeHarness();
    const property = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    await h.staff('put', `/properties/${property}/rates`, { from: '2026-10-01', to: '2026-10-01', base_rate: 1 });
    await h.staff('post', '/clock/advance', { seconds: 29 * 86_400 });
    await h.staff('put', `/properties/${property}/rates`, { from: '2026-10-02', to: '2026-10-02', base_rate: 2 });
    expect((await h.api('get', '/events')).body.data.map((r: any) => r.sequence)).toEqual([1, 2]);
    await h.staff('post', '/clock/advance', { seconds: 86_400 + 1 });
    const res = await h.api('get', '/events');
    expect(res.body.data.map((r: any) => r.sequence)).toEqual([2]);
    expect(res.body.cursor.latest_sequence).toBe(2);
    expectConformingResponses(h);
  });

  it('§2.6: replay rows carry status and delivered_at and the envelope exactly as stored', async () => {
    const h = makeHarness();
    await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody());
    const res = await h.api('get', '/events');
    const stored = h.sim.store.get('events', '1:2')!;
    expect(res.text).toContain(`"event":${stored.body}`);
    expect(res.body.data[1]).toMatchObject({ sequence: 2, status: 'pending', delivered_at: null });
    expect(res.body.data[1].event.data.origin).toBe('partner');
    expectConformingResponses(h);
  });
});

describe('snapshots', () => {
  it('§4.8: the property is addressed by platform id or partner alias', async () => {
    const h = makeHarness();
    const p = h.fixtures.integrations[0]!.properties[0]!;
    const byId = await h.api('get', `/properties/${p.doorloom_id}/availability?from=2026-10-01&to=2026-10-02`);
    const byAlias = await h.api('get', `/properties/${encodeURIComponent(p.external_id)}/availability?from=2026-10-01&to=2026-10-02`);
    expect(byId.status).toBe(200);
    expect(byAlias.text).toBe(byId.text);
    expect(byId.body.data).toMatchObject({ property: { doorloom_id: p.doorloom_id, external_id: p.external_id }, window: { from: '2026-10-01', to: '2026-10-02' } });
    expect(byId.body.data.data.dates).toHaveLength(2);
    expectConformingResponses(h);
  });

  it.each(['availability', 'rates', 'restrictions'])('§4.8: a %s snapshot of a property reference longer than any alias (129 characters) is 404 NOT_FOUND, an unknown property, not 422', async (kind) => {
    const h = makeHarness();
    const res = await h.api('get', `/properties/${'p'.repeat(129)}/${kind}?from=2026-10-01&to=2026-10-02`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expectConformingResponses(h);
  });

  it.each(['availability', 'rates', 'restrictions'])('§4.8: %s window over 92 nights and `to` beyond 730 days are 422 against `to`', async (kind) => {
    const h = makeHarness();
    const p = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    const today = dateAt(h.sim.clock.now());
    const ok = await h.api('get', `/properties/${p}/${kind}?from=${today}&to=${addDays(today, 91)}`);
    expect(ok.status).toBe(200);
    for (const [from, to] of [[today, addDays(today, 92)], [addDays(today, 700), addDays(today, 731)], [addDays(today, 5), addDays(today, 4)]]) {
      const res = await h.api('get', `/properties/${p}/${kind}?from=${from}&to=${to}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['to']);
    }
    const edge = await h.api('get', `/properties/${p}/${kind}?from=${addDays(today, 700)}&to=${addDays(today, 730)}`);
    expect(edge.status).toBe(200);
    const missing = await h.api('get', `/properties/${p}/${kind}?from=${today}`);
    expect(missing.status).toBe(422);
    expectConformingResponses(h);
  });

  it('§4.8, §1: an unknown, uncovered or other integration’s property is 404', async () => {
    const h = makeHarness();
    for (const ref of ['999999', 'NOPE', String(h.fixtures.integrations[1]!.properties[0]!.doorloom_id), h.fixtures.integrations[1]!.properties[0]!.external_id]) {
      const res = await h.api('get', `/properties/${ref}/rates?from=2026-10-01&to=2026-10-02`);
      expect(res.status, ref).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expectConformingResponses(h);
  });

  it('§4.8: the watermark is the integration’s latest sequence when the payload is built', async () => {
    const h = makeHarness();
    await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody());
    const snap = await h.api('get', `/properties/${h.fixtures.integrations[0]!.properties[0]!.doorloom_id}/availability?from=2026-10-01&to=2026-10-05`);
    expect(snap.body.data.sequence).toBe(2);
    expect(snap.body.data.data.dates[0]).toMatchObject({ date: '2026-10-01', available_units: 3, total_units: 4 });
    expectConformingResponses(h);
  });
});

describe('GET /properties', () => {
  it('lists every covered property with inventory, paged with top-level pagination', async () => {
    const h = makeHarness();
    const res = await h.api('get', '/properties?per_page=3');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 3, total: 4, last_page: 2 });
    expect(res.body.data.map((p: any) => p.doorloom_id)).toEqual(h.fixtures.integrations[0]!.properties.slice(0, 3).map((p) => p.doorloom_id));
    const second = await h.api('get', '/properties?per_page=3&page=2');
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].property.archived).toBe(true);
    expect((await h.api('get', '/properties?per_page=201')).status).toBe(422);
    expectConformingResponses(h);
  });
});
