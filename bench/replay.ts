/**
 * Replay cost against log size (issue "simulator events": a page with
 * 1,000,000 events in the log answers in about the same time as with 1,000).
 * Events are written straight into the store, then GET /events pages of 200
 * are timed over HTTP (the app listening on loopback, one keep-alive
 * connection, one request at a time) at cursors spread over the log.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_ROOT } from '../simulator/http/app.ts';
import { eventKey } from '../simulator/domain/event-log.ts';
import { makeHarness } from '../simulator/testing.ts';
import { percentile, median, runRounds } from './measure.ts';
import { plural, ratio, target, type Outcome } from './report.ts';

export interface ReplayResult {
  events: number;
  medianMs: number;
  p99Ms: number;
}

/** A simulator holding `events` delivered events of one integration, serving on loopback. */
export interface ReplayWorld {
  events: number;
  /** Fetches and checks `pages` pages of 200 at spread cursors; returns each page's milliseconds. */
  pages(pages: number): Promise<number[]>;
  close(): Promise<void>;
}

export async function prepareReplay(events: number): Promise<ReplayWorld> {
  // Timed as `npm start` serves: no contract check of each response.
  const h = makeHarness({ checkResponses: false });
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
    // No rate limit in the way of a benchmark.
    tx.put('integrations', String(i.id), { ...i, last_sequence: events, rate_limit: { limit: 1_000_000_000, window_seconds: 86_400 } });
    tx.put('eventStreams', String(i.id), { first_retained: 1, undelivered: 0 });
  });
  const server: Server = h.sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
  const headers = { authorization: `Bearer ${integration.apiKey}` };
  let call = 0;
  return {
    events,
    async pages(pages) {
      const times: number[] = [];
      for (let i = 0; i < pages; i++, call++) {
        const after = Math.floor(((call * 7919) % 1000) / 1000 * Math.max(0, events - 200));
        const t0 = process.hrtime.bigint();
        const res = await fetch(`${base}/events?after_sequence=${after}&limit=200`, { headers });
        const page = (await res.json()) as { data?: unknown[] };
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (res.status !== 200 || page.data?.length !== Math.min(200, events - after)) throw new Error(`bad page at ${after}: ${res.status}`);
      }
      return times;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One log size on its own: 20 warm-up pages, then `pages` timed ones. */
export async function benchReplay(events: number, pages = 300): Promise<ReplayResult> {
  const world = await prepareReplay(events);
  try {
    await world.pages(20);
    const times = await world.pages(pages);
    return { events, medianMs: median(times), p99Ms: percentile(times, 99) };
  } finally {
    await world.close();
  }
}

export interface ReplayOptions {
  small: number;
  large: number;
  warmupPages: number;
  rounds: number;
  pagesPerRound: number;
}

/**
 * Comparison 3: both logs are built first, then each round times pages on
 * both (alternating which goes first); the figure is the median of the
 * rounds' medians.
 */
export async function compareReplay(o: ReplayOptions): Promise<Outcome> {
  const tBuild = process.hrtime.bigint();
  const small = await prepareReplay(o.small);
  const large = await prepareReplay(o.large);
  const buildSeconds = Number(process.hrtime.bigint() - tBuild) / 1e9;
  try {
    const medians = new Map([[small, [] as number[]], [large, [] as number[]]]);
    const all = new Map([[small, [] as number[]], [large, [] as number[]]]);
    await small.pages(o.warmupPages);
    await large.pages(o.warmupPages);
    await runRounds(async (round) => {
      for (const world of round % 2 === 0 ? [small, large] : [large, small]) {
        const times = await world.pages(o.pagesPerRound);
        medians.get(world)!.push(median(times));
        all.get(world)!.push(...times);
      }
    }, { warmup: 0, rounds: o.rounds, budgetMs: 60_000 });
    const figure = (w: ReplayWorld) => median(medians.get(w)!);
    const r = ratio(figure(large), figure(small));
    const rounds = medians.get(small)!.length;
    return {
      comparison: {
        id: 3,
        title: 'GET /events page of 200: 1,000 vs 1,000,000 events in the log',
        status: 'measured',
        method: `in process over loopback HTTP as npm start serves (no contract check of responses), one keep-alive connection, one request at a time; ${o.warmupPages} warm-up pages per log, then ${plural(rounds, 'round')} of ${o.pagesPerRound} pages at cursors spread over the log; median of the round medians, p99 of all pages`,
        columns: [
          { key: 'median', label: 'median ms', digits: 2 },
          { key: 'p99', label: 'p99 ms', digits: 2 },
          { key: 'pages', label: 'pages timed', digits: 0 },
        ],
        rows: [small, large].map((w) => ({ label: `${w.events.toLocaleString('en-US')} events`, values: { median: figure(w), p99: percentile(all.get(w)!, 99), pages: all.get(w)!.length } })),
        ratios: [{ label: `${o.large.toLocaleString('en-US')} / ${o.small.toLocaleString('en-US')}`, value: r }],
        notes: [`Building both logs took ${buildSeconds.toFixed(1)} s (not timed).`],
      },
      targets: [
        target({ id: 'replay-flat', comparison: 3, description: `events page at ${o.large.toLocaleString('en-US')} / at ${o.small.toLocaleString('en-US')} events`, kind: 'atMost', bound: 1.5, unit: '×', measured: r }, () =>
          'A page should cost the same whatever the log size: replay reads keys by sequence, so growth means something scans the log (or the garbage collector works on a heap that holds it); profile the large case with node --cpu-prof.'),
        // Issue "hardening": a page of 200 in at most 3 ms (median, client's fetch and parse included).
        target({ id: 'replay-page', comparison: 3, description: `events page of 200 at ${o.large.toLocaleString('en-US')} events, median`, kind: 'atMost', bound: 3, unit: 'ms', measured: figure(large) }, () =>
          'A page is 200 key reads and one string join; time beyond that is per-row work (formatting, copying stored bodies) or a response check left on: profile with node --cpu-prof.'),
      ],
    };
  } finally {
    await small.close();
    await large.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const small = await benchReplay(1_000);
  const large = await benchReplay(1_000_000);
  console.log(JSON.stringify({ small, large, ratio: large.medianMs / small.medianMs }, null, 2));
}
