/**
 * Comparison 10 (issue 26): `partner-api watch` in the path. The simulator
 * (its CLI, memory store) is loaded directly and through watch (its CLI, a
 * reverse proxy judging every exchange, `--side platform`), rounds
 * interleaved, GET /me, closed loop: the throughput ratio through/direct and
 * the p50 latency watch adds. Then a soak: 200,000 exchanges through watch
 * (GET /me, a replay page, a booking list, in turn), watch's RSS sampled
 * after a tenth of them (the warm-up) and at the end. The simulator on the
 * server core; watch on the load core, beside the load generator: a proxy in
 * front of a platform does not run on the platform's core, and the share of
 * the core the load generator takes counts against watch. A second watch on
 * the simulator's own core (a one-core staging box) is measured for the
 * record, not against the targets.
 * Targets: ≥ 0.7× the direct throughput, ≤ 1 ms added p50, RSS within 64 MB
 * of the warm-up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, LOAD_GENERATOR, type LoadResult } from './http-load.ts';
import { median, runRounds } from './measure.ts';
import { LOAD_CORE, onCore, removeScratch, scratchDir, SERVER_CORE, start, type Child } from './processes.ts';
import { plural, ratio, target, type Comparison, type Outcome } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STARTUP_MS = 60_000;
const MB = 1024 * 1024;

export interface WatchBenchOptions {
  warmupSeconds: number;
  rounds: number;
  roundSeconds: number;
  connections: number;
  /** Exchanges through watch in the soak. */
  soakExchanges: number;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

async function exchangesSeen(origin: string): Promise<number> {
  const status = (await (await fetch(`${origin}/__watch/status`)).json()) as { exchanges: { api: number; delivery: number } };
  return status.exchanges.api + status.exchanges.delivery;
}

