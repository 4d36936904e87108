/**
 * One load round. `wrk` (the Debian package) where it is on the PATH: a C
 * load generator that saturates a bare node:http server from one core,
 * which autocannon (JavaScript, in this process) does not. autocannon from
 * npm otherwise, or when BENCH_LOAD=autocannon. `LOAD_GENERATOR` says which,
 * and every report names it.
 */
import { spawn, spawnSync } from 'node:child_process';
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

const wrkFound = process.env.BENCH_LOAD !== 'autocannon' && spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;

/** The load generator this run uses. */
export const LOAD_GENERATOR: 'wrk' | 'autocannon' = wrkFound ? 'wrk' : 'autocannon';

export function load(options: LoadOptions): Promise<LoadResult> {
  return LOAD_GENERATOR === 'wrk' ? loadWithWrk(options) : loadWithAutocannon(options);
}

/**
 * Latencies from autocannon's per-response event in fractional milliseconds
 * (its own histogram keeps whole milliseconds, too coarse for a loopback
 * server answering in well under one).
 */
async function loadWithAutocannon(options: LoadOptions): Promise<LoadResult> {
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

/** One wrk thread (the load core is one core); the child inherits this process's core pinning. */
async function loadWithWrk(options: LoadOptions): Promise<LoadResult> {
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(options.url);
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => { out += b; });
  child.stderr.on('data', (b: Buffer) => { err += b; });
  const code = await withDeadline(`wrk on ${options.url}`, options.seconds * 1000 + 15_000, new Promise<number | null>((resolve) => child.on('close', resolve)), () => child.kill('SIGKILL'));
  if (code !== 0) throw new Error(`wrk exited ${code}: ${(err || out).trim()}`);
  return parseWrk(out);
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

/** wrk's text output with --latency, read into the same shape as autocannon's. */
export function parseWrk(text: string): LoadResult {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s)/.exec(text);
  if (!total) throw new Error(`wrk printed no request count:\n${text}`);
  const requests = Number(total[1]);
  const seconds = (Number(total[2]) * UNIT_MS[total[3]!]!) / 1000;
  const latency = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(text);
    return m ? Number(m[1]) * UNIT_MS[m[2]!]! : Number.NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const errors = socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  const ok = requests - non2xx;
  return { rps: ok / seconds, p50Ms: latency('50'), p99Ms: latency('99'), ok, bad: non2xx + errors, statuses: non2xx ? { 'non-2xx': non2xx, '2xx': ok } : { '2xx': ok } };
}
