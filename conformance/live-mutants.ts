/**
 * Mutation testing over HTTP: each fault of `--mutants`, served by a
 * simulator started with that fault and reached as a live deployment is
 * (partner credentials, the runner's receiver behind the webhook URL, the
 * platform's extra credentials and its control plane), must make its check
 * fail. This is the score that says the checks bite on deployments that are
 * not the in-process simulator.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_DESCRIPTIONS, FAULT_NAMES } from '../simulator/faults.ts';
import type { FaultName } from '../simulator/domain/faults.ts';
import { DETECTED_BY, missed, type MutantResult } from './mutants.ts';
import { runConformance, type ConformanceOptions } from './runner.ts';
import { freePort } from './served-simulator.ts';
import { whenStarted } from './child-started.ts';

/** A deployment serving one fault: the options a run against it needs, and how to stop it. */
export interface FaultyDeployment {
  options: ConformanceOptions;
  stop(): Promise<void>;
}

export type ServeFault = (fault: FaultName) => Promise<FaultyDeployment>;

/**
 * `concurrency` deployments at a time (default 1): each fault has its own
 * simulator, ports and receiver, and most of a check's time is spent waiting
 * on deliveries in real time, so a few at once finish sooner. Results keep
 * the order of the faults.
 */
export async function runLiveMutants(serve: ServeFault, options: Pick<ConformanceOptions, 'runs' | 'seed'> & { faults?: FaultName[]; concurrency?: number } = {}): Promise<{ results: MutantResult[]; score: number }> {
  const faults = [...(options.faults ?? FAULT_NAMES)];
  const results: MutantResult[] = new Array(faults.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < faults.length; i = next++) {
      const fault = faults[i]!;
      const check = DETECTED_BY[fault];
      const deployment = await serve(fault);
      try {
        const report = await runConformance({ ...deployment.options, runs: options.runs ?? 5, seed: options.seed, checks: [check] });
        const failedChecks = report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);
        const clause = report.results.find((r) => r.id === check && r.outcome === 'failed')?.failure?.clause || null;
        results[i] = { fault, description: FAULT_DESCRIPTIONS[fault], check, detected: failedChecks.includes(check), failedChecks, clause, ...missed(report.results, check) };
      } finally {
        await deployment.stop();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 1, faults.length)) }, worker));
  return { results, score: results.filter((r) => r.detected).length / results.length };
}

interface Fixtures {
  baseUrl: string;
  staffToken: string;
  integrations: { apiKey: string; webhookSecret: string; properties: { doorloom_id: number; archived?: boolean }[] }[];
}

/**
 * `npm start -- --memory --port 0 --fault NAME --enable-faults` as its own
 * process, the first integration's webhook pointing at a free local port for
 * the runner's receiver; resolved once the fixtures file is written.
 */
export const startSimulatorWithFault: ServeFault = async (fault) => {
  const dir = mkdtempSync(join(tmpdir(), 'live-mutant-'));
  const file = join(dir, 'fixtures.json');
  const port = await freePort();
  const webhookPublicUrl = `http://127.0.0.1:${port}/webhook`;
  // The simulator CLI beside this module: TypeScript through tsx in a clone, the built JavaScript in the package.
  const built = import.meta.url.endsWith('.js');
  const root = new URL('..', import.meta.url).pathname;
  const child = spawn(process.execPath, [...(built ? [] : ['--import', 'tsx']), built ? 'simulator/cli.js' : 'simulator/cli.ts', '--memory', '--port', '0', '--fault', fault, '--enable-faults', '--webhook-url', webhookPublicUrl, '--fixtures-out', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (s) => (out += s));
  child.stderr!.on('data', (s) => (out += s));
  await whenStarted(child, () => out, /base URL/);
  const stop = () => new Promise<void>((ok) => {
    rmSync(dir, { recursive: true, force: true });
    if (child.exitCode !== null) return ok();
    child.once('exit', () => ok());
    child.kill('SIGTERM');
  });
  if (!/base URL/.test(out)) {
    await stop();
    throw new Error(`the simulator with --fault ${fault} did not start: ${out}`);
  }
  const f = JSON.parse(readFileSync(file, 'utf8')) as Fixtures;
  const [main, other, disabled] = f.integrations;
  const origin = new URL(f.baseUrl).origin;
  return {
    options: {
      baseUrl: f.baseUrl, apiKey: main!.apiKey, webhookSecret: main!.webhookSecret,
      properties: main!.properties.filter((p) => !p.archived).map((p) => p.doorloom_id),
      allowWrites: true, allowSync: true, allowBurst: true, webhookPublicUrl, webhookListenPort: port,
      otherApiKey: other!.apiKey, otherProperties: other!.properties.filter((p) => !p.archived).map((p) => p.doorloom_id), disabledApiKey: disabled!.apiKey, nonIntegrationToken: f.staffToken,
      controlUrl: `${origin}/_control/v1`, controlToken: f.staffToken,
    },
    stop,
  };
};
