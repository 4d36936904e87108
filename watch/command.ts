/**
 * `partner-api watch` (in a clone `npm run watch --`): the options, the live
 * proxy and webhook forwarder or the recordings, the judge, the findings
 * printed as they happen, the reports on exit. Returns the exit code (1 when
 * anything was found, 0 when nothing was, 2 on a setup error); only
 * watch/cli.ts exits the process.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { commandWords, HELP, parseCommandLine, UsageError, usageErrorText } from '../cli/command-line.ts';
import { warnSecretFlags } from '../cli/secret-flags.ts';
import { probeApiRoot, SetupError as PreflightError, UnreachableError } from '../conformance/preflight.ts';
import { prepareReportDir, ReportDirError } from '../reporting/report-dir.ts';
import { writeReports } from '../reporting/write.ts';
import { findingLine, type Side } from './findings.ts';
import { judgedTooLittle, requireObservedOf } from './gate.ts';
import { readHar, API_ROOT } from './har.ts';
import { Judge } from './judge.ts';
import { JsonlRecorder, readJsonl, RecordingError } from './jsonl.ts';
import { JudgingQueue } from './judging-queue.ts';
import { createForwarder } from './proxy.ts';
import { watchReport } from './report.ts';
import { METRICS_PATH, STATUS_PATH, watchEndpoint } from './status-endpoints.ts';
import { startOf, type WatchedExchange } from './exchange.ts';

export const USAGE = `Usage: npm run watch -- --upstream URL [options]          (installed: partner-api watch …)
       npm run watch -- --har FILE… | --jsonl FILE… [options]

Judges real traffic against the API document, both sides, across exchanges:
live as a reverse proxy in front of the platform's API root (and of the
partner's webhook endpoint), or offline from recordings. Findings are printed
as they happen; on exit (Ctrl-C, SIGTERM, end of the recordings) the reports
(report.json, junit.xml, index.html) go to --report-dir. Exit 1 when anything
was found or fewer rules were observed than --require-observed asks, 0 when
nothing was, 2 on a setup error: an upstream that is not the API root, or a
run that judged nothing (or under half of its API calls).

Live
  --upstream URL            the platform's API root (…/api/integrations/v1); the partner points at watch instead
  --port N                  where the partner calls watch (default 4040; 0: a free port)
  --host HOST               the address watch listens on (default 127.0.0.1)
  --webhook-forward URL     the partner's webhook endpoint: deliveries posted to watch's webhook listener go there
  --webhook-port N          the webhook listener's port (default 4041; 0: a free port); register its URL as the webhook
  --record FILE             append every exchange to FILE as JSONL (secrets redacted), to judge again with --jsonl
Recordings
  --har FILE                a HAR 1.2 recording (repeatable); entries below --api-root are API calls, entries with
                            X-Service-Signature or X-Service-Integration are deliveries
  --jsonl FILE              a recording watch wrote with --record (repeatable)
  --api-root PATH           the API root in a HAR's URLs (default ${API_ROOT})
Judging
  --webhook-secret S        the webhook secret (repeatable: current and previous; or PARTNER_WEBHOOK_SECRET);
                            without one, the signature rules are not observed, never passed
  --side platform|partner   judge only this side (repeatable; default both): platform alone for a test tool's traffic
  --require-observed N      exit 1 (verdict insufficient) unless at least N rules were observed (N ≥ 1), or that
                            share of the judged sides' rules (0 < N < 1)
  --report-dir DIR          where reports go (default reports/watch/): <run-id>/ and latest/
  --help                    this text

Endpoints on the proxy's port: ${STATUS_PATH} (JSON counts) and ${METRICS_PATH} (Prometheus text).
`;

export interface WatchIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** Resolves when the live watch should stop (SIGINT/SIGTERM in the CLI; a test's own signal). */
  stopped?: Promise<void>;
  /** Told the addresses once the live watch listens: `api` is the proxy's API root, where the partner points. */
  onListening?(addresses: { proxy: string; api: string; webhook?: string }): void;
}

/** A setup error, exit 2; `usage` when it is about the flags (the pointer to --help follows it, as every CLI's). */
class SetupError extends Error {
  constructor(message: string, readonly usage = true) {
    super(message);
  }
}

function portOf(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new SetupError(`${flag} must be a port number (0 to 65535), got "${value}"`);
  return n;
}

function urlOf(value: string, flag: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    return value;
  } catch {
    throw new SetupError(`${flag} must be an http(s) URL, got "${value}"`);
  }
}

