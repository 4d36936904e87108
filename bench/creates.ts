/**
 * Comparison 2: POST /bookings creates, memory store vs file store, with
 * 1,000 and 100,000 bookings already stored, and the restart time of a file
 * store holding 100,000 bookings and 1,000,000 events. The measuring code is
 * bench/store.ts (issue "simulator on file"); it is loaded here on demand so
 * that a failure in it costs this comparison only, not the whole run.
 */
import { existsSync } from 'node:fs';
import { withDeadline } from './measure.ts';
import { plural, ratio, target, type Outcome, type Row } from './report.ts';

type StoreBench = typeof import('./store.ts');

export interface CreatesOptions {
  sizes: number[];
  sequential: number;
  concurrent: number;
  concurrency: number;
  rounds: number;
  /** Restart of a data directory of this size; null leaves it out. */
  restart: { bookings: number; events: number } | null;
}

const STORE_BENCH = new URL('./store.ts', import.meta.url);
const n = (x: number) => x.toLocaleString('en-US');

const COLUMNS = [
  { key: 'sequential', label: 'creates/s, 1 client', digits: 0 },
  { key: 'concurrent', label: 'creates/s, concurrent', digits: 0 },
  { key: 'syncs', label: 'fdatasyncs per create', digits: 2 },
  { key: 'ready', label: 'restart ready s', digits: 2 },
];

export async function compareCreates(o: CreatesOptions): Promise<Outcome> {
  const base = {
    id: 2,
    title: 'POST /bookings creates: memory store vs file store',
    method: `in process over loopback HTTP (bench/store.ts): ${o.sequential} creates one at a time and ${o.concurrent} with ${o.concurrency} clients, memory and file worlds side by side in ${plural(o.rounds, 'alternating round')} after a warm-up; medians${o.restart ? '. Restart: the real CLI (node --import tsx) on the data directory until its banner' : ''}`,
    columns: COLUMNS,
  };
  if (!existsSync(STORE_BENCH)) {
    const reason = 'bench/store.ts (issue "simulator on file") is not in this checkout yet';
    return {
      comparison: { ...base, status: 'unavailable', reason, rows: [], ratios: [], notes: [] },
      targets: targets(null, null, () => reason),
    };
  }
  const bench: StoreBench = await import(STORE_BENCH.href);
  const rows: Row[] = [];
  const notes: string[] = [];
  const at = new Map<string, { sequentialPerSecond: number; concurrentPerSecond: number }>();
  for (const size of o.sizes) {
    const results = await withDeadline(`creates with ${n(size)} bookings stored`, 150_000,
      bench.benchThroughput(size, { sequential: o.sequential, concurrent: o.concurrent, concurrency: o.concurrency, rounds: o.rounds }));
    for (const r of results) {
      at.set(`${r.store}:${size}`, r);
      rows.push({ label: `${r.store} store, ${n(size)} bookings stored`, values: { sequential: r.sequentialPerSecond, concurrent: r.concurrentPerSecond, syncs: r.syncsPerConcurrentCreate, ready: null } });
    }
  }
  if (o.restart) {
    try {
      const restarts = await withDeadline(`restart with ${n(o.restart.bookings)} bookings and ${n(o.restart.events)} events`, 150_000, bench.benchRestart(o.restart.bookings, o.restart.events));
      for (const r of restarts) {
        const journal = r.journalBytes > 0 ? `snapshot + ${(r.journalBytes / 2 ** 20).toFixed(0)} MiB journal` : 'fresh snapshot';
        rows.push({ label: `restart: ${n(r.bookings)} bookings, ${n(r.events)} events (${journal})`, values: { sequential: null, concurrent: null, syncs: null, ready: r.readyMs / 1000 } });
      }
    } catch (e) {
      notes.push(`Restart not measured: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  const largest = Math.max(...o.sizes);
  const smallest = Math.min(...o.sizes);
  const r = (kind: 'sequentialPerSecond' | 'concurrentPerSecond', size: number) => ratio(at.get(`file:${size}`)?.[kind], at.get(`memory:${size}`)?.[kind]);
  const ratios = o.sizes.flatMap((size) => [
    { label: `file / memory at ${n(size)}, 1 client`, value: r('sequentialPerSecond', size) },
    { label: `file / memory at ${n(size)}, concurrent`, value: r('concurrentPerSecond', size) },
  ]);
  notes.push('Every create waits until its journal record is on disk (fdatasync) before its 201 (issue "simulator on file": a response reports only what is durable); concurrent creates share a sync (group commit).');
  const seq = r('sequentialPerSecond', largest);
  const small = r('sequentialPerSecond', smallest);
  return {
    comparison: { ...base, status: 'measured', rows, ratios, notes },
    targets: targets(seq, r('concurrentPerSecond', largest), () =>
      `one client waits for one fdatasync per create, so its rate is bounded by the disk's sync latency, not by the store's size${small !== null && seq !== null && seq < small * 0.8 ? ` — yet the ratio falls from ${small.toFixed(2)} at ${n(smallest)} to ${seq.toFixed(2)} at ${n(largest)}, so something in the file store's write path still grows with the data: profile a create at ${n(largest)} (bench/store.ts)` : ''}. `
      + 'Concurrent clients share syncs; a single client would reach half of memory only with a sync cheaper than about one memory-backed create, or by acknowledging before the sync (weaker durability than the issue asks).',
    largest),
  };
}

function targets(sequential: number | null, concurrent: number | null, explain: () => string, largest = 100_000): Outcome['targets'] {
  return [
    target({ id: 'creates-file-vs-memory-1', comparison: 2, description: `file / memory creates at ${n(largest)} bookings, 1 client`, kind: 'atLeast', bound: 0.5, unit: '×', measured: sequential }, explain),
    target({ id: 'creates-file-vs-memory-n', comparison: 2, description: `file / memory creates at ${n(largest)} bookings, concurrent`, kind: 'atLeast', bound: 0.5, unit: '×', measured: concurrent }, explain),
  ];
}
