/**
 * `npm run certify -- [flags]`: a certification run against the partner's
 * receiver and API usage, or `--verify FILE` to check a certificate. Only
 * this file exits the process.
 *
 * `--regrade BUNDLE --sign-key KEY` grades a run's evidence bundle again
 * with this certifier and signs the certificate with the platform's key;
 * `--verify FILE --bundle BUNDLE` also checks a certificate against the
 * evidence it claims (evidence-binding.ts).
 *
 * Exit codes: 0 no requirement failed (verify: a certified certificate
 * signed by a trusted key); 1 a requirement failed (verify: anything else,
 * with the reason; regrade: the bundle refused, with the reasons); 2 bad
 * flags or setup (a receiver that never answered a signed ping: nothing
 * graded, no certificate).
 */
import { createPublicKey } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HELP, parseCommandLine, usageErrorText } from '../cli/command-line.ts';
import { invokedAs } from '../cli/invoked-as.ts';
import { warnSecretFlags } from '../cli/secret-flags.ts';
import { timestamp } from '../protocol/calendar.ts';
import { prepareReportDir, ReportDirError } from '../reporting/report-dir.ts';
import { issueCertificate, signingKey } from './certificate.ts';
import { certifierIdentity } from './certifier-identity.ts';
import { regradeCertificateBody, regradeEvidence } from './evidence.ts';
import { bindingProblems } from './evidence-binding.ts';
import { renderCertificateJson } from './write.ts';
import { DEFAULT_DURATION_SECONDS } from './plan.ts';
import { runCertification } from './run.ts';
import { CertifySetupError } from './setup-error.ts';
import { assessCertificate, keyFingerprint, readTrustedKey, type TrustedKey } from './trust.ts';

const CMD = invokedAs('certify', 'npm run certify --');
const USAGE = `Usage:
  ${CMD} --webhook-url URL [options]     certify a partner integration
  ${CMD} --verify FILE (--public-key FILE | --trust-dir DIR) [--allow-gaps] [--bundle BUNDLE]
                                                      trust a certificate (and check it against its evidence)
  ${CMD} --regrade BUNDLE --sign-key FILE [--certificate FILE] [--out FILE]
                                                      grade a run's evidence again and sign it (platform)

  --webhook-url URL    the partner's webhook receiver (http or https)
  --duration SECONDS   the time the run may take, from the receiver's first 2xx, to observe every requirement (default
                       ${DEFAULT_DURATION_SECONDS}, which fits a partner reconciling bookings every 90 s); it ends earlier once everything is observed
  --report-dir DIR     reports go to DIR/certify/<run-id>/ and DIR/certify/latest/ (default reports); made and
                       tested for writing before the run starts (exit 2 when it cannot hold them)
  --seed S             repeat a run's plan (an integer; printed with every run)
  --sign-key FILE      sign the certificate with this Ed25519 private key (PEM)
  --port N             port of the in-process simulator on 127.0.0.1 (default 0: a free one)
  --fixtures-out FILE  where the certification file (credentials and orders) goes
                       (default DIR/certify/credentials.json)
  --base-url URL       use a running simulator (its API root) instead of an in-process one
  --staff-token T      the running simulator's staff token (with --base-url); better in PARTNER_STAFF_TOKEN, since
                       npm echoes a command line
  --state-url URL      the partner's optional state probe (docs/certification.md)
  --ready-timeout S    seconds to wait for the receiver's first 2xx (default: half the duration, at most 60;
                       without it or --partner-command, a port refusing every connection for 10 s ends the run, exit 2)
  --receiver-only      grade your webhook receiver alone, in seconds: signed pings and events, bad signatures, raw
                       bodies, a redelivery, an older event, a secret rotation; API usage and recovery not observed
  --partner-command C  start your system with this shell command once the certification file is written
                       (its path in CERTIFY_CREDENTIALS); stopped, with all it started, when the run ends
  --partner-name NAME  the software under test, as the certificate names it
  --partner-version V  its version (the certificate binds both; say them)
  --partner-commit C   its commit id, when it has one

  --verify FILE        exit 0 only for a certified certificate signed by a key you trust; else 1 with the reason
  --public-key FILE    a trusted Ed25519 public key (PEM); repeatable through --trust-dir
  --trust-dir DIR      every *.pem in DIR is a trusted public key
  --allow-self-signed  accept a signature checked only with the key the certificate carries
                       (integrity only, not trust)
  --allow-gaps         accept certified-with-gaps (some requirements not observed)
  --bundle BUNDLE      with --verify: also check the certificate against this evidence bundle (its digest, the run
                       key's signature, the subject, the report's digest); exit 1 naming what does not match

  --regrade BUNDLE     a run's evidence.json (written beside its report.json): refused (exit 1, with the reasons) when
                       it was edited or its recorded grade is not what this certifier makes of its evidence; else a
                       certificate of this certifier's grade, binding the bundle's digest, signed with --sign-key;
                       refused too when the bundle does not match the run's certificate (run key, digests, subject)
  --certificate FILE   with --regrade: the run's certificate (default certificate.json beside the bundle)
  --out FILE           where the re-grade's certificate goes (default platform-certificate.json beside the bundle)
  --help               this text
`;

