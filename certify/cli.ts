/**
 * `npm run certify -- [flags]`: a certification run against the partner's
 * receiver and API usage, or `--verify FILE` to check a certificate. Only
 * this file exits the process.
 *
 * Exit codes: 0 no requirement failed (verify: the certificate holds);
 * 1 a requirement failed (verify: it does not); 2 bad flags or setup.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyCertificate } from './certificate.ts';
import { DEFAULT_DURATION_SECONDS } from './plan.ts';
import { runCertification } from './run.ts';

const USAGE = `Usage:   (installed: partner-api certify, with the same options)
  npm run certify -- --webhook-url URL [options]     certify a partner integration
  npm run certify -- --verify FILE [--public-key FILE]  check a certificate

  --webhook-url URL    the partner's webhook receiver (http or https)
  --duration SECONDS   upper bound of the run (default ${DEFAULT_DURATION_SECONDS}); it ends when the plan is done
  --report-dir DIR     reports go to DIR/certify/<run-id>/ and DIR/certify/latest/ (default reports)
  --seed S             repeat a run's plan (an integer; printed with every run)
  --sign-key FILE      sign the certificate with this Ed25519 private key (PEM)
  --port N             port of the in-process simulator on 127.0.0.1 (default 0: a free one)
  --fixtures-out FILE  where the certification file (credentials and orders) goes
                       (default DIR/certify/credentials.json)
  --base-url URL       use a running simulator (its API root) instead of an in-process one
  --staff-token T      the running simulator's staff token (with --base-url)
  --state-url URL      the partner's optional state probe (README: Certify your integration)
  --ready-timeout S    seconds to wait for the receiver's first 2xx (default: half the duration, at most 60)
  --verify FILE        check a certificate's digest and signature; exit 0 or 1
  --public-key FILE    verify with this Ed25519 public key (PEM) instead of the embedded one
  --help               this text
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function readText(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    fail(`${flag} cannot read "${path}": ${(e as Error).message}`);
  }
}

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = /^[0-9]+(\.[0-9]+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(n > 0)) fail(`${flag} must be a positive number of seconds, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    values = parseArgs({
      options: {
        'webhook-url': { type: 'string' },
        duration: { type: 'string' },
        'report-dir': { type: 'string' },
        seed: { type: 'string' },
        'sign-key': { type: 'string' },
        port: { type: 'string' },
        'fixtures-out': { type: 'string' },
        'base-url': { type: 'string' },
        'staff-token': { type: 'string' },
        'state-url': { type: 'string' },
        'ready-timeout': { type: 'string' },
        verify: { type: 'string' },
        'public-key': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) return void process.stdout.write(USAGE);

  if (values.verify !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readText('--verify', values.verify));
    } catch (e) {
      process.stdout.write(`FAILED ${values.verify}: not JSON (${(e as Error).message})\n`);
      process.exit(1);
    }
    const key = values['public-key'] === undefined ? null : readText('--public-key', values['public-key']);
    const v = verifyCertificate(parsed, key);
    const body = (parsed as { body?: { runId?: string; verdict?: string; apiVersion?: string } }).body;
    process.stdout.write(`${v.ok ? 'OK' : 'FAILED'} ${values.verify}: ${v.message}\n`);
    if (v.ok && body) process.stdout.write(`  run ${body.runId}, API ${body.apiVersion}, verdict ${body.verdict}\n`);
    process.exit(v.ok ? 0 : 1);
  }

  const webhookUrl = values['webhook-url'];
  if (!webhookUrl) fail('--webhook-url is required (or --verify FILE)');
  if (!/^https?:\/\/\S+$/.test(webhookUrl)) fail(`--webhook-url must be an http(s) URL, got "${webhookUrl}"`);
  if (values['state-url'] !== undefined && !/^https?:\/\/\S+$/.test(values['state-url'])) fail(`--state-url must be an http(s) URL, got "${values['state-url']}"`);
  const duration = positiveNumber('--duration', values.duration);
  const readyTimeout = positiveNumber('--ready-timeout', values['ready-timeout']);
  let seed: number | undefined;
  if (values.seed !== undefined) {
    if (!/^[0-9]{1,10}$/.test(values.seed) || Number(values.seed) > 2 ** 32 - 1) fail(`--seed must be an integer from 0 to ${2 ** 32 - 1}, got "${values.seed}"`);
    seed = Number(values.seed);
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = /^[0-9]{1,5}$/.test(values.port) ? Number(values.port) : NaN;
    if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  if ((values['base-url'] === undefined) !== (values['staff-token'] === undefined)) fail('--base-url and --staff-token go together');
  if (values['base-url'] !== undefined && values.port !== undefined) fail('--port is for the in-process simulator; it excludes --base-url');
  const signingKeyPem = values['sign-key'] === undefined ? null : readText('--sign-key', values['sign-key']);

  try {
    const { report } = await runCertification({
      webhookUrl,
      durationSeconds: duration,
      seed,
      reportDir: values['report-dir'] ?? 'reports',
      credentialsOut: values['fixtures-out'],
      port,
      running: values['base-url'] ? { baseUrl: values['base-url'], staffToken: values['staff-token']! } : undefined,
      stateUrl: values['state-url'] ?? null,
      signingKeyPem,
      readyTimeoutSeconds: readyTimeout,
      log: (line) => process.stdout.write(`${line}\n`),
    });
    process.exit(report.verdict === 'not-certified' ? 1 : 0);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(2);
  }
}

await main();
