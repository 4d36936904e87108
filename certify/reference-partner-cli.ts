/**
 * The reference partner (scenarios/partner/) deployed as its own process
 * for a certification run: the deployment glue a partner writes around it,
 * and nothing more. It changes none of the reference partner's behaviour.
 *
 *   tsx certify/reference-partner-cli.ts --credentials FILE [--port N] [--state-port N] [--state-dir DIR] [--reconcile-seconds N] [--replay-seconds N] [--break NAME]...
 *
 * - credentials come from the certification file, read again whenever the
 *   partner asks its vault (after a 401, and for every delivery's secrets);
 * - orders in the file are handed to `createBooking`, one at a time;
 * - the minute timer (`tick`: GET /me at most once a minute) runs every 61 s;
 * - `--reconcile-seconds N` polls bookings by updated_since every N s (§6.9);
 *   without it the partner polls them only on a cold start;
 * - `--replay-seconds N` catches up every N s (§6.8: GET /events from the
 *   stored cursor), whatever GET /me says: a partner that replays on a timer
 *   instead of waiting to notice a pause;
 *   all API work (orders, ticks) goes through one queue, so no call of one
 *   overtakes a Retry-After another was told to wait;
 * - `--state-dir DIR` keeps the partner's state (cursor, copy, reservations)
 *   on disk in `DIR/<integration slug>.json`, written before every 2xx, so a
 *   process started again with the same command (certify's crash-and-restart
 *   drill kills it with SIGKILL) continues where it was; a new run's
 *   integration has a new slug and starts cold. Without it the state is in
 *   memory and a restart is a cold start;
 * - `--state-port` serves the state probe (GET /state?property_id&type=rates&date)
 *   from the partner's copy;
 * - `--breakage` switches on the reference partner's own deliberate
 *   breakages (config.ts `Breakages`), for certification tests.
 *
 * Prints `webhook <url>` (and `state <url>`) once listening; stops on SIGTERM
 * and once the certification file says the run is `finished`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HELP, parseCommandLine, usageErrorText } from '../cli/command-line.ts';
import { BREAKAGE_NAMES, FileStateStore, MemoryStateStore, ReferencePartner, realSleep, systemClock, type Breakages, type Credentials } from '../scenarios/partner/index.ts';
import type { BookingRequest } from '../scenarios/partner/bookings.ts';
import type { CertificationFile } from './credentials-file.ts';

const USAGE = `Usage: tsx certify/reference-partner-cli.ts --credentials FILE [options]
  --credentials FILE       the certification file certify writes (required)
  --port N                 the webhook receiver's port (default 0: a free one; path /webhook)
  --state-port N           serve the state probe (GET /state?property_id&type=rates&date) on this port
  --state-dir DIR          keep the state in DIR/<slug>.json so a restart continues
  --reconcile-seconds N    poll bookings by updated_since every N s (at least 1)
  --replay-seconds N       catch up by GET /events from the stored cursor every N s (at least 1)
  --break NAME             switch on a deliberate mistake (repeatable; also --breakage): ${BREAKAGE_NAMES.join(', ')}
  --help                   this text
`;

function usageError(message: string): never {
  process.stderr.write(usageErrorText(message, HELP['reference-partner']));
  process.exit(2);
}

let parsed;
try {
  parsed = parseCommandLine({
    options: {
      credentials: { type: 'string' },
      port: { type: 'string', default: '0' },
      'state-port': { type: 'string' },
      'state-dir': { type: 'string' },
      'reconcile-seconds': { type: 'string' },
      'replay-seconds': { type: 'string' },
      breakage: { type: 'string', multiple: true, default: [] },
      // The scenarios' name for the same switch (npm run scenario -- --break NAME).
      break: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
} catch (e) {
  usageError((e as Error).message);
}
const { values } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
values.breakage.push(...values.break);
if (!values.credentials) {
  process.stderr.write('error: --credentials FILE (the certification file) is required\n');
  process.exit(2);
}
const bad = values.breakage.filter((b) => !(BREAKAGE_NAMES as readonly string[]).includes(b));
if (bad.length > 0) {
  process.stderr.write(`error: --breakage must be one of ${BREAKAGE_NAMES.join(', ')}; got ${bad.join(', ')}\n`);
  process.exit(2);
}
if (values['state-dir'] !== undefined && values['state-dir'].trim() === '') {
  process.stderr.write('error: --state-dir must name a directory, got ""\n');
  process.exit(2);
}
const reconcileSeconds = values['reconcile-seconds'] === undefined ? null : Number(values['reconcile-seconds']);
if (reconcileSeconds !== null && !(Number.isFinite(reconcileSeconds) && reconcileSeconds >= 1)) {
  process.stderr.write(`error: --reconcile-seconds must be a number of seconds, at least 1; got ${values['reconcile-seconds']}\n`);
  process.exit(2);
}
const replaySeconds = values['replay-seconds'] === undefined ? null : Number(values['replay-seconds']);
if (replaySeconds !== null && !(Number.isFinite(replaySeconds) && replaySeconds >= 1)) {
  process.stderr.write(`error: --replay-seconds must be a number of seconds, at least 1; got ${values['replay-seconds']}\n`);
  process.exit(2);
}
const path = values.credentials;
const read = (): CertificationFile => JSON.parse(readFileSync(path, 'utf8')) as CertificationFile;
let file: CertificationFile;
try {
  file = read();
} catch (e) {
  // Start it once certify has written the file (or let certify start it: --partner-command).
  usageError(`--credentials cannot read "${path}": ${(e as Error).message}`);
}
const reread = (): CertificationFile => {
  try {
    file = read();
  } catch {
    // Replaced at this instant (write, then rename): the last good copy serves.
  }
  return file;
};

/** The partner's vault is the certification file. */
const credentials: Credentials = {
  apiKey: () => reread().apiKey,
  webhookSecrets: () => reread().webhookSecrets,
};

