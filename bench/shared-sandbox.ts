/**
 * Comparison 11 (issue 39): the shared sandbox's throughput. GET /me and
 * POST /bookings creates per second against 1, 2 and 3 simulator processes
 * on one PostgreSQL database, beside one process on the file store (the
 * default), each on a fresh world, in one run. Ratios only: pg with N
 * processes / the file store, and N processes / 1.
 *
 * The cluster is the sandbox's own kind (store/pg-cluster.ts, with fsync on:
 * a create is acknowledged once PostgreSQL has it on disk, as the file store
 * acknowledges after its fdatasync). Nothing is pinned: several processes on
 * one core would measure the core, not the design.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDays } from '../protocol/calendar.ts';
import type { Fixtures } from '../simulator/demo-world.ts';
import { findPgBin, startPgCluster } from '../simulator/store/pg-cluster.ts';
import { load, LOAD_GENERATOR } from './http-load.ts';
import { withDeadline } from './measure.ts';
import { removeScratch, scratchDir, start, type Child } from './processes.ts';
import { ratio, type Outcome, type Row } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SharedSandboxOptions {
  /** Process counts on PostgreSQL, e.g. [1, 2, 3]. */
  processes: number[];
  /** GET /me load per world (s), after a warm-up of a fifth of it. */
  getMeSeconds: number;
  connections: number;
  /** Creates per world, `concurrency` at a time, spread round-robin over its processes. */
  creates: number;
  concurrency: number;
}

interface World {
  label: string;
  apis: string[];
  fixtures: Fixtures;
  stop(): Promise<void>;
}

async function startProcess(args: string[], dir: string, name: string): Promise<{ child: Child; fixtures: Fixtures }> {
  const fixturesFile = join(dir, `${name}.json`);
  const child = start(process.execPath, ['--import', 'tsx', 'simulator/cli.ts', '--port', '0', '--fixtures-out', fixturesFile, ...args], { cwd: ROOT });
  await child.waitFor(/base URL\s+\S+\n/, 120_000);
  return { child, fixtures: JSON.parse(readFileSync(fixturesFile, 'utf8')) as Fixtures };
}

async function liftRateLimit(f: Fixtures): Promise<void> {
  const origin = new URL(f.baseUrl).origin;
  const res = await fetch(`${origin}/_staff/integrations/${f.integrations[0]!.id}/rate-limit`, {
    method: 'PUT', headers: { Authorization: `Bearer ${f.staffToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ limit: 1_000_000_000, window_seconds: 86_400 }),
  });
  if (res.status !== 200) throw new Error(`lifting the rate limit answered ${res.status}: ${await res.text()}`);
}

/** `creates` one-night, one-unit stays on nights no other create takes, `concurrency` at a time, round-robin over `apis`. */
async function createsPerSecond(world: World, creates: number, concurrency: number): Promise<number> {
  const integration = world.fixtures.integrations[0]!;
  const slots = integration.properties.filter((p) => !p.archived).flatMap((p) => p.units.filter((u) => u.active).map(() => p.doorloom_id));
  const today = new Date().toISOString().slice(0, 10);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < creates; i = next++) {
      const checkIn = addDays(today, 100 + Math.floor(i / slots.length));
      const res = await fetch(`${world.apis[i % world.apis.length]}/bookings`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${integration.apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${randomBytes(8).toString('hex')}` },
        body: JSON.stringify({
          external_booking_id: `SANDBOX-${i}`, property: { doorloom_id: slots[i % slots.length] }, units: [{ adults: 2 }],
          check_in: checkIn, check_out: addDays(checkIn, 1), guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
        }),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`${world.label}: create ${i} answered ${res.status}: ${text.slice(0, 300)}`);
    }
  }));
  return creates / ((performance.now() - t0) / 1000);
}

/** GET /me from every process at once, the connections split between them; 2xx per second summed. */
async function getMePerSecond(world: World, seconds: number, connections: number): Promise<{ rps: number; bad: number }> {
  const key = world.fixtures.integrations[0]!.apiKey;
  const per = Math.max(1, Math.round(connections / world.apis.length));
  const round = (s: number) => Promise.all(world.apis.map((api) => load({ url: `${api}/me`, headers: { Authorization: `Bearer ${key}` }, seconds: s, connections: per })));
  await round(Math.max(1, Math.round(seconds / 5)));
  const results = await round(seconds);
  return { rps: results.reduce((s, r) => s + r.rps, 0), bad: results.reduce((s, r) => s + r.bad, 0) };
}

