/**
 * `npm run bench`: every comparison of the benchmarks issue in one run, each
 * bounded in time, then the table on stdout and the same report as
 * reports/bench/bench.json and reports/bench/bench.md. Targets are judged
 * on ratios from this run only. Exits 1 only when a comparison crashed; a
 * missed target is a finding, not a failure of the run.
 *
 * Each comparison runs in a fresh child process of this script (`--child N`):
 * no heap, JIT state or timers carry over from one to the next (a 1,000,000
 * event log left for the garbage collector would slow whatever comes after),
 * and a comparison past its time limit is stopped for real, not just given
 * up on while its work goes on.
 *
 *   npm run bench                 everything (about 15 minutes on 2 cores, the soak about 10 of them; each comparison has its own limit)
 *   npm run bench -- --only 1,6   some comparisons
 *   npm run bench -- --quick      short rounds and small sizes (a smoke run; its figures prove nothing)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareColdStart } from './cold-start.ts';
import { compareConformance } from './conformance.ts';
import { compareCreates } from './creates.ts';
import { compareGetMe } from './get-me.ts';
import { withDeadline } from './measure.ts';
import { canPin, pinningText, removeScratch, scratchDir, start, stopAll } from './processes.ts';
import { compareReplay } from './replay.ts';
import { compareSharedSandbox } from './shared-sandbox.ts';
import { renderMarkdown, renderTable, type BenchReport, type Comparison, type Outcome } from './report.ts';
import { compareSnapshots } from './snapshots.ts';
import { compareSoak } from './soak.ts';
import { compareSync } from './sync.ts';
import { compareWebhooks } from './webhooks.ts';
import { compareWatch } from './watch.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const USAGE = `Usage: npm run bench -- [options]

  --only LIST   comparisons to run, by number (1 to 11), comma-separated
  --quick       short rounds and small sizes: a smoke run of the benchmark itself
  --out DIR     where bench.json and bench.md go (default reports/bench)
  --help        this text
`;

interface Plan {
  id: number;
  title: string;
  /** The comparison's outer bound; each one also bounds its own parts. */
  budgetSeconds: number;
  run: () => Promise<Outcome>;
}

function plans(quick: boolean, outDir: string): Plan[] {
  return [
    { id: 1, title: 'GET /me: simulator vs bare node:http vs Prism', budgetSeconds: 420, run: () => compareGetMe(quick ? { warmupSeconds: 1, rounds: 2, roundSeconds: 1, connections: 10, reportDir: outDir } : { warmupSeconds: 3, rounds: 5, roundSeconds: 3, connections: 10, reportDir: outDir }) },
    { id: 2, title: 'POST /bookings creates: memory vs file store', budgetSeconds: 330, run: () => compareCreates(quick
      ? { sizes: [1_000, 10_000], sequential: 100, concurrent: 200, concurrency: 8, rounds: 1, restart: null }
      : { sizes: [1_000, 100_000], sequential: 500, concurrent: 1000, concurrency: 8, rounds: 3, restart: { bookings: 100_000, events: 1_000_000 } }) },
    { id: 3, title: 'GET /events page of 200: 1,000 vs 1,000,000 events', budgetSeconds: 240, run: () => compareReplay(quick ? { small: 1_000, large: 20_000, warmupPages: 10, rounds: 2, pagesPerRound: 20 } : { small: 1_000, large: 1_000_000, warmupPages: 50, rounds: 5, pagesPerRound: 60 }) },
    { id: 4, title: 'Snapshots of 92 nights, 50 units', budgetSeconds: 120, run: () => compareSnapshots(quick ? { units: 50, bookings: 20, warmupCalls: 5, rounds: 2, callsPerRound: 5 } : { units: 50, bookings: 120, warmupCalls: 30, rounds: 5, callsPerRound: 40 }) },
    { id: 5, title: 'POST /sync for 500 properties', budgetSeconds: 240, run: () => compareSync(quick ? { properties: 50, unitsPerProperty: 2, warmupProperties: 10, rounds: 1 } : { properties: 500, unitsPerProperty: 2, warmupProperties: 50, rounds: 3 }) },
    { id: 6, title: 'Webhook delivery', budgetSeconds: 240, run: () => compareWebhooks(quick ? { warmupEvents: 200, events: 500, rounds: 2, reportDir: outDir } : { warmupEvents: 1000, events: 5000, rounds: 5, reportDir: outDir }) },
    { id: 7, title: 'Whole conformance run', budgetSeconds: 420, run: () => compareConformance(quick ? { runs: 2, rounds: 1, budgetSeconds: 120 } : { runs: 25, rounds: 3, budgetSeconds: 180 }) },
    { id: 8, title: 'Cold start', budgetSeconds: 180, run: () => compareColdStart(quick ? { warmup: 1, rounds: 1 } : { warmup: 1, rounds: 5 }) },
    { id: 9, title: 'Soak: mixed requests on --memory and --data', budgetSeconds: 1200, run: () => compareSoak(quick ? { requests: 10_000, warmup: 1_000, concurrency: 8 } : { requests: 200_000, warmup: 20_000, concurrency: 8 }) },
    { id: 10, title: 'Through watch vs direct', budgetSeconds: 1200, run: () => compareWatch(quick ? { warmupSeconds: 1, rounds: 2, roundSeconds: 1, connections: 10, soakExchanges: 10_000 } : { warmupSeconds: 3, rounds: 5, roundSeconds: 3, connections: 10, soakExchanges: 200_000 }) },
    { id: 11, title: 'Shared sandbox: 1, 2, 3 processes on PostgreSQL vs the file store', budgetSeconds: 900, run: () => compareSharedSandbox(quick ? { processes: [1, 2, 3], getMeSeconds: 2, connections: 12, creates: 60, concurrency: 6 } : { processes: [1, 2, 3], getMeSeconds: 10, connections: 12, creates: 600, concurrency: 12 }) },
  ];
}

