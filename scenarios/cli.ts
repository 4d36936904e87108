/**
 * `npm run scenario -- NAME [NAME ...] [options]`: runs scenarios one by one
 * (by name or number; `all` for every one), prints a line each, writes each
 * timeline to reports/scenarios/NAME.md and .html, and exits 0 only when all
 * passed (1 when one failed, 2 on a usage error, 3 when none failed but a
 * live wait ran out: not observed). The only file here that exits the process.
 */
import { relative } from 'node:path';
import { HELP, parseCommandLine, usageErrorText } from '../cli/command-line.ts';
import { warnSecretFlags } from '../cli/secret-flags.ts';
import { didYouMean } from '../cli/nearest-name.ts';
import { prepareReportDir, ReportDirError } from '../reporting/report-dir.ts';
import { SCENARIOS, findScenario } from './catalogue.ts';
import { describeDifference } from './kit/convergence.ts';
import { DEFAULT_REPORT_DIR } from './kit/report.ts';
import { runScenario, type RunOptions, type ScenarioDefinition } from './kit/scenario.ts';
import { BREAKAGE_NAMES, type Breakages } from './partner/config.ts';

const USAGE = `Usage: npm run scenario -- NAME|NUMBER|all [...] [options]   (installed: partner-api scenario …)

Scenarios (live-capable ones marked *):
${SCENARIOS.map((s) => `  ${String(s.number).padStart(2)} ${s.live.capable ? '*' : ' '} ${s.name.padEnd(18)} ${s.title}`).join('\n')}

Options
  --list                     list the scenarios with their one-line stories and exit
  --break NAME               break the reference partner on purpose (repeatable), to see a failure and its
                             divergence report: ${BREAKAGE_NAMES.join(', ')}
  --report-dir DIR           where the timelines go (default reports/scenarios/)
Live target (partner API only; only scenarios marked * run)
  --target URL               base URL of the deployment (…/api/integrations/v1)
  --api-key KEY              the integration's API key (or PARTNER_API_KEY)
  --webhook-secret S         its webhook secret (or PARTNER_WEBHOOK_SECRET)
  --webhook-public-url URL   the webhook URL staff registered; it must reach the listener below
  --listen-host HOST         where the partner's listener binds (default 127.0.0.1)
  --listen-port N            (default 8787)
  --property REF             the property the scenarios may book on (doorloom_id or external_id)
  --max-wait-seconds N       a simulated wait ("two hours") lasts at most this long live (default 15)
`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine({
      allowPositionals: true,
      strict: true,
      options: {
        list: { type: 'boolean' }, help: { type: 'boolean' }, break: { type: 'string', multiple: true }, 'report-dir': { type: 'string' },
        target: { type: 'string' }, 'api-key': { type: 'string' }, 'webhook-secret': { type: 'string' }, 'webhook-public-url': { type: 'string' },
        'listen-host': { type: 'string' }, 'listen-port': { type: 'string' }, property: { type: 'string' }, 'max-wait-seconds': { type: 'string' },
      },
    });
  } catch (e) {
    return usageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  warnSecretFlags('scenario', values);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.list) {
    // "live": whether the scenario can also run against a deployment (--target), not only the simulator.
    process.stdout.write(`${' #'} ${'scenario'.padEnd(18)} live  story\n`);
    for (const s of SCENARIOS) process.stdout.write(`${String(s.number).padStart(2)} ${s.name.padEnd(18)} ${s.live.capable ? 'yes ' : 'no  '}  ${s.story}\n`);
    return 0;
  }
  if (positionals.length === 0) return usageError('name at least one scenario (or all)');
  const chosen: ScenarioDefinition[] = [];
  for (const ref of positionals) {
    if (ref === 'all') chosen.push(...SCENARIOS);
    else {
      const s = findScenario(ref);
      if (!s) return usageError(`unknown scenario "${ref}"${didYouMean(ref, SCENARIOS.map((x) => x.name))} (see --list)`);
      chosen.push(s);
    }
  }
  const breakages: Partial<Breakages> = {};
  for (const name of values.break ?? []) {
    if (!(BREAKAGE_NAMES as readonly string[]).includes(name)) return usageError(`--break must be one of ${BREAKAGE_NAMES.join(', ')}, got "${name}"`);
    breakages[name as keyof Breakages] = true;
  }
  const options: RunOptions = { breakages, reportDir: values['report-dir'] };
  if (values.target) {
    const apiKey = values['api-key'] ?? process.env.PARTNER_API_KEY;
    const webhookSecret = values['webhook-secret'] ?? process.env.PARTNER_WEBHOOK_SECRET;
    if (!apiKey) return usageError('--target needs --api-key (or PARTNER_API_KEY)');
    if (!webhookSecret) return usageError('--target needs --webhook-secret (or PARTNER_WEBHOOK_SECRET)');
    if (!values['webhook-public-url']) return usageError('--target needs --webhook-public-url (the webhook URL staff registered)');
    const port = values['listen-port'] === undefined ? undefined : Number(values['listen-port']);
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) return usageError(`--listen-port must be a port number, got "${values['listen-port']}"`);
    const maxWait = values['max-wait-seconds'] === undefined ? undefined : Number(values['max-wait-seconds']);
    if (maxWait !== undefined && !(maxWait >= 0)) return usageError(`--max-wait-seconds must be a number of seconds, got "${values['max-wait-seconds']}"`);
    options.live = {
      baseUrl: values.target, apiKey, webhookSecret, webhookPublicUrl: values['webhook-public-url'],
      listenHost: values['listen-host'], listenPort: port, property: values.property,
      maxWaitMs: maxWait === undefined ? undefined : maxWait * 1000,
    };
    const notLive = chosen.filter((s) => !s.live.capable);
    for (const s of notLive) process.stdout.write(`SKIP  ${String(s.number).padStart(2)} ${s.name}: not live-capable (${s.live.note})\n`);
    chosen.splice(0, chosen.length, ...chosen.filter((s) => s.live.capable));
    if (chosen.length === 0) return usageError('none of the scenarios named can run against a live target (see --list)');
  }
  // Before the first scenario: a directory that cannot hold the timelines is found now, not after the runs.
  try {
    prepareReportDir(values['report-dir'] ?? DEFAULT_REPORT_DIR);
  } catch (e) {
    if (!(e instanceof ReportDirError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  // A run with the partner broken on purpose does not overwrite the report of a normal run.
  const broken = Object.keys(breakages);
  const reportName = (s: ScenarioDefinition) => (broken.length > 0 ? `${s.name}--broken-${broken.join('-')}` : options.live ? `${s.name}--live` : s.name);
  let failed = 0;
  let notObserved = 0;
  for (const s of chosen) {
    const r = await runScenario(s, { ...options, reportName: reportName(s) });
    const where = r.files ? relative(process.cwd(), r.files.md) : '';
    // A live wait that ran out is neither a pass nor a failure (issue 38).
    const unseen = !r.ok && r.failure === null && r.notObserved;
    process.stdout.write(`${r.ok ? 'PASS' : unseen ? 'NOT OBSERVED' : 'FAIL'}  ${String(s.number).padStart(2)} ${s.name.padEnd(18)} ${(r.durationMs / 1000).toFixed(1).padStart(5)} s  ${where}\n`);
    if (unseen) {
      notObserved += 1;
      process.stdout.write(`      ${r.notObserved}\n`);
    } else if (!r.ok) {
      failed += 1;
      const failure = r.failure?.split('\n')[0] ?? '';
      process.stdout.write(`      ${failure}\n`);
      const first = r.divergence?.differences[0];
      if (first && !failure.includes(describeDifference(first))) process.stdout.write(`      first divergence: ${describeDifference(first)}\n`);
    }
  }
  return failed > 0 ? 1 : notObserved > 0 ? 3 : 0;
}

function usageError(message: string): number {
  process.stderr.write(usageErrorText(message, HELP.scenario));
  return 2;
}

main().then((code) => process.exit(code), (e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