// Opened first and caught up last, so the state probe answers during the catch-up (certify reads it between replay pages).
const partner = await ReferencePartner.open({
  baseUrl: file.baseUrl,
  slug: file.integration.slug,
  credentials,
  clock: systemClock,
  sleep: realSleep,
  store: values['state-dir'] === undefined ? new MemoryStateStore() : new FileStateStore(join(resolve(values['state-dir']), `${file.integration.slug}.json`)),
  receiver: { port: Number(values.port), path: '/webhook' },
  breakages: Object.fromEntries(values.breakage.map((b) => [b, true])) as Partial<Breakages>,
  observer: { note: (m) => process.stderr.write(`partner: ${m}\n`) },
});

let stateUrl: string | null = null;
const stateServer = values['state-port'] === undefined ? null : createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const night = url.pathname === '/state' && url.searchParams.get('type') === 'rates'
    ? partner.state.properties[url.searchParams.get('property_id') ?? '']?.nights.rates[url.searchParams.get('date') ?? '']
    : undefined;
  res.writeHead(night ? 200 : 404, { 'Content-Type': 'application/json' }).end(night ? JSON.stringify(night.value) : '{}');
});
if (stateServer) {
  await new Promise<void>((ok) => stateServer.listen(Number(values['state-port']), '127.0.0.1', ok));
  stateUrl = `http://127.0.0.1:${(stateServer.address() as AddressInfo).port}/state`;
}
await partner.begin();

let queue: Promise<unknown> = Promise.resolve();
const enqueue = (what: string, work: () => Promise<unknown>) => {
  queue = queue.then(work).catch((e) => process.stderr.write(`partner: ${what} failed: ${(e as Error).message}\n`));
};
enqueue('tick', () => partner.tick());
const placed = new Set<number>();
const timers = [
  // A minute and a second: the API client answers GET /me from its cache within a minute of its last call (§5.7), so a
  // timer of exactly 60 s, measured from before that call, could make every other tick a cached no-op that misses a pause.
  setInterval(() => enqueue('tick', () => partner.tick()), 61_000),
  ...(reconcileSeconds === null ? [] : [setInterval(() => enqueue('reconcile', () => partner.reconcileBookings()), reconcileSeconds * 1000)]),
  ...(replaySeconds === null ? [] : [setInterval(() => enqueue('replay', () => partner.catchUp()), replaySeconds * 1000)]),
  setInterval(() => {
    // Deployed for one run: the run is over, so is the partner.
    if (reread().finished) return stop();
    for (const order of reread().orders) {
      if (placed.has(order.n)) continue;
      placed.add(order.n);
      enqueue(`order ${order.n}`, () => partner.createBooking(order.request as unknown as BookingRequest));
    }
  }, 250),
];

process.stdout.write(`webhook ${partner.url}\n${stateUrl ? `state ${stateUrl}\n` : ''}`);

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  for (const t of timers) clearInterval(t);
  stateServer?.close();
  void partner.stop().then(() => process.exit(0));
}
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