function failed(plan: Plan, reason: string): Outcome {
  const comparison: Comparison = { id: plan.id, title: plan.title, status: 'failed', reason, method: 'did not complete', columns: [], rows: [], ratios: [], notes: [] };
  return { comparison, targets: [] };
}

/** `--child N --result FILE`: runs comparison N here and writes its outcome as JSON. */
async function runChild(plan: Plan, resultFile: string): Promise<number> {
  let outcome: Outcome;
  try {
    outcome = await withDeadline(`comparison ${plan.id}`, plan.budgetSeconds * 1000, plan.run(), stopAll);
  } catch (e) {
    outcome = failed(plan, (e as Error).stack?.split('\n').slice(0, 3).join(' ') ?? String(e));
  }
  stopAll();
  writeFileSync(resultFile, JSON.stringify(outcome));
  return 0;
}

/** Runs one comparison in a child process, killing it (and what it started) past its time limit. */
async function runInChild(plan: Plan, quick: boolean, out: string | undefined): Promise<Outcome> {
  const dir = scratchDir('bench-run-');
  const resultFile = join(dir, 'outcome.json');
  try {
    const args = [...process.execArgv, fileURLToPath(import.meta.url), '--child', String(plan.id), '--result', resultFile, ...(quick ? ['--quick'] : []), ...(out ? ['--out', out] : [])];
    const child = start(process.execPath, args, { cwd: ROOT });
    const exited = new Promise<number | null>((resolve) => child.process.once('exit', (code) => resolve(code)));
    // A little beyond the child's own deadline, so that it reports a time-out itself when it can.
    const limitMs = (plan.budgetSeconds + 30) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), limitMs)));
    const code = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (code === 'timeout') {
      await child.stop();
      return failed(plan, `stopped after ${limitMs / 1000} s; last output: ${child.output().trim().split('\n').slice(-3).join(' / ')}`);
    }
    await child.stop();
    if (!existsSync(resultFile)) return failed(plan, `the comparison's process exited with ${code} and no result: ${child.output().trim().split('\n').slice(-5).join(' / ')}`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as Outcome;
  } finally {
    removeScratch(dir);
  }
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        only: { type: 'string' }, quick: { type: 'boolean', default: false }, out: { type: 'string' }, help: { type: 'boolean', default: false },
        // Internal: one comparison in this process (see runInChild).
        child: { type: 'string' }, result: { type: 'string' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const only = values.only?.split(',').map((s) => Number(s.trim()));
  if (only?.some((id) => !Number.isInteger(id) || id < 1 || id > 11)) {
    process.stderr.write(`error: --only takes comparison numbers from 1 to 11, got "${values.only}"\n\n${USAGE}`);
    return 2;
  }
  // --out is a path as the user typed it (absolute, or relative to where they are).
  const outDir = values.out === undefined ? join(ROOT, 'reports', 'bench') : resolve(values.out);
  const all = plans(values.quick, outDir);
  if (values.child) {
    const plan = all.find((p) => p.id === Number(values.child));
    if (!plan || !values.result) {
      process.stderr.write('error: --child needs a comparison number and --result FILE\n');
      return 2;
    }
    return runChild(plan, values.result);
  }
  // Profiles of an earlier run would sit beside this run's report as if they were its own.
  if (existsSync(outDir)) for (const f of readdirSync(outDir).filter((name) => name.endsWith('.cpuprofile'))) rmSync(join(outDir, f));
  const started = new Date();
  const loadAtStart = loadavg()[0]!;
  const outcomes: Outcome[] = [];
  const selected = all.filter((p) => !only || only.includes(p.id));
  for (const [i, plan] of selected.entries()) {
    process.stderr.write(`[${i + 1}/${selected.length}] ${plan.id}. ${plan.title} …`);
    const t0 = Date.now();
    const outcome = await runInChild(plan, values.quick, outDir);
    process.stderr.write(` ${outcome.comparison.status} in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    outcomes.push(outcome);
  }
  const finished = new Date();
  const cpu = cpus();
  const report: BenchReport = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    seconds: (finished.getTime() - started.getTime()) / 1000,
    machine: {
      node: process.version,
      platform: `${platform()} ${release()}`,
      cpus: cpu.length,
      cpuModel: cpu[0]?.model.trim() ?? 'unknown',
      taskset: canPin,
      pinning: pinningText() + (values.quick ? '; QUICK run: short rounds and small sizes, figures not comparable to the targets' : ''),
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
    },
    comparisons: outcomes.map((o) => o.comparison).sort((a, b) => a.id - b.id),
    targets: outcomes.flatMap((o) => o.targets).sort((a, b) => a.comparison - b.comparison),
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'bench.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(outDir, 'bench.md'), renderMarkdown(report));
  process.stdout.write('\n' + renderTable(report));
  process.stdout.write(`\nreports: ${relative(process.cwd(), join(outDir, 'bench.json'))}\n         ${relative(process.cwd(), join(outDir, 'bench.md'))}\n`);
  return report.comparisons.some((c) => c.status === 'failed') ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopAll('SIGTERM');
    removeScratch();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}
const code = await main();
stopAll();
process.exit(code);
