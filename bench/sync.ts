/**
 * Comparison 5: POST /sync for 500 covered properties, from the request to
 * the moment every event of the job is in the log, with the simulator's own
 * background worker (one property per turn of the event loop, as served).
 * Each round is a fresh world: a sync is accepted once per 24 hours.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_ROOT } from '../simulator/http/app.ts';
import { createProperty, createUnit, setCoverage } from '../simulator/domain/catalog.ts';
import { makeHarness } from '../simulator/testing.ts';
import { median, msSince, runRounds, yieldToLoop } from './measure.ts';
import { plural, type Outcome } from './report.ts';

export interface SyncOptions {
  properties: number;
  unitsPerProperty: number;
  warmupProperties: number;
  rounds: number;
}

interface SyncRound {
  properties: number;
  events: number;
  acceptedMs: number;
  seconds: number;
}

const ROUND_BUDGET_MS = 120_000;

async function syncRound(properties: number, unitsPerProperty: number): Promise<SyncRound> {
  const h = makeHarness();
  const integration = h.sim.store.get('integrations', '1')!;
  const ids: number[] = [];
  h.sim.store.transaction((tx) => {
    const ctx = { changes: h.sim.platform.deps.changes };
    for (let p = 0; p < properties; p++) {
      const property = createProperty(tx, { brand_id: integration.brand_id, name: `Sync Bench ${p}`, external_id: `SYNC-${p}` });
      for (let u = 0; u < unitsPerProperty; u++) createUnit(tx, ctx, property.id, { name: `Room ${u}`, external_unit_id: `SYNC-${p}-${u}` });
      ids.push(property.id);
    }
    setCoverage(tx, integration.id, [...integration.coverage, ...ids]);
    const i = tx.get('integrations', String(integration.id))!;
    tx.put('integrations', String(i.id), { ...i, rate_limit: { limit: 1_000_000_000, window_seconds: 86_400 } });
  });
  const server: Server = h.sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}/sync`;
    const before = h.sim.store.get('integrations', '1')!.last_sequence;
    const t0 = process.hrtime.bigint();
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.fixtures.integrations[0]!.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ property_ids: ids }),
    });
    const text = await res.text();
    const acceptedMs = msSince(t0);
    if (res.status !== 202) throw new Error(`POST /sync answered ${res.status}: ${text.slice(0, 300)}`);
    while (h.sim.events.syncJobs().length > 0) {
      if (msSince(t0) > ROUND_BUDGET_MS) throw new Error(`the sync of ${properties} properties was not done within ${ROUND_BUDGET_MS / 1000} s`);
      await yieldToLoop();
    }
    const seconds = msSince(t0) / 1000;
    return { properties, events: h.sim.store.get('integrations', '1')!.last_sequence - before, acceptedMs, seconds };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export async function compareSync(o: SyncOptions): Promise<Outcome> {
  await syncRound(o.warmupProperties, o.unitsPerProperty);
  const rounds = await runRounds(() => syncRound(o.properties, o.unitsPerProperty), { warmup: 0, rounds: o.rounds, budgetMs: 90_000 });
  const seconds = median(rounds.map((r) => r.seconds));
  const events = rounds[0]!.events;
  return {
    comparison: {
      id: 5,
      title: `POST /sync for ${o.properties} properties: until all its events are in the log`,
      status: 'measured',
      method: `in process; a fresh world per round with ${o.properties} covered properties of ${o.unitsPerProperty} units (made through the domain); POST /sync over loopback HTTP, then the simulator's background worker until the job is gone; warm-up round of ${o.warmupProperties} properties, then ${plural(rounds.length, 'round')}; medians`,
      columns: [
        { key: 'accepted', label: '202 after ms', digits: 1 },
        { key: 'seconds', label: 'all events in s', digits: 2 },
        { key: 'events', label: 'events', digits: 0 },
        { key: 'rate', label: 'events/s', digits: 0 },
      ],
      rows: [{ label: `${o.properties} properties, 5 types, every month of the horizon`, values: { accepted: median(rounds.map((r) => r.acceptedMs)), seconds, events, rate: median(rounds.map((r) => r.events / r.seconds)) } }],
      ratios: [],
      notes: [`Round times: ${rounds.map((r) => `${r.seconds.toFixed(2)} s`).join(', ')}; one event per type, per property, per calendar month of the integration's horizon (§4.7).`],
    },
    targets: [],
  };
}
