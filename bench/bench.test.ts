/**
 * The benchmark's own logic on fake data: verdicts, statistics, the profile
 * summary, and the table and Markdown renderings of a report. No benchmark
 * runs here, and nothing is timed (timed assertions make flaky tests).
 */
import { describe, expect, it } from 'vitest';
import { parseWrk } from './http-load.ts';
import { median, percentile } from './measure.ts';
import { DELIVERY_AREAS, summariseProfile, type CpuProfile } from './profile.ts';
import { formatValue, judge, ratio, renderMarkdown, renderTable, target, type BenchReport, type Target } from './report.ts';

describe('a target is judged on the figure of this run', () => {
  const cases: [string, { given: [Target['kind'], number, number | null]; want: string }][] = [
    ['at least: above the bound passes', { given: ['atLeast', 0.3, 0.34], want: 'PASS' }],
    ['at least: the bound itself passes', { given: ['atLeast', 0.3, 0.3], want: 'PASS' }],
    ['at least: below the bound misses', { given: ['atLeast', 4, 3.9], want: 'MISS' }],
    ['at most: the bound itself passes ("within 1.5 times")', { given: ['atMost', 1.5, 1.5], want: 'PASS' }],
    ['at most: above the bound misses', { given: ['atMost', 1.5, 1.51], want: 'MISS' }],
    ['below: the bound itself misses ("under 60 seconds")', { given: ['below', 60, 60], want: 'MISS' }],
    ['below: under the bound passes', { given: ['below', 1, 0.41], want: 'PASS' }],
    ['no figure is unavailable, never a pass', { given: ['atLeast', 4, null], want: 'UNAVAILABLE' }],
    ['a NaN figure is unavailable', { given: ['below', 1, Number.NaN], want: 'UNAVAILABLE' }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(judge(...given)).toBe(want);
  });

  it('explains a miss or an unavailable figure, never a pass', () => {
    const spec = { id: 't', comparison: 1, description: 'd', kind: 'atLeast' as const, bound: 2, unit: '×' };
    expect(target({ ...spec, measured: 3 }, () => 'why').explanation).toBeUndefined();
    expect(target({ ...spec, measured: 1 }, (v) => `why ${v}`).explanation).toBe('why MISS');
    expect(target({ ...spec, measured: null }, (v) => `why ${v}`).explanation).toBe('why UNAVAILABLE');
  });

  it('has no ratio without both figures or with a zero divisor', () => {
    expect(ratio(3, 4)).toBe(0.75);
    expect(ratio(null, 4)).toBeNull();
    expect(ratio(3, 0)).toBeNull();
    expect(ratio(3, Number.NaN)).toBeNull();
  });
});

describe('statistics', () => {
  it('takes medians of odd and even lists, and nothing of an empty one', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('takes nearest-rank percentiles', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
  });

  it('formats numbers, text and missing values', () => {
    expect(formatValue(12345.678, 0)).toBe('12,346');
    expect(formatValue(0.5, 2)).toBe('0.50');
    expect(formatValue(null)).toBe('—');
    expect(formatValue(Number.NaN)).toBe('—');
    expect(formatValue('unavailable')).toBe('unavailable');
  });
});

describe('wrk output', () => {
  const run = (extra = '') => `Running 1s test @ http://127.0.0.1:4999/
  1 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   196.79us  533.54us  11.91ms   95.15%
    Req/Sec    95.30k    29.25k  113.57k    90.91%
  Latency Distribution
     50%   84.00us
     75%  127.00us
     90%  223.00us
     99%    2.46ms
  104098 requests in 1.10s, 12.31MB read
${extra}Requests/sec:  94657.09
Transfer/sec:     11.19MB
`;

  it('reads 2xx per second and the latency percentiles in milliseconds', () => {
    const r = parseWrk(run());
    expect(r.ok).toBe(104098);
    expect(r.rps).toBeCloseTo(104098 / 1.1, 3);
    expect(r.p50Ms).toBeCloseTo(0.084, 6);
    expect(r.p99Ms).toBeCloseTo(2.46, 6);
    expect(r.bad).toBe(0);
  });

  it('counts non-2xx answers and socket errors as bad, never as served', () => {
    const r = parseWrk(run('  Socket errors: connect 0, read 2, write 0, timeout 3\n  Non-2xx or 3xx responses: 98\n'));
    expect(r.ok).toBe(104098 - 98);
    expect(r.bad).toBe(98 + 5);
  });

  it('refuses output without a request count', () => {
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused')).toThrow(/no request count/);
  });
});