export async function compareWatch(o: WatchBenchOptions): Promise<Outcome> {
  const comparison: Comparison = {
    id: 10,
    title: 'Through watch vs direct',
    status: 'measured',
    method: `${LOAD_GENERATOR} ${o.connections} connections, keep-alive, GET /me; ${o.warmupSeconds} s warm-up each, then ${plural(o.rounds, 'interleaved round')} of ${o.roundSeconds} s, medians; soak of ${o.soakExchanges.toLocaleString('en-US')} exchanges through watch (GET /me, GET /events, GET /bookings in turn)`,
    columns: [
      { key: 'rps', label: 'req/s', digits: 0 },
      { key: 'p50', label: 'p50 ms', digits: 3 },
      { key: 'p99', label: 'p99 ms', digits: 2 },
      { key: 'bad', label: 'non-2xx', digits: 0 },
    ],
    rows: [],
    ratios: [],
    notes: [],
  };
  const dir = scratchDir('bench-watch-');
  const children: Child[] = [];
  try {
    const fixturesFile = join(dir, 'fixtures.json');
    const sim = start(process.execPath, ['--import', 'tsx', 'simulator/cli.ts', '--memory', '--port', '0', '--fixtures-out', fixturesFile], { core: SERVER_CORE, cwd: ROOT });
    children.push(sim);
    await sim.waitFor(/acme-channel/, STARTUP_MS);
    const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as { baseUrl: string; staffToken: string; integrations: { id: number; apiKey: string }[] };
    const integration = fixtures.integrations[0]!;
    const origin = new URL(fixtures.baseUrl).origin;
    // The assumed general limit would turn the load into 429s: lifted through the staff plane, as comparison 1 does.
    const lifted = await fetch(`${origin}/_staff/integrations/${integration.id}/rate-limit`, {
      method: 'PUT', headers: { authorization: `Bearer ${fixtures.staffToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 1_000_000_000, window_seconds: 86_400 }),
    });
    if (lifted.status !== 200) throw new Error(`lifting the rate limit answered ${lifted.status}`);
    const startWatch = async (core: number, reports: string) => {
      const child = start(process.execPath, ['--import', 'tsx', 'watch/cli.ts', '--upstream', fixtures.baseUrl, '--port', '0', '--side', 'platform', '--report-dir', join(dir, reports)], { core, cwd: ROOT });
      children.push(child);
      return { child, origin: (await child.waitFor(/^watch: proxy (http:\/\/[\d.]+:\d+)/m, STARTUP_MS))[1]! };
    };
    const { child: watch, origin: watchOrigin } = await startWatch(LOAD_CORE, 'reports');
    const shared = await startWatch(SERVER_CORE, 'reports-shared');
    const root = new URL(fixtures.baseUrl).pathname;
    const headers = { authorization: `Bearer ${integration.apiKey}` };
    const targets = [
      { label: 'direct (simulator)', url: `${fixtures.baseUrl}/me` },
      { label: 'through watch', url: `${watchOrigin}${root}/me` },
      { label: "through watch on the simulator's core", url: `${shared.origin}${root}/me` },
    ];
    const results = new Map<string, LoadResult[]>(targets.map((t) => [t.label, []]));
    await onCore(LOAD_CORE, async () => {
      for (const t of targets) await load({ url: t.url, headers, seconds: o.warmupSeconds, connections: o.connections });
      await runRounds(async () => {
        for (const t of targets) results.get(t.label)!.push(await load({ url: t.url, headers, seconds: o.roundSeconds, connections: o.connections }));
      }, { warmup: 0, rounds: o.rounds, budgetMs: o.rounds * targets.length * (o.roundSeconds + 2) * 1000 });
    });
    const figures = new Map<string, { rps: number; p50: number; p99: number; bad: number }>();
    for (const t of targets) {
      const rounds = results.get(t.label)!;
      const f = { rps: median(rounds.map((r) => r.rps)), p50: median(rounds.map((r) => r.p50Ms)), p99: median(rounds.map((r) => r.p99Ms)), bad: rounds.reduce((n, r) => n + r.bad, 0) };
      figures.set(t.label, f);
      comparison.rows.push({ label: t.label, values: f });
    }
    const direct = figures.get('direct (simulator)')!;
    const through = figures.get('through watch')!;
    const throughput = ratio(through.rps, direct.rps);
    const addedP50 = through.p50 - direct.p50;
    comparison.ratios.push({ label: 'throughput through watch / direct', value: throughput });
    comparison.notes.push(`p50 added by watch: ${addedP50.toFixed(3)} ms (${through.p50.toFixed(3)} through watch, ${direct.p50.toFixed(3)} direct).`);
    const onOneCore = figures.get("through watch on the simulator's core")!;
    comparison.notes.push(`watch on the simulator's own core (a one-core box, not a target): ${ratio(onOneCore.rps, direct.rps)?.toFixed(2) ?? 'n/a'}× the direct throughput, p50 +${(onOneCore.p50 - direct.p50).toFixed(3)} ms.`);
    await shared.child.stop();

    // The soak: exchanges of three kinds through watch until the count is reached; RSS after the warm-up tenth and at the end.
    const soakUrls = [`${watchOrigin}${root}/me`, `${watchOrigin}${root}/events?after_sequence=0&limit=50`, `${watchOrigin}${root}/bookings?per_page=20`];
    const pid = watch.process.pid!;
    let rssWarm = Number.NaN;
    let seen = await exchangesSeen(watchOrigin);
    const start0 = seen;
    const t0 = Date.now();
    await onCore(LOAD_CORE, async () => {
      for (let i = 0; seen - start0 < o.soakExchanges && Date.now() - t0 < 900_000; i++) {
        await load({ url: soakUrls[i % soakUrls.length]!, headers, seconds: 2, connections: o.connections });
        seen = await exchangesSeen(watchOrigin);
        if (Number.isNaN(rssWarm) && seen - start0 >= o.soakExchanges / 10) rssWarm = rssOf(pid);
      }
    });
    const rssEnd = rssOf(pid);
    comparison.rows.push({ label: `watch RSS after ${((seen - start0) / 1000).toFixed(0)}k exchanges (warm-up → end)`, values: { rps: null, p50: null, p99: null, bad: null } });
    comparison.notes.push(`watch RSS ${(rssWarm / MB).toFixed(1)} MB after the warm-up tenth, ${(rssEnd / MB).toFixed(1)} MB after ${(seen - start0).toLocaleString('en-US')} exchanges (${((Date.now() - t0) / 1000).toFixed(0)} s).`);
    const soakDone = seen - start0 >= o.soakExchanges;
    if (!soakDone) comparison.notes.push(`the soak stopped at its 15-minute bound after ${(seen - start0).toLocaleString('en-US')} exchanges, short of ${o.soakExchanges.toLocaleString('en-US')}`);
    return {
      comparison,
      targets: [
        target({ id: '10a', comparison: 10, description: 'throughput through watch ≥ 0.7× direct', kind: 'atLeast', bound: 0.7, unit: '×', measured: throughput },
          () => 'watch shares its core with the load generator: every exchange costs two sockets, the judging and a share of the load'),
        target({ id: '10b', comparison: 10, description: 'p50 latency added by watch ≤ 1 ms', kind: 'atMost', bound: 1, unit: 'ms', measured: addedP50 }),
        target({ id: '10c', comparison: 10, description: `watch RSS growth over ${o.soakExchanges.toLocaleString('en-US')} exchanges ≤ 64 MB after warm-up`, kind: 'atMost', bound: 64, unit: 'MB', measured: soakDone ? (rssEnd - rssWarm) / MB : null },
          () => (soakDone ? undefined : 'the soak did not reach its exchange count within its bound')),
      ],
    };
  } finally {
    for (const c of children) await c.stop();
    removeScratch(dir);
  }
}
