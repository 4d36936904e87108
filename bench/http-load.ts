/**
 * One load round with autocannon (from npm), in this process. Latencies are
 * taken from autocannon's per-response event in fractional milliseconds
 * (its own histogram keeps whole milliseconds, too coarse for a loopback
 * server answering in well under one).
 */
import autocannon from 'autocannon';
import { percentile, withDeadline } from './measure.ts';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  /** 2xx answers per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  /** Non-2xx answers, errors and time-outs: anything but a 2xx makes the round suspect. */
  bad: number;
  statuses: Record<string, number>;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const instance = autocannon({ url: options.url, headers: options.headers ?? {}, connections: options.connections, duration: options.seconds, timeout: 10 });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await withDeadline(`autocannon on ${options.url}`, options.seconds * 1000 + 15_000, Promise.resolve(instance), () => instance.stop());
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  return {
    rps: result['2xx'] / result.duration,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ok: result['2xx'],
    bad: result.non2xx + result.errors + result.timeouts,
    statuses,
  };
}
