/**
 * Comparison 9 (issue 17): a soak. The real CLI serves a steady closed-loop
 * load of mixed partner calls — creates with Idempotency-Keys, booking
 * lists, event pages, the three snapshots, /me — first on `--memory`, then
 * on `--data`. A warm-up of a tenth of the run comes first. Targets: the
 * server's RSS after the run within 64 MB of its RSS after the warm-up (a
 * leak of a few KB per call, like the contract cache of issue 17, shows up
 * as hundreds of MB), and the last 10% of the requests served at ≥ 90% of
 * the throughput of the first 10% (a cost that grows with the calls made).
 * Creates are 2% of the mix: what they store grows the state for real
 * (about 6 KB each), and that growth must stay inside the bound.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOAD_CORE, onCore, removeScratch, scratchDir, SERVER_CORE, start, type Child } from './processes.ts';
import { target, type Outcome, type Row } from './report.ts';

export interface SoakOptions {
  requests: number;
  warmup: number;
  concurrency: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MB = 1024 * 1024;
const n = (x: number) => x.toLocaleString('en-US');

interface Fixtures {
  baseUrl: string;
  staffToken: string;
  integrations: { id: number; apiKey: string; properties: { doorloom_id: number; archived: boolean; units: { active: boolean }[] }[] }[];
}

interface StoreResult {
  store: 'memory' | 'file';
  rssWarmMb: number;
  rssEndMb: number;
  firstRps: number;
  lastRps: number;
  /** Answers by status over the measured run. */
  statuses: Record<string, number>;
  /** Throughput of each tenth of the requests, in order: a trend or a dip. */
  tenths: number[];
  seconds: number;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

/** The server's own pid: the child may be `taskset`, which execs node in the same process. */
function serverPid(child: Child): number {
  return child.process.pid!;
}