/** Runs the command; returns the exit code. */
export async function runWatch(argv: string[], io: WatchIo): Promise<number> {
  let values;
  try {
    ({ values } = parseCommandLine({
      args: argv, strict: true, allowPositionals: false,
      options: {
        upstream: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' },
        'webhook-forward': { type: 'string' }, 'webhook-port': { type: 'string' }, record: { type: 'string' },
        har: { type: 'string', multiple: true }, jsonl: { type: 'string', multiple: true }, 'api-root': { type: 'string' },
        'webhook-secret': { type: 'string', multiple: true }, side: { type: 'string', multiple: true },
        'report-dir': { type: 'string' }, 'require-observed': { type: 'string' }, help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(usageErrorText(e.message, HELP.watch));
    return 2;
  }
  // A secret given as a flag is echoed by npm and kept by shell history (issue 41 item 6): said once, on stderr, naming
  // PARTNER_WEBHOOK_SECRET, never the value; only once the command line is known good, so a misuse's first line is its error.
  const warnSecretFlagsOnce = () => void warnSecretFlags('watch', values, io.err);
  if (values.help) {
    warnSecretFlagsOnce();
    io.out(USAGE);
    return 0;
  }
  try {
    const offline = (values.har?.length ?? 0) + (values.jsonl?.length ?? 0) > 0;
    if (offline && values.upstream) throw new SetupError('--upstream (live) and --har/--jsonl (recordings) are two ways to run: give one');
    if (!offline && !values.upstream) throw new SetupError('give --upstream URL (live) or --har/--jsonl FILE (recordings)');
    const sides = (values.side ?? []).map((s) => {
      if (s !== 'platform' && s !== 'partner') throw new SetupError(`--side must be platform or partner, got "${s}"`);
      return s as Side;
    });
    let requireObserved: number | undefined;
    try {
      requireObserved = requireObservedOf(values['require-observed']);
    } catch (e) {
      throw new SetupError((e as Error).message);
    }
    const secrets = values['webhook-secret'] ?? (io.env.PARTNER_WEBHOOK_SECRET ? [io.env.PARTNER_WEBHOOK_SECRET] : []);
    const judge = new Judge({ secrets, sides: sides.length > 0 ? sides : undefined, onFinding: (f) => io.out(`finding ${findingLine(f)}\n`) });
    const startedAt = new Date().toISOString();
    const runId = `watch-${startedAt.replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`;
    const reportDir = values['report-dir'] ?? 'reports/watch';
    // Proven writable before anything is watched: a live watch may run for days before it writes.
    prepareReportDir(reportDir);
    let source: string;
    let replay: string;
    let where: string;
    if (offline) {
      for (const flag of ['port', 'host', 'webhook-forward', 'webhook-port', 'record'] as const) {
        if (values[flag] !== undefined) throw new SetupError(`--${flag} is for a live watch (--upstream); recordings are judged offline`);
      }
      warnSecretFlagsOnce();
      const exchanges = readRecordings(values.har ?? [], values.jsonl ?? [], values['api-root'] ?? API_ROOT, io);
      for (const e of exchanges) judge.observe(e);
      source = `recording:${[...(values.har ?? []), ...(values.jsonl ?? [])].join(',')}`;
      replay = `${commandWords('watch')} ${[...(values.har ?? []).map((f) => `--har ${f}`), ...(values.jsonl ?? []).map((f) => `--jsonl ${f}`)].join(' ')}`;
      io.out(`judged ${exchanges.length} exchanges (${judge.seen.api} API calls, ${judge.seen.delivery} deliveries)\n`);
      if (judge.seen.unmatched > 0) io.err(`watch: ${judge.seen.unmatched} API calls match no operation of the contract (${judge.unmatchedFirst.slice(0, 3).join(', ')}${judge.seen.unmatched > 3 ? ', …' : ''}): not judged\n`);
      where = values.har?.length
        ? `Are the recordings of the partner API, and is --api-root (${values['api-root'] ?? API_ROOT}) the API root of the HAR's URLs?`
        : 'Are the recordings of the partner API?';
    } else {
      if (values['api-root'] !== undefined) throw new SetupError('--api-root is for HAR recordings; live, --upstream names the API root');
      const upstream = urlOf(values.upstream!, '--upstream');
      const webhookForward = values['webhook-forward'] === undefined ? undefined : urlOf(values['webhook-forward'], '--webhook-forward');
      if (values['webhook-port'] !== undefined && webhookForward === undefined) throw new SetupError('--webhook-port needs --webhook-forward URL (where deliveries go on to)');
      // Every flag is read before the upstream is asked anything: a misuse gets its one error line, nothing above it.
      const port = portOf(values.port, 4040, '--port');
      const webhookPort = portOf(values['webhook-port'], 4041, '--webhook-port');
      warnSecretFlagsOnce();
      await probeUpstream(upstream, io);
      await live(judge, io, { upstream, webhookForward, host: values.host ?? '127.0.0.1', port, webhookPort, record: values.record, secrets, startedAt });
      source = upstream;
      replay = `${commandWords('watch')} --upstream ${upstream}${webhookForward ? ` --webhook-forward ${webhookForward}` : ''}`;
      where = `Is --upstream (${upstream}) the platform's API root (…/api/integrations/v1), and does the partner call watch at that same path?`;
    }
    if (judge.internalErrors.count > 0) io.err(`watch: ${judge.internalErrors.count} exchanges could not be judged (a bug of watch; forwarding went on); the last: ${judge.internalErrors.last}\n`);
    const tooLittle = judgedTooLittle(judge, where);
    const report = watchReport(judge, { runId, startedAt, finishedAt: new Date().toISOString(), source, replay, requireObserved, setupProblem: tooLittle ?? undefined });
    const written = writeReports(report, reportDir);
    const s = report.summary;
    io.out(`findings: ${judge.seen.findings} (platform ${sideCount(judge, 'platform')}, partner ${sideCount(judge, 'partner')}); rules observed and held ${s.passed}, observed and broken ${s.failed}, not observed ${s.not_applicable}\n`);
    io.out(`reports: ${written.files.json} ${written.files.junit} ${written.files.html}\n`);
    // A run that judged (almost) nothing proves nothing, findings or not: the setup is what to fix first.
    if (tooLittle !== null) {
      io.err(`error: ${tooLittle}\n`);
      return 2;
    }
    const short = s.gate.filter((g) => g.includes('--require-observed'));
    if (short.length > 0) io.err(`insufficient: ${short.join('; ')}\n`);
    return judge.broken || short.length > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof ReportDirError) {
      io.err(`error: ${e.message}\n`);
      return 2;
    }
    if (e instanceof SetupError || e instanceof RecordingError) {
      io.err(e instanceof SetupError && e.usage ? usageErrorText(e.message, HELP.watch) : `error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

/**
 * Before a live watch listens: is the upstream a partner API root? The origin of one (or any other URL) is refused,
 * naming the API root when it answers below it: watch would forward everything and judge nothing (issue 41 item 1).
 * An upstream that does not answer yet is only said: watch forwards 502 until it does, and a run that judged nothing
 * ends with exit 2 all the same.
 */
async function probeUpstream(upstream: string, io: WatchIo): Promise<void> {
  try {
    const { note } = await probeApiRoot(upstream, { flag: '--upstream' });
    if (note) io.err(`watch: ${note}; watching anyway\n`);
  } catch (e) {
    if (e instanceof UnreachableError) {
      io.err(`watch: ${e.message}; watching anyway (the partner gets 502 until it answers)\n`);
      return;
    }
    if (e instanceof PreflightError) throw new SetupError(e.message, false);
    throw e;
  }
}

function sideCount(judge: Judge, side: Side): number {
  let n = 0;
  for (const [key, count] of judge.perClause) if (key.startsWith(`${side} `)) n += count;
  return n;
}

/** Every exchange of the recordings, in order of time (a stable sort: a file's own order breaks ties). */
function readRecordings(har: string[], jsonl: string[], apiRoot: string, io: WatchIo): WatchedExchange[] {
  const all: WatchedExchange[] = [];
  for (const file of har) {
    let reading;
    try {
      reading = readHar(file, apiRoot);
    } catch (e) {
      if (e instanceof RecordingError) throw e;
      throw new SetupError(`cannot read ${file}: ${(e as Error).message}`, false);
    }
    if (reading.unrelated > 0) io.out(`${file}: ${reading.unrelated} entries are neither calls below ${apiRoot} nor deliveries; not judged\n`);
    all.push(...reading.exchanges);
  }
  for (const file of jsonl) {
    try {
      all.push(...readJsonl(file));
    } catch (e) {
      if (e instanceof RecordingError) throw e;
      throw new SetupError(`cannot read ${file}: ${(e as Error).message}`, false);
    }
  }
  return all.map((e, i) => ({ e, i, t: startOf(e) })).sort((a, b) => a.t - b.t || a.i - b.i).map((x) => x.e);
}

/** How many calls at a path of no operation a live watch says, one line each. */
const UNMATCHED_SAID = 3;

interface LiveOptions {
  upstream: string;
  webhookForward?: string;
  host: string;
  port: number;
  webhookPort: number;
  record?: string;
  secrets: string[];
  startedAt: string;
}

function listen(server: Server, port: number, host: string, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new SetupError(`cannot listen for ${what} on ${host}:${port}: ${e.code ?? e.message}${e.code === 'EADDRINUSE' ? ' (try another port, or 0)' : ''}`, false)));
    server.listen(port, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`));
  });
}

/** Runs the proxy (and the webhook forwarder) until `io.stopped` resolves. */
async function live(judge: Judge, io: WatchIo, o: LiveOptions): Promise<void> {
  const recorder = o.record ? new JsonlRecorder(o.record, o.secrets) : undefined;
  let upstreamDown = false;
  let internalSaid = 0;
  let unreadSaid = 0;
  const onExchange = (e: WatchedExchange) => {
    // Judging never holds up or changes the traffic: it runs from the judging queue, after the bytes went on, and
    // its failures are counted.
    if (e.status !== null) upstreamDown = false;
    const unmatched = judge.seen.unmatched;
    judge.observe(e);
    // The first calls at a path of no operation are said as they pass: the partner's API root is not watch's.
    if (judge.seen.unmatched > unmatched && judge.seen.unmatched <= UNMATCHED_SAID) {
      io.err(`watch: ${e.method} ${e.path} matches no operation of the contract below ${o.upstream}: not judged${judge.seen.unmatched === UNMATCHED_SAID ? ' (further ones are counted, not said)' : ''}\n`);
    }
    if (judge.internalErrors.count > internalSaid) {
      // Said at once the first time, then every hundredth: forwarding goes on whatever the judge does.
      if (internalSaid === 0 || judge.internalErrors.count % 100 === 0) io.err(`watch: could not judge ${e.method} ${e.path} (a bug of watch; forwarding goes on): ${judge.internalErrors.last?.split('\n')[0]}\n`);
      internalSaid = judge.internalErrors.count;
    }
    if (recorder) {
      try {
        recorder.record(e);
      } catch (err) {
        io.err(`watch: cannot record to ${o.record}: ${(err as Error).message}\n`);
      }
    }
  };
  const onUpstreamError = (message: string) => {
    if (!upstreamDown) io.err(`watch: ${message} (answering 502; the exchange is recorded without an answer)\n`);
    upstreamDown = true;
  };
  const onUnread = (message: string) => {
    // Said the first time, then every hundredth connection: such bytes are not HTTP/1.1 watch can follow.
    unreadSaid += 1;
    if (unreadSaid === 1 || unreadSaid % 100 === 0) io.err(`${message}${unreadSaid > 1 ? ` (${unreadSaid} connections so far)` : ''}\n`);
  };
  // One queue for both: a status answer judges every exchange still waiting, deliveries included.
  const judging = new JudgingQueue();
  const api = createForwarder({
    kind: 'api', upstream: o.upstream, onExchange, onUpstreamError, onUnread, judging,
    answerLocally: (target) => watchEndpoint(target, judge, o.startedAt, () => judging.flush()),
  });
  const proxy = createServer({ allowHalfOpen: true }, (socket) => api.accept(socket));
  const servers: Server[] = [proxy];
  const forwarders = [api];
  const origin = await listen(proxy, o.port, o.host, 'the API proxy');
  const addresses: { proxy: string; api: string; webhook?: string } = { proxy: origin, api: origin + new URL(o.upstream).pathname.replace(/\/$/, '') };
  if (o.webhookForward) {
    const hooks = createForwarder({ kind: 'delivery', upstream: o.webhookForward, exactTarget: true, onExchange, onUpstreamError, onUnread, judging });
    const webhook = createServer({ allowHalfOpen: true }, (socket) => hooks.accept(socket));
    servers.push(webhook);
    forwarders.push(hooks);
    try {
      addresses.webhook = await listen(webhook, o.webhookPort, o.host, 'the webhook forwarder');
    } catch (e) {
      proxy.close();
      api.close();
      throw e;
    }
  }
  io.out(`watch: proxy ${addresses.proxy} → ${o.upstream}${addresses.webhook ? `; webhook ${addresses.webhook} → ${o.webhookForward}` : ''}; ${o.secrets.length > 0 ? 'signatures verified' : 'no webhook secret: signature rules not observed'}\n`);
  io.out(`watch: point the partner at ${addresses.api} as its API root${addresses.webhook ? ` and register ${addresses.webhook} as its webhook` : ''}; status ${addresses.proxy}${STATUS_PATH}\n`);
  io.onListening?.(addresses);
  await (io.stopped ?? new Promise<void>(() => {}));
  for (const s of servers) s.close();
  // Idle connections end now; busy ones get a second: the reports must not wait on a slow client. Then every
  // exchange still waiting is judged.
  await Promise.all(forwarders.map((f) => f.stop(1_000)));
  judging.flush();
}
