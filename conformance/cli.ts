/**
 * `npm run conformance -- [options]`: runs the suites against the in-process
 * simulator or a live deployment, prints a line per check, writes the
 * reports and exits 0 only when every applicable check passed. The options
 * are a public contract (README "Conformance").
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { writeReports } from '../reports/write.ts';
import { FAULT_NAMES } from '../simulator/faults.ts';
import { catalogue } from './catalogue.ts';
import { runMutants } from './mutants.ts';
import { runConformance, selectChecks, type ConformanceOptions } from './runner.ts';
import type { CheckResult } from './types.ts';

const USAGE = `Usage: npm run conformance -- [options]

Target (default: the in-process simulator, fresh world per check, full staff control)
  --target URL            base URL of a live deployment (…/api/integrations/v1)
  --api-key KEY           the integration's API key (or PARTNER_API_KEY)
  --webhook-secret S      its webhook secret (or PARTNER_WEBHOOK_SECRET)
  --config FILE           JSON or YAML: target, apiKey, webhookSecret, properties, otherApiKey, allowWrites, allowBurst
  --allow-writes          let checks create bookings (live: only on --property, far-future dates, ids prefixed by the run id)
  --property ID           a platform property id a live run may use (repeatable)
  --allow-burst           let a check drive the rate limit to a 429 (live: the key is throttled until the window resets)
  --webhook-public-url U  live webhooks: the URL the platform delivers to (staff registered it)
  --webhook-listen-port N live webhooks: where the runner's receiver listens behind that URL
What to run
  --suite NAME            only this suite (repeatable): ${[...new Set(catalogue().map((c) => c.suite))].join(', ')}
  --check ID              only this check (repeatable); --list shows them all
  --normative-only        leave out checks that rely on an x-assumption
  --runs N                fast-check runs per property (default 25)
  --seed S  --path P      replay one failure exactly (printed with every failure)
  --time-budget SECONDS   stop starting new checks after this long
Output
  --report-dir DIR        where reports go (default reports/): <run-id>/ and latest/
  --list                  list the checks and exit
Mutation testing (in-process only)
  --fault NAME            run against a simulator with one deliberate breach (needs --enable-faults)
  --mutants               run every fault and print the mutation score
`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        target: { type: 'string' }, 'api-key': { type: 'string' }, 'webhook-secret': { type: 'string' }, config: { type: 'string' },
        'allow-writes': { type: 'boolean' }, 'allow-burst': { type: 'boolean' }, property: { type: 'string', multiple: true },
        'webhook-public-url': { type: 'string' }, 'webhook-listen-port': { type: 'string' },
        suite: { type: 'string', multiple: true }, check: { type: 'string', multiple: true }, 'normative-only': { type: 'boolean' },
        runs: { type: 'string' }, seed: { type: 'string' }, path: { type: 'string' }, 'time-budget': { type: 'string' },
        'report-dir': { type: 'string', default: 'reports' }, list: { type: 'boolean' },
        fault: { type: 'string' }, 'enable-faults': { type: 'boolean' }, mutants: { type: 'boolean' }, help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.list) {
    for (const c of catalogue()) process.stdout.write(`${c.id.padEnd(48)} ${c.suite.padEnd(12)} ${c.level.padEnd(10)} needs ${c.needs.join('+').padEnd(11)} ${c.clauses.join(' ')}\n`);
    return 0;
  }
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new Error(`--${name} must be an integer, got "${v}"`);
    return Number(v);
  };
  let options: ConformanceOptions;
  try {
    const file = values.config ? readConfig(values.config) : {};
    const properties = values.property?.map((p) => int('property', p)!) ?? file.properties;
    options = {
      baseUrl: values.target ?? file.target,
      apiKey: values['api-key'] ?? file.apiKey ?? process.env.PARTNER_API_KEY,
      webhookSecret: values['webhook-secret'] ?? file.webhookSecret ?? process.env.PARTNER_WEBHOOK_SECRET,
      otherApiKey: file.otherApiKey,
      webhookPublicUrl: values['webhook-public-url'] ?? file.webhookPublicUrl,
      webhookListenPort: int('webhook-listen-port', values['webhook-listen-port']) ?? file.webhookListenPort,
      properties,
      allowWrites: values['allow-writes'] ?? file.allowWrites ?? false,
      allowBurst: values['allow-burst'] ?? file.allowBurst ?? false,
      suites: values.suite, checks: values.check, normativeOnly: values['normative-only'],
      runs: int('runs', values.runs), seed: int('seed', values.seed), path: values.path,
      timeBudgetSeconds: int('time-budget', values['time-budget']),
    };
    if (options.runs !== undefined && options.runs < 1) throw new Error('--runs must be at least 1');
    if (values.fault || values.mutants) {
      if (options.baseUrl) throw new Error('--fault and --mutants run against the in-process simulator only; drop --target');
      if (values.fault && !values['enable-faults']) throw new Error('--fault breaks the simulator on purpose; add --enable-faults to confirm');
      if (values.fault && !FAULT_NAMES.includes(values.fault as never)) throw new Error(`unknown --fault "${values.fault}" (faults: ${FAULT_NAMES.join(', ')})`);
      options.fault = values.fault;
    }
    selectChecks(catalogue(), options);
    if (options.baseUrl && !options.apiKey) throw new Error('--target needs --api-key (or apiKey in --config, or PARTNER_API_KEY)');
    if (options.baseUrl && options.allowWrites && !options.properties?.length) throw new Error('--allow-writes on a live target needs at least one --property ID to write on');
  } catch (e) {
    return usageError((e as Error).message);
  }

  if (values.mutants) {
    process.stdout.write('Mutation testing: each fault must be detected by its check.\n');
    const { results, score } = await runMutants({ runs: options.runs, seed: options.seed });
    for (const r of results) process.stdout.write(`${r.detected ? '✓ detected' : '✗ MISSED  '}  ${r.fault.padEnd(30)} by ${r.check}  (${r.description})\n`);
    process.stdout.write(`\nmutation score: ${results.filter((r) => r.detected).length}/${results.length} = ${(score * 100).toFixed(0)}%\n`);
    return score === 1 ? 0 : 1;
  }

  const target = options.baseUrl ? `${options.baseUrl} (live, ${options.allowWrites ? 'read+write' : 'read-only'})` : `in-process simulator${options.fault ? ` with fault ${options.fault}` : ''}`;
  process.stdout.write(`Conformance of API 2026-09 against ${target}\n\n`);
  const report = await runConformance({ ...options, onResult: (r) => process.stdout.write(line(r)) });
  const written = writeReports(report, values['report-dir']!);
  const s = report.summary;
  process.stdout.write(`\n${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped in ${(s.ms / 1000).toFixed(1)} s (seed ${report.options.seed})\n`);
  const uncovered = report.coverage.filter((c) => c.status === 'uncovered').length;
  process.stdout.write(`clauses: ${report.coverage.length - uncovered} of ${report.coverage.length} have checks\n`);
  process.stdout.write(`reports: ${written.files.html}\n         ${written.files.junit}\n         ${written.files.json}\n`);
  return s.failed + s.errored === 0 ? 0 : 1;
}

function line(r: CheckResult): string {
  const mark = { passed: '✓ pass', failed: '✗ FAIL', errored: '! ERROR', not_applicable: '- n/a ', skipped: '- skip' }[r.outcome];
  let out = `${mark}  ${r.id.padEnd(48)} ${String(r.ms).padStart(5)} ms${r.reason ? `  (${r.reason})` : ''}\n`;
  if (r.failure) {
    out += `        Received:   ${r.failure.received}\n        Documented: ${r.failure.documented} (${r.failure.clause})\n`;
    if (r.property?.counterexample) out += `        Counterexample: ${r.property.counterexample.slice(0, 500)}\n`;
    out += `        Replay:     ${r.replay}\n`;
  }
  if (r.error) out += `        ${r.error.split('\n').slice(0, 4).join('\n        ')}\n`;
  return out;
}

function readConfig(path: string): { target?: string; apiKey?: string; webhookSecret?: string; properties?: number[]; otherApiKey?: string; allowWrites?: boolean; allowBurst?: boolean; webhookPublicUrl?: string; webhookListenPort?: number } {
  const text = readFileSync(path, 'utf8');
  const data = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (data === null || typeof data !== 'object') throw new Error(`--config ${path} must hold an object`);
  return data;
}

function usageError(message: string): number {
  process.stderr.write(`error: ${message}\n\n${USAGE}`);
  return 2;
}

process.exitCode = await main();