async function call(agent: Agent, origin: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(origin + path, { method, agent, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** The mixed calls, chosen by the request's number (deterministic: the same run every time). */
function mix(f: Fixtures, apiRoot: string, runId: string) {
  const acme = f.integrations[0]!;
  const sellable = acme.properties.filter((p) => !p.archived && p.units.some((u) => u.active));
  const auth = { Authorization: `Bearer ${acme.apiKey}` };
  const today = Date.now();
  const day = (d: number) => new Date(today + d * 86_400_000).toISOString().slice(0, 10);
  return (i: number): { method: string; path: string; headers: Record<string, string>; body?: string } => {
    const k = i % 50;
    const property = sellable[i % sellable.length]!.doorloom_id;
    if (k === 0) {
      // A create with a key (2% of the mix); every tenth replays an earlier key (§4.5 rule 1).
      const replay = i % 500 === 0 && i > 0;
      const j = replay ? i - 50 : i;
      const from = 3 + ((j / 50) % 600);
      const body = JSON.stringify({
        external_booking_id: `SOAK-${runId}-${j}`, property: { doorloom_id: sellable[j % sellable.length]!.doorloom_id }, units: [{ adults: 2 }],
        check_in: day(from), check_out: day(from + 1), guest: { name: 'Soak Guest', mobile: '9800000000' }, pricing: { total: 5000 },
      });
      return { method: 'POST', path: `${apiRoot}/bookings`, headers: { ...auth, 'Idempotency-Key': `soak-${runId}-${j}` }, body };
    }
    if (k < 15) return { method: 'GET', path: `${apiRoot}/me`, headers: auth };
    if (k < 25) return { method: 'GET', path: `${apiRoot}/bookings?per_page=50&page=${1 + (i % 3)}`, headers: auth };
    if (k < 37) return { method: 'GET', path: `${apiRoot}/events?after_sequence=${(i * 7) % 200}&limit=100`, headers: auth };
    const kind = ['availability', 'rates', 'restrictions'][k % 3]!;
    const from = 1 + (i % 300);
    return { method: 'GET', path: `${apiRoot}/properties/${property}/${kind}?from=${day(from)}&to=${day(from + 29)}`, headers: auth };
  };
}

async function soakOne(store: 'memory' | 'file', o: SoakOptions): Promise<StoreResult> {
  const dir = scratchDir('bench-soak-');
  try {
    const fixturesFile = join(dir, 'fixtures.json');
    const args = ['--import', 'tsx', 'simulator/cli.ts', '--port', '0', '--fixtures-out', fixturesFile, ...(store === 'memory' ? ['--memory'] : ['--data', join(dir, 'data')])];
    const child = start(process.execPath, args, { core: SERVER_CORE, cwd: ROOT });
    try {
      await child.waitFor(/base URL\s+\S+\n/, 60_000);
      await new Promise((r) => setTimeout(r, 200)); // the fixtures file is written just before the banner
      const f = JSON.parse(readFileSync(fixturesFile, 'utf8')) as Fixtures;
      const url = new URL(f.baseUrl);
      const origin = url.origin;
      const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
      // Steady load, not the rate limit, is what is measured: lift acme's limit first.
      const lifted = await call(agent, origin, 'PUT', `/_staff/integrations/${f.integrations[0]!.id}/rate-limit`, { Authorization: `Bearer ${f.staffToken}` }, JSON.stringify({ limit: 100_000_000, window_seconds: 60 }));
      if (lifted !== 200) throw new Error(`lifting the rate limit answered ${lifted}`);
      const next = mix(f, url.pathname, store);
      const statuses: Record<string, number> = {};
      const done: number[] = new Array(o.requests);
      const runPhase = async (count: number, offset: number, record: boolean) => {
        let issued = 0;
        const worker = async () => {
          for (let i = issued++; i < count; i = issued++) {
            const c = next(offset + i);
            const status = await call(agent, origin, c.method, c.path, c.headers, c.body);
            if (record) {
              done[i] = performance.now();
              statuses[status] = (statuses[status] ?? 0) + 1;
            }
          }
        };
        await Promise.all(Array.from({ length: o.concurrency }, worker));
      };
      const pid = serverPid(child);
      await onCore(LOAD_CORE, () => runPhase(o.warmup, 0, false));
      const rssWarm = rssOf(pid);
      const t0 = performance.now();
      await onCore(LOAD_CORE, () => runPhase(o.requests, o.warmup, true));
      const seconds = (performance.now() - t0) / 1000;
      const rssEnd = rssOf(pid);
      agent.destroy();
      // Throughput of a slice: its requests over the time from the end of the slice before it to its own last completion.
      const sorted = [...done].sort((a, b) => a - b);
      const tenth = Math.floor(o.requests / 10);
      const tenths = Array.from({ length: 10 }, (_, k) => tenth / ((sorted[(k + 1) * tenth - 1]! - (k === 0 ? t0 : sorted[k * tenth - 1]!)) / 1000));
      return { store, rssWarmMb: rssWarm / MB, rssEndMb: rssEnd / MB, firstRps: tenths[0]!, lastRps: tenths[9]!, statuses, seconds, tenths };
    } finally {
      await child.stop();
    }
  } finally {
    removeScratch(dir);
  }
}

const COLUMNS = [
  { key: 'rssWarm', label: 'RSS after warm-up MB', digits: 0 },
  { key: 'rssEnd', label: 'RSS after run MB', digits: 0 },
  { key: 'growth', label: 'RSS growth MB', digits: 1 },
  { key: 'first', label: 'req/s first 10%', digits: 0 },
  { key: 'last', label: 'req/s last 10%', digits: 0 },
  { key: 'statuses', label: 'answers' },
];

export async function compareSoak(o: SoakOptions): Promise<Outcome> {
  const results: StoreResult[] = [];
  for (const store of ['memory', 'file'] as const) results.push(await soakOne(store, o));
  const rows: Row[] = results.map((r) => ({
    label: `${r.store === 'memory' ? '--memory' : '--data'}: ${n(o.requests)} requests in ${r.seconds.toFixed(0)} s`,
    values: {
      rssWarm: r.rssWarmMb, rssEnd: r.rssEndMb, growth: r.rssEndMb - r.rssWarmMb, first: r.firstRps, last: r.lastRps,
      statuses: Object.entries(r.statuses).map(([s, c]) => `${s}: ${n(c)}`).join(', '),
    },
  }));
  const growth = (s: 'memory' | 'file') => { const r = results.find((x) => x.store === s)!; return r.rssEndMb - r.rssWarmMb; };
  const kept = (s: 'memory' | 'file') => { const r = results.find((x) => x.store === s)!; return r.lastRps / r.firstRps; };
  return {
    comparison: {
      id: 9,
      title: `Soak: ${n(o.requests)} mixed requests on --memory and --data`,
      status: 'measured',
      method: `the real CLI (node --import tsx simulator/cli.ts) under a closed loop of ${o.concurrency} keep-alive clients (node:http), ${n(o.warmup)} warm-up requests, then ${n(o.requests)}: 2% creates with Idempotency-Keys (one in ten a replay), 28% /me, 20% GET /bookings, 24% GET /events pages, 26% snapshots of 30 nights; acme's rate limit lifted first. RSS from /proc/PID/status; throughput of the first and last tenth of the requests by completion time`,
      columns: COLUMNS,
      rows,
      ratios: results.map((r) => ({ label: `${r.store}: last 10% / first 10% throughput`, value: r.lastRps / r.firstRps })),
      notes: [
        'Creates store what they make (about 6 KB each with their events and idempotency record), so some RSS growth is state, not a leak.',
        ...results.map((r) => `${r.store}: req/s by tenth of the run: ${r.tenths.map((x) => x.toFixed(0)).join(', ')}`),
      ],
    },
    targets: (['memory', 'file'] as const).flatMap((s) => [
      target({ id: `soak-rss-${s}`, comparison: 9, description: `${s === 'memory' ? '--memory' : '--data'}: RSS growth from warm-up to the end of ${n(o.requests)} requests`, kind: 'atMost', bound: 64, unit: 'MB', measured: growth(s) },
        () => 'memory grows with the calls made: compare heap snapshots before and after a run (node --inspect) for what is retained per request'),
      target({ id: `soak-throughput-${s}`, comparison: 9, description: `${s === 'memory' ? '--memory' : '--data'}: throughput of the last 10% over the first 10%`, kind: 'atLeast', bound: 0.9, unit: '×', measured: kept(s) },
        () => 'a cost grows with the calls made (or the state they stored): profile the server late in a run (bench/profile.ts)'),
    ]),
  };
}