function fail(message: string): never {
  process.stderr.write(usageErrorText(message, HELP.certify));
  process.exit(2);
}

/** A setup problem that is not about the flags' spelling (a directory that cannot hold the reports): the message alone. */
function refuse(message: string): never {
  process.stderr.write(`error: ${message}\n(a setup problem: the run was not started)\n`);
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

// Ctrl-C or a stop ends through process.exit, whose hook stops the partner certify started (partner-process.ts).
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => process.exit(code));

function readJson(flag: string, path: string, refused: string): unknown {
  try {
    return JSON.parse(readText(flag, path));
  } catch (e) {
    process.stdout.write(`${refused} ${path}: not JSON (${(e as Error).message})\n`);
    process.exit(1);
  }
}

function verify(path: string, values: { 'public-key'?: string; 'trust-dir'?: string; 'allow-self-signed'?: boolean; 'allow-gaps'?: boolean; bundle?: string }): never {
  const trusted: TrustedKey[] = [];
  try {
    if (values['public-key'] !== undefined) trusted.push(readTrustedKey(`--public-key ${values['public-key']}`, readText('--public-key', values['public-key'])));
    if (values['trust-dir'] !== undefined) {
      let names: string[];
      try {
        names = readdirSync(values['trust-dir']).filter((n) => n.endsWith('.pem')).sort();
      } catch (e) {
        fail(`--trust-dir cannot read "${values['trust-dir']}": ${(e as Error).message}`);
      }
      if (names.length === 0) fail(`--trust-dir "${values['trust-dir']}" holds no *.pem public key`);
      for (const n of names) trusted.push(readTrustedKey(join(values['trust-dir'], n), readText('--trust-dir', join(values['trust-dir'], n))));
    }
  } catch (e) {
    fail((e as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readText('--verify', path));
  } catch (e) {
    process.stdout.write(`FAILED ${path}: not JSON (${(e as Error).message})\n`);
    process.exit(1);
  }
  const bundle = values.bundle === undefined ? undefined : readJson('--bundle', values.bundle, 'FAILED');
  const a = assessCertificate(parsed, { trusted, allowSelfSigned: values['allow-self-signed'], allowGaps: values['allow-gaps'] });
  // The certificate against the evidence it claims: a mismatch fails whatever the signature says.
  const mismatches = bundle === undefined ? [] : bindingProblems(parsed, bundle);
  const ok = a.ok && mismatches.length === 0;
  const message = mismatches.length === 0 ? a.message : `the certificate does not match the evidence bundle ${values.bundle}: ${mismatches[0]}`;
  const evidence = bundle === undefined ? [] : mismatches.length === 0 ? [`evidence          ${values.bundle}: matches (digest, run key signature, subject, report digest)`] : mismatches.slice(1).map((m) => `also: ${m}`);
  process.stdout.write(`${ok ? 'OK' : 'FAILED'} ${path}: ${message}\n${[...a.details, ...evidence].map((l) => `  ${l}\n`).join('')}`);
  process.exit(ok ? 0 : 1);
}

function readSigningKey(path: string): string {
  const pem = readText('--sign-key', path);
  // Checked now, not after the run: a run that cannot be signed is not started.
  try {
    signingKey(pem);
  } catch (e) {
    fail(`--sign-key "${path}" is ${(e as Error).message}`);
  }
  return pem;
}

function regrade(path: string, values: { 'sign-key'?: string; out?: string; certificate?: string }): never {
  if (values['sign-key'] === undefined) fail('--regrade needs --sign-key FILE: the platform\'s Ed25519 private key (PEM) to sign the certificate with');
  const pem = readSigningKey(values['sign-key']);
  const text = readText('--regrade', path);
  const out = values.out ?? join(dirname(path), 'platform-certificate.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    process.stdout.write(`REFUSED ${path}: not JSON (${(e as Error).message})\n`);
    process.exit(1);
  }
  // The run's certificate names the run key that signed the bundle and the subject it observed.
  const certificatePath = values.certificate ?? join(dirname(path), 'certificate.json');
  let runCertificate: unknown = null;
  try {
    runCertificate = JSON.parse(readFileSync(certificatePath, 'utf8'));
  } catch (e) {
    if (values.certificate !== undefined) fail(`--certificate cannot read "${certificatePath}": ${(e as Error).message}`);
    process.stdout.write(`REFUSED ${path}: no run certificate beside it (${certificatePath}: ${(e as Error).message}); give it with --certificate FILE: it names the run key that signed the bundle\nno certificate written\n`);
    process.exit(1);
  }
  const r = regradeEvidence(parsed, runCertificate);
  if (!r.ok) {
    process.stdout.write(`REFUSED ${path}: ${r.reasons[0]}\n${r.reasons.slice(1).map((l) => `  ${l}\n`).join('')}no certificate written\n`);
    process.exit(1);
  }
  const certificate = issueCertificate(regradeCertificateBody(r, certifierIdentity(), timestamp(Date.now())), pem);
  try {
    writeFileSync(out, renderCertificateJson(certificate), 'utf8');
  } catch (e) {
    fail(`--out cannot write "${out}": ${(e as Error).message}`);
  }
  const count = (o: string) => r.results.filter((x) => x.outcome === o).length;
  process.stdout.write([
    `regraded ${path} (evidence sha256 ${r.bundle.digest}, run ${r.bundle.runId})`,
    ...r.results.filter((x) => x.outcome !== 'pass').map((x) => `  ${x.outcome === 'fail' ? 'FAIL' : 'N/O '}  ${x.id}  ${x.summary}`),
    `verdict: ${r.verdict} (${count('pass')} pass, ${count('fail')} fail, ${count('not_observed')} not observed), as recorded`,
    `certificate ${out}, signed by ${keyFingerprint(createPublicKey(signingKey(pem)))}`,
    '',
  ].join('\n'));
  process.exit(r.verdict === 'not-certified' ? 1 : 0);
}

async function main(): Promise<void> {
  let values;
  try {
    values = parseCommandLine({
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
        'partner-command': { type: 'string' },
        verify: { type: 'string' },
        regrade: { type: 'string' },
        out: { type: 'string' },
        certificate: { type: 'string' },
        bundle: { type: 'string' },
        'public-key': { type: 'string' },
        'trust-dir': { type: 'string' },
        'allow-self-signed': { type: 'boolean', default: false },
        'allow-gaps': { type: 'boolean', default: false },
        'partner-name': { type: 'string' },
        'partner-version': { type: 'string' },
        'partner-commit': { type: 'string' },
        'receiver-only': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    fail((e as Error).message);
  }
  warnSecretFlags('certify', values);
  if (values.help) return void process.stdout.write(USAGE);

  if (values.verify !== undefined && values.regrade !== undefined) fail('--verify and --regrade are two commands: give one');
  if (values['receiver-only'] && (values.verify !== undefined || values.regrade !== undefined)) fail('--receiver-only goes with --webhook-url: it grades a receiver, not a certificate');
  if (values.bundle !== undefined && values.verify === undefined) fail('--bundle goes with --verify');
  if (values.certificate !== undefined && values.regrade === undefined) fail('--certificate goes with --regrade');
  if (values.verify !== undefined) return verify(values.verify, values);
  if (values.regrade !== undefined) {
    for (const flag of ['webhook-url', 'public-key', 'trust-dir'] as const) if (values[flag] !== undefined) fail(`--${flag} does not go with --regrade`);
    return regrade(values.regrade, values);
  }
  if (values.out !== undefined) fail('--out goes with --regrade');
  for (const flag of ['public-key', 'trust-dir', 'allow-self-signed', 'allow-gaps'] as const) {
    if (values[flag] !== undefined && values[flag] !== false) fail(`--${flag} goes with --verify`);
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
  // The staff token is a secret: read from the environment (a flag would be echoed by npm), the flag still taken.
  const staffToken = values['staff-token'] ?? (values['base-url'] !== undefined ? process.env.PARTNER_STAFF_TOKEN || undefined : undefined);
  if (values['base-url'] !== undefined && staffToken === undefined) fail('--base-url needs the running simulator\'s staff token in PARTNER_STAFF_TOKEN (or --staff-token)');
  if (values['base-url'] === undefined && values['staff-token'] !== undefined) fail('--staff-token goes with --base-url');
  if (values['base-url'] !== undefined && values.port !== undefined) fail('--port is for the in-process simulator; it excludes --base-url');
  for (const flag of ['partner-name', 'partner-version', 'partner-commit'] as const) {
    const v = values[flag];
    if (v !== undefined && !/^[^\x00-\x1f\x7f]{1,200}$/.test(v.trim())) fail(`--${flag} must be 1 to 200 printable characters, got "${v}"`);
  }
  if (values['partner-commit'] !== undefined && !/^[0-9a-f]{7,64}$/i.test(values['partner-commit'])) fail(`--partner-commit must be a commit id (7 to 64 hex digits), got "${values['partner-commit']}"`);
  if (values['partner-command'] !== undefined && values['partner-command'].trim() === '') fail('--partner-command must be a shell command, got ""');
  const signingKeyPem = values['sign-key'] === undefined ? null : readSigningKey(values['sign-key']);
  // Before the run: a directory that cannot hold the reports or the certification file is found now, not at the end.
  try {
    prepareReportDir(join(values['report-dir'] ?? 'reports', 'certify'), '--report-dir');
    if (values['fixtures-out'] !== undefined) prepareReportDir(dirname(values['fixtures-out']), '--fixtures-out');
  } catch (e) {
    if (e instanceof ReportDirError) refuse(e.message);
    throw e;
  }

  try {
    const { report } = await runCertification({
      webhookUrl,
      durationSeconds: duration,
      seed,
      reportDir: values['report-dir'] ?? 'reports',
      credentialsOut: values['fixtures-out'],
      port,
      running: values['base-url'] ? { baseUrl: values['base-url'], staffToken: staffToken! } : undefined,
      stateUrl: values['state-url'] ?? null,
      signingKeyPem,
      readyTimeoutSeconds: readyTimeout,
      receiverOnly: values['receiver-only'],
      partnerCommand: values['partner-command'] ?? null,
      partner: { name: values['partner-name'] ?? null, version: values['partner-version'] ?? null, commit: values['partner-commit'] ?? null },
      log: (line) => process.stdout.write(`${line}\n`),
    });
    process.exit(report.verdict === 'not-certified' ? 1 : 0);
  } catch (e) {
    if (e instanceof CertifySetupError) {
      process.stderr.write(`error: ${e.message}\n(a setup problem: nothing was graded, no report or certificate written)\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(2);
  }
}

await main();
