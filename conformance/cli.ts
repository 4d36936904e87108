/**
 * `npm run conformance -- [options]`: runs the suites against the in-process
 * simulator or a live deployment, prints a line per check, writes the
 * reports and exits 0 only when every applicable check passed. The options
 * are a public contract (docs/conformance.md).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
// Only what checks the command line, the config file and the report directory is loaded up front, so a typo or an
// unwritable directory is refused in a fraction of a second; the runner, the catalogue and the reports load after.
import { HELP, parseCommandLine, usageErrorText } from '../cli/command-line.ts';
import { warnSecretFlags } from '../cli/secret-flags.ts';
import { didYouMean } from '../cli/nearest-name.ts';
import { prepareReportDir, ReportDirError } from '../reporting/report-dir.ts';
import { readConfigFile } from './config-file.ts';
import { keepRotated, rotatedHint } from './rotated-credentials.ts';
import { credentialWords, givenCredentials, shellWord } from './replay.ts';
import type { CredentialName } from './credential-variables.ts';
import type { ConformanceOptions } from './runner.ts';
import type { CheckResult, MergedReport, RunReport } from './types.ts';
import { catalogueChecks, provedPhrase, verdictLines, verdictShout } from './verdict.ts';

async function usage(): Promise<string> {
  const { catalogue } = await import('./catalogue.ts');
  return `Usage: npm run conformance -- [options]   (installed: partner-api conformance [options])

Target (default: the in-process simulator, fresh world per check, its control plane offering every action)
  --target URL            base URL of a live deployment (…/api/integrations/v1); checked first (preflight):
                          a dead host, a refused key or not this API ends the run with exit 2, no check judged
  --api-key KEY           the integration's API key (or PARTNER_API_KEY)
  --webhook-secret S      its webhook secret (or PARTNER_WEBHOOK_SECRET)
  --config FILE           JSON or YAML: target, apiKey, webhookSecret, properties, otherApiKey, otherProperties, disabledApiKey,
                          nonIntegrationToken, controlUrl, controlToken, allowWrites, allowSync, allowBurst,
                          webhookPublicUrl, webhookListenPort; checked against its JSON Schema before anything runs
                          (an unknown key exits 2), node_modules/partner-api-conformance/dist/conformance/config.schema.json
  --allow-writes          let checks create bookings (live: only on --property, far-future free nights, ids prefixed by the run id)
  --allow-sync            let the sync checks call POST /sync (spends the day's full-sync allowance)
  --property ID           a platform property id a live run may use (repeatable)
  --other-property ID     a property of the second integration's it may book on with its key (repeatable; the
                          cross-integration checks that need its own booking: external ids, Idempotency-Keys)
  --allow-burst           let a check drive the rate limit to a 429 (lowered and put back where the control plane offers
                          rate-limit.set; otherwise, live, the key is throttled until the window resets)
  --webhook-public-url U  live webhooks: the URL the platform delivers to (staff registered it)
  --webhook-listen-port N live webhooks: where the runner's receiver listens behind that URL
  --control-url URL       a staging control plane (spec/control-openapi.yaml) for checks that need platform actions
  --control-token T       its bearer token (or PARTNER_CONTROL_TOKEN)
  Other credentials come from --config or the environment: PARTNER_OTHER_API_KEY (a second integration),
  PARTNER_DISABLED_API_KEY (a disabled integration), PARTNER_NON_INTEGRATION_TOKEN (a valid non-integration token).
What to run
  --suite NAME            only this suite (repeatable): ${[...new Set(catalogue().map((c) => c.suite))].join(', ')}
  --check ID              only this check (repeatable); --list shows them all
  --normative-only        leave out checks that rely on an x-assumption
  --runs N                fast-check runs per property (default 25)
  --seed S  --path P      replay one failure exactly (printed with every failure)
  --time-budget SECONDS   stop starting new checks after this long
Gate (exit 1 when the run proved too little)
  --require-applicable N  at least N checks must run (N ≥ 1), or that share of the selected ones (0 < N < 1)
  --fail-on-not-applicable  any check not applicable fails the run
Output
  --report-dir DIR        where reports go (default reports/): <run-id>/ and latest/; made and tested for writing
                          before the first check (exit 2 when it cannot hold them)
  --label NAME            name the deployment in the report (target.label; a merged report's column)
  --list                  list the checks and exit
Merging (no run: combines finished runs, one per deployment)
  --merge DIR [DIR…]      one report.json, junit.xml and index.html with a column per deployment, written to
                          --report-dir OUT, required (<merge-id>/ and latest/); DIR is a run directory holding report.json
                          or a --report-dir (its latest/, or its only run); exit 0 only when every run passed
Mutation testing
  --fault NAME            run against a simulator with one deliberate breach (needs --enable-faults)
  --mutants               run every fault and print the mutation score
  --mutants --live        the same over HTTP: a simulator process started with each fault (npm start --fault NAME
                          --enable-faults), reached as a live deployment with the control plane
`;
}

async function main(): Promise<number> {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseCommandLine({
      options: {
        target: { type: 'string' }, 'api-key': { type: 'string' }, 'webhook-secret': { type: 'string' }, config: { type: 'string' },
        'allow-writes': { type: 'boolean' }, 'allow-sync': { type: 'boolean' }, 'allow-burst': { type: 'boolean' }, property: { type: 'string', multiple: true }, 'other-property': { type: 'string', multiple: true },
        'webhook-public-url': { type: 'string' }, 'webhook-listen-port': { type: 'string' },
        'control-url': { type: 'string' }, 'control-token': { type: 'string' },
        'require-applicable': { type: 'string' }, 'fail-on-not-applicable': { type: 'boolean' },
        suite: { type: 'string', multiple: true }, check: { type: 'string', multiple: true }, 'normative-only': { type: 'boolean' },
        runs: { type: 'string' }, seed: { type: 'string' }, path: { type: 'string' }, 'time-budget': { type: 'string' },
        'report-dir': { type: 'string' }, list: { type: 'boolean' }, label: { type: 'string' },
        merge: { type: 'string', multiple: true },
        fault: { type: 'string' }, 'enable-faults': { type: 'boolean' }, mutants: { type: 'boolean' }, live: { type: 'boolean' }, help: { type: 'boolean' },
      },
      strict: true,
      // Only --merge takes several values (`--merge a b c`); any other bare word is refused below.
      allowPositionals: true,
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  warnSecretFlags('conformance', values);
  if (values.help) {
    process.stdout.write(await usage());
    return 0;
  }
  // A flag given an empty value is almost always an unset CI variable ("--target $UNSET"): never read it as absent
  // (an empty --target would quietly test the in-process simulator).
  for (const [name, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && item.trim() === '') return usageError(`--${name} is empty (an unset variable?)`);
    }
  }
  if (values.merge) {
    const others = Object.keys(values).filter((k) => k !== 'merge' && k !== 'report-dir' && values[k as keyof typeof values] !== undefined);
    if (others.length > 0) return usageError(`--merge combines finished runs and takes only --report-dir; drop ${others.map((k) => `--${k}`).join(', ')}`);
    // No default here: the merged report must not replace a run's own reports/latest/.
    if (values['report-dir'] === undefined) return usageError('--merge needs --report-dir OUT, the directory the merged report goes to');
    const dirs = [...values.merge, ...positionals];
    const out = resolve(values['report-dir']);
    const clash = dirs.find((d) => resolve(d) === out);
    if (clash !== undefined) return usageError(`--report-dir ${values['report-dir']} is also a directory to merge (${clash}); write the merged report elsewhere`);
    const unwritable = reportDirProblem(values['report-dir']);
    if (unwritable !== undefined) return setupError(unwritable);
    return await merge(dirs, values['report-dir']);
  }
  if (positionals.length > 0) return usageError(`unexpected argument "${positionals[0]}" (only --merge takes several values; options start with --)`);
  if (values.list) {
    const { catalogue } = await import('./catalogue.ts');
    process.stdout.write(`${'CHECK'.padEnd(48)} ${'SUITE'.padEnd(12)} ${'LEVEL'.padEnd(10)} ${'NEEDS'.padEnd(17)} CLAUSES\n`);
    for (const c of catalogue()) process.stdout.write(`${c.id.padEnd(48)} ${c.suite.padEnd(12)} ${c.level.padEnd(10)} ${c.needs.join('+').padEnd(17)} ${c.clauses.join(' ')}\n`);
    return 0;
  }
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new Error(`--${name} must be an integer, got "${v}"`);
    return Number(v);
  };
  const share = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || (n > 1 && !Number.isInteger(n))) throw new Error(`--${name} must be a count of checks (1, 2, …) or a share between 0 and 1, got "${v}"`);
    return n;
  };
  let options: ConformanceOptions;
  try {
    const file = values.config ? readConfigFile(values.config) : {};
    const properties = values.property?.map((p) => int('property', p)!) ?? file.properties;
    const otherProperties = values['other-property']?.map((p) => int('other-property', p)!) ?? file.otherProperties;
    // CI systems hand an unset secret over as an empty variable: empty is unset.
    const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ''));
    const baseUrl = values.target ?? file.target;
    options = {
      ...(baseUrl ? { baseUrl } : { target: 'in-process' as const }),
      apiKey: values['api-key'] ?? file.apiKey ?? env.PARTNER_API_KEY,
      webhookSecret: values['webhook-secret'] ?? file.webhookSecret ?? env.PARTNER_WEBHOOK_SECRET,
      otherApiKey: file.otherApiKey ?? env.PARTNER_OTHER_API_KEY,
      otherProperties,
      disabledApiKey: file.disabledApiKey ?? env.PARTNER_DISABLED_API_KEY,
      nonIntegrationToken: file.nonIntegrationToken ?? env.PARTNER_NON_INTEGRATION_TOKEN,
      controlUrl: values['control-url'] ?? file.controlUrl,
      controlToken: values['control-token'] ?? file.controlToken ?? env.PARTNER_CONTROL_TOKEN,
      webhookPublicUrl: values['webhook-public-url'] ?? file.webhookPublicUrl,
      webhookListenPort: int('webhook-listen-port', values['webhook-listen-port']) ?? file.webhookListenPort,
      properties,
      allowWrites: values['allow-writes'] ?? file.allowWrites ?? false,
      allowSync: values['allow-sync'] ?? file.allowSync ?? false,
      allowBurst: values['allow-burst'] ?? file.allowBurst ?? false,
      suites: values.suite, checks: values.check, normativeOnly: values['normative-only'],
      runs: int('runs', values.runs), seed: int('seed', values.seed), path: values.path,
      timeBudgetSeconds: int('time-budget', values['time-budget']),
      requireApplicable: share('require-applicable', values['require-applicable']),
      failOnNotApplicable: values['fail-on-not-applicable'] ?? false,
      label: values.label?.trim(),
    };
    options.replayBase = replayBase(values, options.baseUrl ? namedCredentials(options, file, values) : []);
    if (options.seed !== undefined && options.seed < 0) throw new Error(`--seed must be 0 or more, got ${options.seed}`);
    if (options.runs !== undefined && options.runs < 1) throw new Error('--runs must be at least 1');
    if (options.baseUrl && !options.apiKey) throw new Error('--target needs --api-key (or apiKey in --config, or PARTNER_API_KEY)');
    if (options.baseUrl && options.allowWrites && !options.properties?.length) throw new Error('--allow-writes on a live target needs at least one --property ID to write on');
  } catch (e) {
    return usageError((e as Error).message);
  }
  const reportDir = values['report-dir'] ?? 'reports';
  // Before the first check (and before the runner loads): a directory that cannot hold the reports is found now, not after the whole run.
  if (!values.mutants) {
    const unwritable = reportDirProblem(reportDir);
    if (unwritable !== undefined) return setupError(unwritable);
  }
  const { catalogue } = await import('./catalogue.ts');
  const { runConformance, selectChecks } = await import('./runner.ts');
  try {
    if (values.fault || values.mutants) {
      const { FAULT_NAMES } = await import('../simulator/faults.ts');
      if (options.baseUrl) throw new Error('--fault and --mutants run against the in-process simulator only; drop --target');
      if (values.fault && !values['enable-faults']) throw new Error('--fault breaks the simulator on purpose; add --enable-faults to confirm');
      if (values.fault && !FAULT_NAMES.includes(values.fault as never)) throw new Error(`unknown --fault "${values.fault}"${didYouMean(values.fault, FAULT_NAMES) || ` (faults: ${FAULT_NAMES.join(', ')})`}`);
      options.fault = values.fault;
    }
    selectChecks(catalogue(), options);
  } catch (e) {
    return usageError((e as Error).message);
  }

  if (values.mutants) {
    const [{ runMutants }, { runLiveMutants, startSimulatorWithFault }] = await Promise.all([import('./mutants.ts'), import('./live-mutants.ts')]);
    process.stdout.write(`Mutation testing${values.live ? ' over HTTP (a simulator process per fault, as a live target)' : ''}: each fault must be detected by its check.\n`);
    const { results, score } = values.live
      ? await runLiveMutants(startSimulatorWithFault, { runs: options.runs, seed: options.seed })
      : await runMutants({ runs: options.runs, seed: options.seed });
    for (const r of results) process.stdout.write(`${r.detected ? '✓ detected' : '✗ MISSED  '}  ${r.fault.padEnd(30)} by ${r.check}  (${r.description})\n`);
    process.stdout.write(`\nmutation score: ${results.filter((r) => r.detected).length}/${results.length} = ${(score * 100).toFixed(0)}%\n`);
    return score === 1 ? 0 : 1;
  }

  const [{ SetupError }, { writeReports }] = await Promise.all([import('./preflight.ts'), import('../reporting/write.ts')]);
  const allowed = [options.allowWrites && 'write', options.allowSync && 'sync', options.allowBurst && 'burst'].filter(Boolean);
  const target = options.baseUrl ? `${options.baseUrl} (live, read${allowed.map((a) => `+${a}`).join('')})` : `in-process simulator${options.fault ? ` with fault ${options.fault}` : ''}`;
  process.stdout.write(`Conformance of API 2026-09 against ${target}\n\n`);
  let report: RunReport;
  const rotated: Record<string, string> = {};
  try {
    report = await runConformance({
      ...options,
      // A not-applicable check gets no line of its own: the closing lines group them by what to add (issue 41 item 3).
      onResult: (r) => {
        if (r.outcome !== 'not_applicable') process.stdout.write(line(r));
      },
      // A check rotated a credential through the control plane: the old one is gone, so the new one is kept for the partner.
      onCredentialRotated: (kind, value) => {
        rotated[kind] = value;
        const file = keepRotated(reportDir, rotated);
        process.stderr.write(`note: a check rotated the integration's ${kind === 'apiKey' ? 'API key' : 'webhook secret'} through the control plane; the new value is in ${file} (mode 0600)\n`);
      },
    });
  } catch (e) {
    if (e instanceof SetupError) {
      const hint = rotatedHint(reportDir, e.refused);
      process.stderr.write(`error: ${e.message}\n${hint ? `${hint}\n` : ''}(a setup problem: no check was run or judged)\n`);
      return 2;
    }
    throw e;
  }
  const written = writeReports(report, reportDir);
  const named = [...new Set(report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'errored').flatMap((r) => `${r.replay}\n${r.curl ?? ''}`.match(/\bPARTNER_[A-Z_]+/g) ?? []))];
  if (named.length > 0) process.stdout.write(`\nreplay and curl commands name the credentials by variable: set ${named.join(', ')} (as you would for this run) before pasting them\n`);
  const reports = [`reports: ${written.files.html}`, `         ${written.files.junit}`, `         ${written.files.json}`];
  // The run ends with what to add, the failures and the verdict naming them (issue 41 items 3 and 4).
  process.stdout.write(`\n${verdictLines(report, reports).join('\n')}\n`);
  return report.summary.verdict === 'passed' ? 0 : 1;
}

/** `--merge DIR…`: reads each run's report.json, writes the merged reports, prints each deployment's verdict and the merged one. */
async function merge(dirs: string[], reportDir: string): Promise<number> {
  const [{ MergeError, mergeReports }, { readMergeInputs }, { writeMergedReports }] = await Promise.all([import('../reporting/merge.ts'), import('../reporting/merge-sources.ts'), import('../reporting/write.ts')]);
  let merged: MergedReport;
  try {
    const mergeId = `merged-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
    merged = mergeReports(readMergeInputs(dirs), mergeId);
  } catch (e) {
    if (e instanceof MergeError) return usageError(e.message);
    throw e;
  }
  const written = writeMergedReports(merged, reportDir);
  const width = Math.max(...merged.deployments.map((d) => d.label.length));
  process.stdout.write(`Merged ${merged.deployments.length} run(s) of API ${merged.apiVersion}:\n`);
  for (const d of merged.deployments) {
    const s = d.summary;
    process.stdout.write(`  ${d.label.padEnd(width)}  ${verdictShout(s).padEnd(16)} ${provedPhrase(s)}; ${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped  (${d.source})\n`);
  }
  const s = merged.summary;
  process.stdout.write(`\nacross deployments: ${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped; ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven on every deployment\n`);
  process.stdout.write(`verdict: ${verdictShout(s)} — ${s.gate.length > 0 ? `${s.gate.join('; ')}; ` : ''}${s.applicable} of ${catalogueChecks(s)} checks applicable across deployments, ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven on every one\n`);
  process.stdout.write(`reports: ${written.files.html}\n         ${written.files.junit}\n         ${written.files.json}\n`);
  return s.verdict === 'passed' ? 0 : 1;
}

/**
 * The flags this run was given that shape what a check does, and its
 * credentials by the variables that hold them (conformance/replay.ts); a
 * credential read from --config comes with --config.
 */
function replayBase(values: Record<string, unknown>, credentials: CredentialName[]): string {
  const parts = [...credentialWords(credentials), 'npm run conformance --'];
  const keep = ['target', 'config', 'property', 'allow-writes', 'allow-sync', 'allow-burst', 'webhook-public-url', 'webhook-listen-port', 'control-url', 'normative-only', 'runs', 'fault', 'enable-faults'];
  for (const name of keep) {
    const v = values[name];
    if (v === undefined || v === false) continue;
    for (const item of Array.isArray(v) ? v : [v]) parts.push(item === true ? `--${name}` : `--${name} ${shellWord(String(item))}`);
  }
  return parts.join(' ');
}

/** The run's credentials that did not come from --config (a flag wins over the file, the file over the environment). */
function namedCredentials(options: ConformanceOptions, file: Partial<Record<CredentialName, unknown>>, values: Record<string, unknown>): CredentialName[] {
  const flag: Partial<Record<CredentialName, string>> = { apiKey: 'api-key', webhookSecret: 'webhook-secret', controlToken: 'control-token' };
  return givenCredentials(options).filter((name) => {
    const given = flag[name];
    return (given !== undefined && values[given] !== undefined) || file[name] === undefined;
  });
}

function line(r: CheckResult): string {
  const mark = { passed: '✓ pass', failed: '✗ FAIL', errored: '! ERROR', not_applicable: '- n/a ', skipped: '- skip' }[r.outcome];
  let out = `${mark}  ${r.id.padEnd(48)} ${String(r.ms).padStart(5)} ms${r.reason ? `  (${r.reason})` : ''}\n`;
  if (r.failure) {
    out += `        Received:   ${r.failure.received}\n        Documented: ${r.failure.documented} (${r.failure.clause})\n`;
    if (r.failure.note) out += `        Note:       ${r.failure.note}\n`;
    if (r.property?.counterexample) out += `        Counterexample: ${r.property.counterexample.slice(0, 500)}\n`;
    out += `        Replay:     ${r.replay}\n`;
    if (r.curl) out += `        Request:    ${r.curl.split('\n').join('\n                    ')}\n`;
  }
  if (r.error) out += `        ${r.error.split('\n').slice(0, 4).join('\n        ')}\n`;
  return out;
}

/** The report directory's problem, if it cannot be made or written; undefined when it is ready. */
function reportDirProblem(dir: string): string | undefined {
  try {
    prepareReportDir(dir);
    return undefined;
  } catch (e) {
    if (e instanceof ReportDirError) return e.message;
    throw e;
  }
}

function setupError(message: string): number {
  process.stderr.write(`error: ${message}\n(a setup problem: no check was run or judged)\n`);
  return 2;
}

function usageError(message: string): number {
  process.stderr.write(usageErrorText(message, HELP.conformance));
  return 2;
}

process.exitCode = await main();