describe('the profile summary', () => {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
  const profile: CpuProfile = {
    startTime: 0,
    endTime: 1000,
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4, 6] },
      { id: 2, callFrame: frame('fetch', 'node:internal/deps/undici/undici'), children: [] },
      { id: 3, callFrame: frame('(garbage collector)', ''), children: [] },
      { id: 4, callFrame: frame('post', 'node:inspector'), children: [5] },
      { id: 5, callFrame: frame('dispatch', ''), children: [] },
      { id: 6, callFrame: frame('commit', 'file:///work/main/simulator/store/memory-store.ts'), children: [] },
    ],
    samples: [2, 2, 2, 3, 5, 5, 5, 5, 6],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('groups self time by area and leaves out the profiler\'s own calls', () => {
    const summary = summariseProfile(profile, { areas: DELIVERY_AREAS });
    expect(summary.totalMs).toBe(5);
    expect(summary.areas.map((a) => [a.label, a.ms])).toEqual([
      ['fetch (undici) in node', 3],
      ['garbage collection', 1],
      ['store transactions', 1],
    ]);
    expect(summary.functions[0]!.label).toBe('fetch (node:internal/deps/undici/undici:1)');
    expect(summary.functions.some((f) => f.label.startsWith('dispatch'))).toBe(false);
    expect(summary.functions.map((f) => f.label)).toContain('commit (simulator/store/memory-store.ts:1)');
  });

  it('keeps only the samples inside a time window', () => {
    // Samples land at 1,000 µs steps from startTime 0: the window 1,500 to 3,500 holds the 2nd and 3rd (both fetch).
    const summary = summariseProfile(profile, { areas: DELIVERY_AREAS, from: 1500, to: 3500 });
    expect(summary.areas.map((a) => [a.label, a.ms])).toEqual([['fetch (undici) in node', 2]]);
  });
});

function fakeReport(): BenchReport {
  return {
    startedAt: '2026-11-21T06:00:00.000Z',
    finishedAt: '2026-11-21T06:06:00.000Z',
    seconds: 360,
    machine: { node: 'v20.20.2', platform: 'linux 6.1', cpus: 2, cpuModel: 'Test CPU', taskset: true, pinning: 'servers on core 0, load on core 1', loadAverage: { start: 0.1, end: 1.9 } },
    comparisons: [
      {
        id: 1,
        title: 'GET /me: simulator vs bare node:http vs Prism',
        status: 'measured',
        method: 'autocannon 10 connections',
        columns: [{ key: 'rps', label: 'req/s', digits: 0 }, { key: 'p50', label: 'p50 ms', digits: 2 }],
        rows: [
          { label: 'simulator', values: { rps: 7012.4, p50: 1.234 } },
          { label: 'bare node:http', values: { rps: 21000, p50: 0.4 } },
          { label: 'Prism | mock', values: { rps: 'unavailable', p50: null } },
        ],
        ratios: [{ label: 'simulator / bare', value: 0.3339 }, { label: 'simulator / Prism', value: null }],
        notes: ['Prism unavailable: npm install failed'],
      },
      { id: 2, title: 'POST /bookings creates', status: 'unavailable', reason: 'bench/store.ts is not in this checkout yet', method: 'bench/store.ts', columns: [], rows: [], ratios: [], notes: [] },
      { id: 6, title: 'Webhook delivery', status: 'failed', reason: 'DeadlineExceeded: comparison 6 did not finish within 240 s', method: 'did not complete', columns: [], rows: [], ratios: [], notes: [] },
    ],
    targets: [
      target({ id: 'a', comparison: 1, description: 'GET /me req/s, simulator / bare node:http', kind: 'atLeast', bound: 0.3, unit: '×', measured: 0.3339 }),
      target({ id: 'b', comparison: 1, description: 'GET /me req/s, simulator / Prism', kind: 'atLeast', bound: 4, unit: '×', measured: null }, () => 'Prism could not be installed'),
      target({ id: 'c', comparison: 8, description: 'cold start', kind: 'below', bound: 1, unit: 's', measured: 1.19 }, () => 'npm and tsx start first'),
      target({ id: 'd', comparison: 6, description: 'webhook delivery events/s', kind: 'atLeast', bound: 2000, unit: 'events/s', measured: 1750.2 }, () => 'fetch per delivery'),
    ],
  };
}

