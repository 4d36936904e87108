/**
 * Comparison 4: availability, rates and restrictions snapshots of 92 nights
 * (§4.8's widest window) for a property of 50 units. The property, its
 * units, rates, restrictions and blocks are made through the staff plane,
 * and bookings through the partner API, so availability varies night by
 * night; then the three snapshots are timed over loopback HTTP, one
 * keep-alive connection, one request at a time, in interleaved rounds.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_ROOT } from '../simulator/http/app.ts';
import { addDays } from '../protocol/calendar.ts';
import { SNAPSHOT_MAX_NIGHTS } from '../simulator/domain/snapshots.ts';
import { makeHarness, newKey } from '../simulator/testing.ts';
import { median, percentile, runRounds, timeCalls } from './measure.ts';
import { plural, type Outcome, type Row } from './report.ts';

export interface SnapshotOptions {
  units: number;
  bookings: number;
  warmupCalls: number;
  rounds: number;
  callsPerRound: number;
}

const KINDS = ['availability', 'rates', 'restrictions'] as const;
const FROM = '2026-10-01';

export async function compareSnapshots(o: SnapshotOptions): Promise<Outcome> {
  const h = makeHarness();
  const integration = h.sim.store.get('integrations', '1')!;
  const property = await h.staff<{ id: number }>('post', '/properties', { brand_id: integration.brand_id, name: 'Bench Towers', external_id: 'BENCH-50', city: 'Pune' });
  for (let u = 1; u <= o.units; u++) await h.staff('post', `/properties/${property.id}/units`, { name: `Room ${u}`, external_unit_id: `BENCH-${u}` });
  await h.staff('put', `/integrations/${integration.id}/coverage`, { property_ids: [...integration.coverage, property.id] });
  await h.staff('put', `/integrations/${integration.id}/rate-limit`, { limit: 1_000_000_000, window_seconds: 86_400 });
  const to = addDays(FROM, SNAPSHOT_MAX_NIGHTS - 1);
  // Texture: a season rate, weekend-ish restrictions, a block and a cap.
  await h.staff('put', `/properties/${property.id}/rates`, { from: addDays(FROM, 20), to: addDays(FROM, 40), base_rate: 9500, extra_adult_rate: 1200 });
  await h.staff('put', `/properties/${property.id}/restrictions`, { from: addDays(FROM, 10), to: addDays(FROM, 30), min_stay: 2, closed_to_arrival: true });
  await h.staff('put', `/properties/${property.id}/nights`, { from: addDays(FROM, 50), to: addDays(FROM, 52), is_blocked: true, block_scope: 'ota_only' });
  await h.staff('put', `/properties/${property.id}/nights`, { from: addDays(FROM, 70), to: addDays(FROM, 75), units_cap: 20 });
  let booked = 0;
  for (let i = 0; i < o.bookings; i++) {
    const checkIn = addDays(FROM, (i * 7) % 85);
    const nights = 1 + (i % 4);
    const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({
      property: { doorloom_id: property.id }, units: Array.from({ length: 1 + (i % 3) }, () => ({ adults: 2 })),
      check_in: checkIn, check_out: addDays(checkIn, nights), pricing: { total: 6000 * nights * (1 + (i % 3)) },
    }));
    if (res.status === 201) booked += 1;
  }
  if (booked === 0) throw new Error('no booking was accepted: the snapshots would show empty availability');

  const server: Server = h.sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
    const headers = { authorization: `Bearer ${h.fixtures.integrations[0]!.apiKey}` };
    const bytes = new Map<string, number>();
    const call = (kind: (typeof KINDS)[number]) => async () => {
      const res = await fetch(`${base}/properties/${property.id}/${kind}?from=${FROM}&to=${to}`, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${kind} snapshot answered ${res.status}: ${text.slice(0, 300)}`);
      bytes.set(kind, text.length);
    };
    for (const kind of KINDS) await timeCalls(call(kind), o.warmupCalls, 10_000);
    const roundMedians = new Map(KINDS.map((k) => [k, [] as number[]]));
    const all = new Map(KINDS.map((k) => [k, [] as number[]]));
    await runRounds(async () => {
      for (const kind of KINDS) {
        const times = await timeCalls(call(kind), o.callsPerRound, 10_000);
        roundMedians.get(kind)!.push(median(times));
        all.get(kind)!.push(...times);
      }
    }, { warmup: 0, rounds: o.rounds, budgetMs: 60_000 });
    const rows: Row[] = KINDS.map((kind) => {
      const m = median(roundMedians.get(kind)!);
      return { label: `${kind} (${SNAPSHOT_MAX_NIGHTS} nights)`, values: { median: m, p99: percentile(all.get(kind)!, 99), perSecond: 1000 / m, kb: bytes.get(kind)! / 1024 } };
    });
    return {
      comparison: {
        id: 4,
        title: `Snapshots of ${SNAPSHOT_MAX_NIGHTS} nights for a property of ${o.units} units`,
        status: 'measured',
        method: `in process over loopback HTTP, one keep-alive connection, one request at a time; ${o.warmupCalls} warm-up calls each, then ${plural(roundMedians.get('availability')!.length, 'interleaved round')} of ${o.callsPerRound} calls; median of the round medians, p99 of all calls`,
        columns: [
          { key: 'median', label: 'median ms', digits: 2 },
          { key: 'p99', label: 'p99 ms', digits: 2 },
          { key: 'perSecond', label: 'sequential req/s', digits: 0 },
          { key: 'kb', label: 'KiB', digits: 1 },
        ],
        rows,
        ratios: [
          { label: 'rates / availability', value: (rows[1]!.values.median as number) / (rows[0]!.values.median as number) },
          { label: 'restrictions / availability', value: (rows[2]!.values.median as number) / (rows[0]!.values.median as number) },
        ],
        notes: [`Property ${property.id}: ${o.units} units made through the staff plane, ${booked} of ${o.bookings} bookings accepted through POST /bookings (1 to 3 units, 1 to 4 nights), a season rate, restrictions, a block and a cap inside the window ${FROM} to ${to}.`],
      },
      targets: [],
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