const COLUMNS = [
  { key: 'me', label: 'GET /me per s', digits: 0 },
  { key: 'creates', label: 'creates per s', digits: 0 },
  { key: 'bad', label: 'non-2xx GET /me', digits: 0 },
];

export async function compareSharedSandbox(o: SharedSandboxOptions): Promise<Outcome> {
  const base = {
    id: 11,
    title: 'Shared sandbox: 1, 2, 3 processes on one PostgreSQL database vs the file store',
    method: `the real CLI (node --import tsx simulator/cli.ts), unpinned, each world fresh: GET /me from every process at once (${LOAD_GENERATOR}, ${o.connections} connections split between the processes, ${o.getMeSeconds} s after a warm-up), then ${o.creates} creates with ${o.concurrency} clients round-robin over the processes; PostgreSQL is a throwaway cluster with fsync on`,
    columns: COLUMNS,
  };
  try {
    findPgBin();
  } catch (e) {
    return { comparison: { ...base, status: 'unavailable', reason: (e as Error).message, rows: [], ratios: [], notes: [] }, targets: [] };
  }
  const cluster = await startPgCluster({ durable: true });
  const rows: Row[] = [];
  const at = new Map<string, { me: number; creates: number }>();
  try {
    const worlds: (() => Promise<World>)[] = [
      async () => {
        const dir = scratchDir('bench-sandbox-file-');
        const p = await startProcess(['--data', join(dir, 'data')], dir, 'file');
        return { label: 'file', apis: [p.fixtures.baseUrl], fixtures: p.fixtures, stop: async () => { await p.child.stop(); removeScratch(dir); } };
      },
      ...o.processes.map((n) => async () => {
        const dir = scratchDir('bench-sandbox-pg-');
        const url = await cluster.createDatabase(`bench_${n}`);
        // The first seeds the world alone; the others join it.
        const first = await startProcess(['--database', url], dir, 'p0');
        const others = await Promise.all(Array.from({ length: n - 1 }, (_, i) => startProcess(['--database', url], dir, `p${i + 1}`)));
        const all = [first, ...others];
        return {
          label: `pg:${n}`, apis: all.map((p) => p.fixtures.baseUrl), fixtures: first.fixtures,
          stop: async () => { await Promise.all(all.map((p) => p.child.stop())); removeScratch(dir); },
        };
      }),
    ];
    for (const open of worlds) {
      const world = await open();
      try {
        await liftRateLimit(world.fixtures);
        const me = await withDeadline(`GET /me on ${world.label}`, (o.getMeSeconds * 2 + 60) * 1000, getMePerSecond(world, o.getMeSeconds, o.connections));
        const creates = await withDeadline(`creates on ${world.label}`, 300_000, createsPerSecond(world, o.creates, o.concurrency));
        at.set(world.label, { me: me.rps, creates });
        const name = world.label === 'file' ? 'file store, 1 process' : `PostgreSQL, ${world.apis.length} process${world.apis.length > 1 ? 'es' : ''}`;
        rows.push({ label: name, values: { me: me.rps, creates, bad: me.bad } });
      } finally {
        await world.stop();
      }
    }
  } finally {
    await cluster.stop();
  }
  const r = (kind: 'me' | 'creates', a: string, b: string) => ratio(at.get(a)?.[kind], at.get(b)?.[kind]);
  const ratios = o.processes.flatMap((n) => [
    { label: `GET /me: pg ${n} / file`, value: r('me', `pg:${n}`, 'file') },
    { label: `creates: pg ${n} / file`, value: r('creates', `pg:${n}`, 'file') },
    ...(n > 1 ? [{ label: `GET /me: pg ${n} / pg 1`, value: r('me', `pg:${n}`, 'pg:1') }, { label: `creates: pg ${n} / pg 1`, value: r('creates', `pg:${n}`, 'pg:1') }] : []),
  ]);
  const notes = [
    'Bottleneck: every request, GET /me included, runs in a section under the one world lock (pg_advisory_lock), held across processes one at a time; '
      + 'a section starts with a round trip for the lock, one to catch up on the journal and one to read the rate-limit windows, and ends with the inserts and the unlock. '
      + 'A process hands the lock on after 50 ms, so processes take turns rather than run in parallel: more processes add availability, not throughput, '
      + 'and the hand-over between processes costs what one process alone never pays (docs/shared-sandbox.md).',
  ];
  return { comparison: { ...base, status: 'measured', rows, ratios, notes }, targets: [] };
}
