/**
 * CPU profiles (the V8 sampling profiler behind `node --cpu-prof`) and a
 * summary of where their time went, by area of code. A stretch of this
 * process is profiled through node:inspector, so that only the measured
 * work is in it; a child server is started with --cpu-prof and its profile
 * cut to the window of the load.
 */
import { Session } from 'node:inspector/promises';

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The .cpuprofile format: times in microseconds of the monotonic clock. */
export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Runs `fn` under the sampling profiler; returns its result and the profile (loadable in Chrome DevTools). */
export async function profileDuring<T>(fn: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const result = await fn();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

export interface Share {
  label: string;
  ms: number;
  share: number;
}

/** An area of code: the first whose test matches a frame (its url and function name) takes the sample. */
export type Area = [label: string, test: (url: string, fn: string) => boolean];

const COMMON_FIRST: Area[] = [
  ['idle (waiting on I/O)', (_u, f) => f === '(idle)'],
  ['garbage collection', (_u, f) => f === '(garbage collector)'],
  ['socket writes (writev syscall)', (u, f) => u === '' && (f === 'writev' || f === 'writeUtf8String' || f === 'writeBuffer')],
];

const COMMON_LAST: Area[] = [
  ['node:http and sockets', (u) => /^node:(net|_http|http|internal\/(stream_base_commons|streams|http|net))/.test(u)],
  ['events, timers, microtasks', (u) => /internal\/(event_target|abort_controller|timers|events|process\/task_queues)|^node:(events|timers)/.test(u)],
  ['crypto', (u) => u.includes('crypto')],
  ['store transactions', (u) => u.includes('/store/')],
  ['domain rules', (u) => u.includes('/domain/')],
  ['other native (JSON, program)', (u) => u === ''],
];

/** Areas for the webhook delivery round trip (sender and receiver in one process). */
export const DELIVERY_AREAS: Area[] = [
  ...COMMON_FIRST,
  ['fetch (undici) in node', (u) => u.includes('deps/undici')],
  ['web streams, abort signals, transferables', (u) => /internal\/(webstreams|abort_controller|worker\/js_transferable)/.test(u)],
  ['loopback receiver (verify, parse)', (u) => u.includes('/webhooks/receiver.ts') || u.includes('/protocol/signature.ts')],
  ['delivery worker', (u) => u.includes('/webhooks/')],
  ...COMMON_LAST,
];

/** Areas for a request served by the simulator's Koa app. */
export const SERVER_AREAS: Area[] = [
  ...COMMON_FIRST,
  ['Koa, @koa/router, koa-compose, delegates', (u) => /node_modules\/(koa|@koa|koa-compose|delegates|koa-convert|http-errors|statuses|content-type|mime-types|type-is|accepts|vary|encodeurl|cache-content-type|only|fresh|destroy|on-finished|ee-first|cookies|parseurl)\//.test(u)],
  ['authentication and rate limit (domain)', (u) => /\/domain\/(credentials|integrations|rate-limit|platform)\.ts/.test(u)],
  ['simulator HTTP layer (envelopes, send)', (u) => u.includes('/simulator/http/')],
  ...COMMON_LAST,
];

export interface SummaryOptions {
  areas: Area[];
  /** Only samples taken in this window (microseconds of the monotonic clock, as in the profile). */
  from?: number;
  to?: number;
  top?: number;
}

/** Self time per area and the top functions of a profile, leaving out the profiler's own calls. */
export function summariseProfile(profile: CpuProfile, options: SummaryOptions): { totalMs: number; areas: Share[]; functions: Share[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Samples under node:inspector are the profiler's own start and stop calls, not the measured work.
  const own = new Set<number>();
  const mark = (id: number, inside: boolean) => {
    const node = byId.get(id)!;
    const now = inside || node.callFrame.url === 'node:inspector';
    if (now) own.add(id);
    for (const child of node.children ?? []) mark(child, now);
  };
  mark(profile.nodes[0]!.id, false);
  const self = new Map<number, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (own.has(id) || (options.from !== undefined && at < options.from) || (options.to !== undefined && at > options.to)) return;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const fn = functionName || '(anonymous)';
    const area = options.areas.find(([, test]) => test(url, fn))?.[0] ?? 'other JavaScript';
    areas.set(area, (areas.get(area) ?? 0) + us);
    const where = url.replace(/^file:\/\/.*?\/(simulator|bench|spec|conformance|node_modules)\//, '$1/');
    const key = `${fn} (${where || 'native'}${url ? `:${lineNumber + 1}` : ''})`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const shares = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([label, us]) => ({ label, ms: us / 1000, share: total ? us / total : 0 }));
  return { totalMs: total / 1000, areas: shares(areas), functions: shares(functions).slice(0, options.top ?? 8) };
}

/** "label 31 %, label 12 %, …" for the busiest areas (idle left out). */
export function areasText(areas: Share[], count = 6): string {
  return areas.filter((a) => !a.label.startsWith('idle')).slice(0, count).map((a) => `${a.label} ${(a.share * 100).toFixed(0)} %`).join(', ');
}