describe('the terminal table', () => {
  const text = renderTable(fakeReport());

  it('shows each comparison with its method, aligned figures and ratios', () => {
    expect(text).toContain('1. GET /me: simulator vs bare node:http vs Prism');
    expect(text).toContain('   autocannon 10 connections');
    expect(text).toMatch(/simulator\s+7,012\s+1\.23/);
    expect(text).toMatch(/bare node:http\s+21,000\s+0\.40/);
    expect(text).toMatch(/Prism \| mock\s+unavailable\s+—/);
    expect(text).toContain('ratios: simulator / bare 0.33× · simulator / Prism —');
  });

  it('says why a comparison was not measured', () => {
    expect(text).toContain('2. POST /bookings creates — UNAVAILABLE: bench/store.ts is not in this checkout yet');
    expect(text).toContain('6. Webhook delivery — FAILED: DeadlineExceeded');
  });

  it('lists every target with its verdict, and explains each one that did not pass', () => {
    expect(text).toMatch(/\(1\)\s+GET \/me req\/s, simulator \/ bare node:http\s+0\.33×\s+≥ 0\.30×\s+PASS/);
    expect(text).toMatch(/\(1\)\s+GET \/me req\/s, simulator \/ Prism\s+—\s+≥ 4×\s+UNAVAILABLE/);
    expect(text).toMatch(/\(8\)\s+cold start\s+1\.19 s\s+< 1 s\s+MISS/);
    expect(text).toMatch(/\(6\)\s+webhook delivery events\/s\s+1,750 events\/s\s+≥ 2,000 events\/s\s+MISS/);
    expect(text).toContain('UNAVAILABLE GET /me req/s, simulator / Prism: Prism could not be installed');
    expect(text).toContain('MISS cold start: npm and tsx start first');
    expect(text).not.toContain('PASS GET /me req/s, simulator / bare node:http:');
  });

  it('shows enough digits to tell a figure from a bound it rounds to', () => {
    const report = fakeReport();
    report.targets = [target({ id: 'e', comparison: 2, description: 'file / memory creates', kind: 'atLeast', bound: 0.5, unit: '×', measured: 0.4966 }, () => 'sync per create')];
    expect(renderTable(report)).toMatch(/file \/ memory creates\s+0\.497×\s+≥ 0\.50×\s+MISS/);
  });

  it('keeps the rows of a table the same width', () => {
    const block = text.split('\n').filter((l) => /^ {3}(simulator|bare node:http|Prism \| mock)\s/.test(l));
    expect(block).toHaveLength(3);
    const widths = new Set(block.map((l) => [...l].length));
    expect(widths.size).toBe(1);
  });

  it('states the load on the machine before the run', () => {
    expect(text).toContain('load average: 0.10 before the run, 1.90 at its end');
    const busy = fakeReport();
    busy.machine.loadAverage.start = 3;
    expect(renderTable(busy)).toContain('other work was running on this machine');
  });
});

describe('the Markdown report', () => {
  const md = renderMarkdown(fakeReport());

  it('opens with the targets table and verdicts in bold', () => {
    expect(md.startsWith('# Benchmarks\n')).toBe(true);
    expect(md.indexOf('## Targets')).toBeLessThan(md.indexOf('## 1. GET /me'));
    expect(md).toContain('| 1 | GET /me req/s, simulator / bare node:http | 0.33× | ≥ 0.30× | **PASS** |');
    expect(md).toContain('| 8 | cold start | 1.19 s | < 1 s | **MISS** |');
    expect(md).toContain('- **MISS** cold start: npm and tsx start first');
  });

  it('renders each comparison as a table with right-aligned figures and escaped pipes', () => {
    expect(md).toContain('|  | req/s | p50 ms |\n|---|---:|---:|');
    expect(md).toContain('| simulator | 7,012 | 1.23 |');
    expect(md).toContain('| Prism \\| mock | unavailable | — |');
    expect(md).toContain('Ratios: simulator / bare **0.33×**, simulator / Prism **—**.');
    expect(md).toContain('- Prism unavailable: npm install failed');
  });

  it('marks comparisons that were not measured', () => {
    expect(md).toContain('## 2. POST /bookings creates\n\n**UNAVAILABLE**: bench/store.ts is not in this checkout yet');
    expect(md).toContain('**FAILED**: DeadlineExceeded');
  });
});
