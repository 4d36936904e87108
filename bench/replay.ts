/**
 * Replay cost against log size (issue "simulator events": a page with
 * 1,000,000 events in the log answers in about the same time as with 1,000).
 * Events are written straight into the store, then GET /events pages of 200
 * are timed through the Koa app at cursors spread over the log.
 */
import supertest from 'supertest';
import { API_ROOT } from '../simulator/http/app.ts';
import { eventKey } from '../simulator/domain/event-log.ts';
import { makeHarness } from '../simulator/testing.ts';

export interface ReplayResult {
  events: number;
  medianMs: number;
  p99Ms: number;
}

export async function benchReplay(events: number, pages = 300): Promise<ReplayResult> {
  const h = makeHarness();
  const integration = h.fixtures.integrations[0]!;
  const property = integration.properties[0]!;
  const now = h.sim.clock.now();
  const body = (seq: number) => JSON.stringify({
    id: '01M2HW44J08EGSHT7TWSM52MGX', type: 'rates.changed', version: '2026-09', sequence: seq, occurred_at: '2026-09-15T12:00:00+05:30',
    integration: { id: integration.id, slug: integration.slug }, property: { doorloom_id: property.doorloom_id, external_id: property.external_id, master_property_id: property.doorloom_id },
    window: { from: '2026-10-01', to: '2026-10-01' }, data: { currency: 'INR', dates: [{ date: '2026-10-01', base_rate: 6000, extra_adult_rate: 800, extra_child_rate: 400 }] },
  });
  h.sim.store.transaction((tx) => {
    for (let seq = 1; seq <= events; seq++) {
      tx.put('events', eventKey(integration.id, seq), {
        integration_id: integration.id, sequence: seq, type: 'rates.changed', property_id: property.doorloom_id, booking_id: null,
        from: '2026-10-01', to: '2026-10-01', occurred_at: now, status: 'delivered', delivered_at: now, body: body(seq), attempts: 1, next_attempt_at: null,
      });
    }
    const i = tx.get('integrations', String(integration.id))!;
    tx.put('integrations', String(i.id), { ...i, last_sequence: events });
    tx.put('eventStreams', String(i.id), { first_retained: 1, undelivered: 0 });
  });
  const http = supertest(h.sim.app.callback());
  const times: number[] = [];
  for (let i = 0; i < pages + 20; i++) {
    const after = Math.floor(((i * 7919) % 1000) / 1000 * Math.max(0, events - 200));
    const t0 = process.hrtime.bigint();
    const res = await http.get(`${API_ROOT}/events?after_sequence=${after}&limit=200`).set('Authorization', `Bearer ${integration.apiKey}`);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 200 || res.body.data.length !== Math.min(200, events - after)) throw new Error(`bad page at ${after}: ${res.status}`);
    if (i >= 20) times.push(ms); // the first pages warm up the JIT
  }
  times.sort((a, b) => a - b);
  return { events, medianMs: times[Math.floor(times.length / 2)]!, p99Ms: times[Math.floor(times.length * 0.99)]! };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const small = await benchReplay(1_000);
  const large = await benchReplay(1_000_000);
  console.log(JSON.stringify({ small, large, ratio: large.medianMs / small.medianMs }, null, 2));
}
