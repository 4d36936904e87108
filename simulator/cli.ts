/**
 * `npm start -- [flags]`: serves the simulator. The flags and the fixtures
 * file are a public contract (docs/simulator.md); keep them stable.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { HELP, parseCommandLine, usageErrorText } from '../cli/command-line.ts';
import { didYouMean } from '../cli/nearest-name.ts';
import { API_ROOT } from './http/app.ts';
import { createSimulatorServer } from './http/server.ts';
import { STAFF_ROOT } from './staff/routes.ts';
import { createSimulator, type Simulator } from './simulator.ts';
import { FAULT_NAMES } from './faults.ts';
import { READINGS } from './domain/readings.ts';
import { seedDemoWorld, coveredProperties, type FixtureIntegration, type Fixtures } from './demo-world.ts';
import { statusOf } from './domain/integrations.ts';
import { makeDirectory, writeFileDurablySync } from './store/durable-fs.ts';
import { DataDirLockedError, JournalFailedError, StoreDamagedError } from './store/errors.ts';
import type { FileStore } from './store/file-store.ts';
import type { Store } from './store/store.ts';
import { loadVaultKey, VaultKeyError } from './vault-key.ts';
import { issuedHighWater, raiseIssued } from './domain/issued.ts';
import { recoverAfterRestart } from './domain/recovery.ts';
import { VirtualClock } from './domain/clock.ts';
import { inSection } from './store/store.ts';
import type { PgStore } from './store/pg-store.ts';
import { randomBytes } from 'node:crypto';
import { invokedAs } from '../cli/invoked-as.ts';

// The first line names the command as it was run (issue 41 item 9): `partner-api sim` installed, `npm start --` in a clone.
const USAGE = `Usage: ${invokedAs('sim', 'npm start --')} [options]

  --port N             port on 127.0.0.1 (default 4010; 0 picks a free port)
  --memory             keep everything in memory (no files)
  --data DIR           data directory (default ./data)
  --database URL       keep the world in PostgreSQL (postgres://…; or DATABASE_URL), one world for every simulator
                       started on it (docs/shared-sandbox.md)
  --recover            start even when the newest journal lost acknowledged transactions: keep what is intact,
                       move the damaged journal aside, never reuse an id or sequence (docs/simulator.md)
  --fixtures-out FILE  write base URL, staff token and demo credentials as JSON once serving
  --webhook-url URL    register URL as the first demo integration's webhook (all six types)
  --api-off            start with the partner API switched off (every route a bare 404)
  --fault NAME         break one rule on purpose (mutation testing; repeatable; needs --enable-faults)
  --enable-faults      confirm that --fault may break the simulator
  --reading NAME       read a tension of the document the other way (repeatable): events-foreign-property-404,
                       probe-resumes-any-pause, six-hours-from-last-success, sync-422-counts-toward-cap,
                       types-error-key-dotted, types-error-key-bare, snapshot-property-before-query,
                       unknown-path-authenticates-first (docs/simulator.md)
  --help               this text
`;

/** A start-up refusal: printed as `error: …` (with the usage when it is about the flags), exit 2. */
class StartRefused extends Error {
  constructor(message: string, readonly usage: boolean) {
    super(message);
  }
}

function fail(message: string): never {
  throw new StartRefused(message, true);
}

/** A refusal that is not about the flags (the data directory is locked or damaged): the message alone. */
function refuse(message: string): never {
  throw new StartRefused(message, false);
}

/** The store opened so far: closed (lock released) before a refusal exits. */
let opened: Store | undefined;

/** Compaction threshold in bytes; a test knob (the crash test compacts often), not a flag. */
function compactAfterBytes(): number | undefined {
  const raw = process.env.SIMULATOR_COMPACT_AFTER_BYTES;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]{1,12}$/.test(raw) || Number(raw) < 1) fail(`SIMULATOR_COMPACT_AFTER_BYTES must be a positive integer, got "${raw}"`);
  return Number(raw);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseCommandLine({
      options: {
        port: { type: 'string', default: '4010' },
        memory: { type: 'boolean', default: false },
        data: { type: 'string' },
        database: { type: 'string' },
        recover: { type: 'boolean', default: false },
        'fixtures-out': { type: 'string' },
        'webhook-url': { type: 'string' },
        'api-off': { type: 'boolean', default: false },
        fault: { type: 'string', multiple: true },
        'enable-faults': { type: 'boolean', default: false },
        reading: { type: 'string', multiple: true },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    fail((e as Error).message);
  }
  if (args.help) return void process.stdout.write(USAGE);
  // Digits only: Number() would read "" as 0 (a random port) and "0x10" as 16.
  const port = /^[0-9]{1,5}$/.test(args.port) ? Number(args.port) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be an integer from 0 to 65535, got "${args.port}"`);
  if (args.memory && args.data) fail('--memory and --data exclude each other');
  if (args.memory && args.recover) fail('--recover applies to a data directory; --memory keeps nothing to recover');
  if (args.database !== undefined && args.memory) fail('--database and --memory exclude each other');
  if (args.database !== undefined && args.data !== undefined) fail('--database and --data exclude each other');
  // DATABASE_URL stands in for --database only when no other storage was named: --memory and --data keep their meaning.
  const fromEnv = args.database === undefined && !args.memory && args.data === undefined && (process.env.DATABASE_URL ?? '') !== '';
  const database = args.database ?? (fromEnv ? process.env.DATABASE_URL! : undefined);
  const databaseFlag = fromEnv ? 'DATABASE_URL' : '--database';
  if (database !== undefined && !/^postgres(ql)?:\/\/\S*$/.test(database)) fail(`${databaseFlag} must be a postgres:// or postgresql:// URL, got "${database.replace(/\/\/[^@/]*@/, '//…@')}"`);
  if (database !== undefined && args.recover) fail(`--recover applies to a data directory; a database is restored with pg_restore (docs/shared-sandbox.md), not with ${databaseFlag}`);
  if (args['webhook-url'] && !/^https?:\/\/\S+$/.test(args['webhook-url'])) fail(`--webhook-url must be an http(s) URL, got "${args['webhook-url']}"`);
  const faults = args.fault ?? [];
  if (faults.length > 0 && !args['enable-faults']) fail('--fault breaks the simulator on purpose; add --enable-faults to confirm');
  const unknownFault = faults.find((f) => !(FAULT_NAMES as readonly string[]).includes(f));
  // With a near name, the question alone: the whole list of faults is a hundred names.
  if (unknownFault) fail(`--fault "${unknownFault}" is not a fault${didYouMean(unknownFault, FAULT_NAMES) || ` (faults: ${FAULT_NAMES.join(', ')})`}`);
  const readings = args.reading ?? [];
  const unknownReading = readings.find((r) => !(r in READINGS));
  if (unknownReading) fail(`--reading "${unknownReading}" is not a reading${didYouMean(unknownReading, Object.keys(READINGS))} (readings: ${Object.keys(READINGS).join(', ')})`);

  const dataDir = args.memory || database !== undefined ? null : resolve(args.data ?? 'data');
  let store: Store | undefined;
  let vaultKey: Buffer | undefined;
  let shared: PgStore | undefined;
  if (database !== undefined) {
    // Imported here: only a start on a database loads the PostgreSQL client.
    const { PgStore, redactUrl } = await import('./store/pg-store.ts');
    const { SchemaTooNewError } = await import('./store/pg-schema.ts');
    try {
      // The first process after every other stopped undoes what the dead left in flight, before anyone else joins (pg-store.ts).
      shared = await PgStore.open(database, {
        afterRestart: (tx) => void recoverAfterRestart(tx, new VirtualClock(() => Date.now(), tx.get('settings', 'platform')?.clock).now()),
      });
    } catch (e) {
      if (e instanceof SchemaTooNewError || e instanceof StoreDamagedError || e instanceof JournalFailedError) refuse(e.message);
      refuse(`cannot open the database ${redactUrl(database)}: ${(e as Error).message}`);
    }
    store = opened = shared;
    shared.onConnectionLost = (e) => process.stderr.write(`error: lost the connection to PostgreSQL at ${shared!.where} (${e.message}); requests answer 503 until it is back.\n`);
    try {
      // Every process seals and opens webhook secrets with the same key, kept in the database beside what it seals (as vault.key beside a data directory).
      vaultKey = Buffer.from(await shared.sharedValue('vault-key', () => randomBytes(32).toString('base64')), 'base64');
    } catch (e) {
      refuse(`cannot read the vault key from ${shared.where}: ${(e as Error).message}`);
    }
    if (vaultKey.length !== 32) refuse(`the vault key in ${shared.where} (simulator_meta) is not 32 bytes: restore the database from a backup`);
  }
  if (dataDir) {
    const compaction = compactAfterBytes();
    try {
      makeDirectory(dataDir);
    } catch (e) {
      fail(`--data cannot create "${dataDir}": ${(e as Error).message}`);
    }
    let fileStore: FileStore;
    try {
      // Imported here: a --memory start does not load the file store (nor lowdb) at all.
      const { FileStore } = await import('./store/file-store.ts');
      // Takes the directory's lock first: nothing in it is touched while another simulator holds it.
      fileStore = await FileStore.open(dataDir, {
        compactAfterBytes: compaction,
        onError: (e) => process.stderr.write(`warning: background compaction of ${dataDir} failed, retrying later: ${e.message}\n`),
        // Issue 17: said at the moment it happens, and when it is over.
        onWriteFailure: (e) => process.stderr.write(`error: ${e.message} Writes answer 503 meanwhile.\n`),
        onWriteRecovery: ({ ms, transactions }) => process.stderr.write(`note: ${dataDir} accepts writes again after ${(ms / 1000).toFixed(1)} s; ${transactions} transaction(s) held back meanwhile are written.\n`),
        // Issue 29: the acknowledgement mark keeps the ids and sequences issued, so a recovery never hands them out again.
        issued: issuedHighWater,
        raiseIssued,
        recover: args.recover,
      });
    } catch (e) {
      if (e instanceof DataDirLockedError || e instanceof StoreDamagedError) refuse(e.message);
      // A read-only or full directory (EACCES, EROFS, ENOSPC) is a start-up refusal too, never a stack trace (issue 17).
      refuse(`cannot open the data directory ${dataDir}: ${(e as Error).message}`);
    }
    const { tornBytes, tornReason, tookOverLockFrom, recovery, ackMarkDamaged, modesTightened } = fileStore.report;
    // Issue 29 item 4: said once, and only when something was readable by others.
    if (modesTightened.length > 0) {
      const what = modesTightened.map((c) => `${c.name === '.' ? 'the directory' : c.name} ${c.from.toString(8).padStart(4, '0')} → ${c.to.toString(8).padStart(4, '0')}`);
      process.stderr.write(`note: made ${dataDir} owner-only (it holds guest details, credentials and the key of the webhook secrets): ${what.join(', ')}\n`);
    }
    if (recovery) {
      process.stderr.write(`warning: --recover: started ${dataDir} with what is intact, up to transaction ${recovery.lastN}; ${recovery.missing} acknowledged `
        + `record(s) up to transaction ${recovery.acknowledgedN} are lost. The damaged journal is kept as ${recovery.movedAside}; `
        + 'ids and sequences continue after the highest ever issued.\n');
    }
    if (ackMarkDamaged) process.stderr.write(`warning: ${join(dataDir, 'acknowledged')} was damaged (a power loss during its write?); it is written afresh, and this start could not check that no acknowledged transaction is missing\n`);
    if (tookOverLockFrom) process.stderr.write(`note: took over the lock of ${dataDir} from pid ${tookOverLockFrom.pid}, which is gone\n`);
    if (tornBytes > 0) process.stderr.write(`note: recovered ${dataDir} to its last complete transaction: dropped ${tornBytes} bytes at the end of the journal (${tornReason}; a write cut short)\n`);
    store = opened = fileStore;
    try {
      vaultKey = loadVaultKey(dataDir, fileStore);
    } catch (e) {
      refuse(e instanceof VaultKeyError ? e.message : `cannot write ${join(dataDir, 'vault.key')}: ${(e as Error).message}`);
    }
  }
  // On a shared database the start is one section: the first process to find the database empty seeds it, the others
  // wait and find it seeded (issue 39). Without one, it runs as it always has.
  const webhookUrl = args['webhook-url'];
  const apiOff = args['api-off'];
  const booted = await (store ? inSection(store, () => boot(store)) : boot(undefined));
  const { sim, fixtures, firstStart, baseUrl, origin, server } = booted;
  if (args['fixtures-out']) {
    const path = resolve(args['fixtures-out']);
    try {
      writePrivate(path, JSON.stringify(fixtures, null, 2));
    } catch (e) {
      fail(`--fixtures-out cannot write "${path}": ${(e as Error).message}`);
    }
  }

  const lines = [
    `Partner API 2026-09 simulator ${firstStart ? '(demo world seeded)' : '(state restored)'}`,
    `  base URL     ${baseUrl}`,
    `  staff plane  ${origin}${STAFF_ROOT}   (Authorization: Bearer ${fixtures.staffToken})`,
    `  storage      ${shared ? `PostgreSQL ${shared.where} (shared by every simulator started on it)` : (dataDir ?? 'memory (nothing is written to disk)')}`,
    ...fixtures.integrations.map((i) => `  ${i.slug.padEnd(17)} #${i.id} ${i.status.padEnd(8)} API key ${i.apiKey}  webhook secret ${i.webhookSecret}`),
    // The switch is part of the saved state: say so whether --api-off or an earlier PUT /_staff/api turned it off.
    !sim.platform.apiEnabled() ? '  the partner API is switched OFF (PUT /_staff/api {"enabled":true} to switch it on)' : '',
  ];
  // Handlers first, banner second: whoever reacts to the banner can already stop us cleanly.
  const stop = () => {
    server.close();
    sim.webhooks.stop();
    void sim.store.close().then(() => process.exit(0), (e: Error) => {
      process.stderr.write(`error while stopping: ${e.message}\n`);
      process.exit(1);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Started with an IPC channel (npm run sandbox): the simulator stops when its parent goes, however it went.
  if (process.connected) process.once('disconnect', stop);
  process.stdout.write(lines.filter(Boolean).join('\n') + '\n');

  /** Everything up to the banner that reads or writes the world. */
  async function boot(store: Store | undefined) {
    const sim = createSimulator({
      store, vaultKey, faults, readings, journal: false, // no journal: only an in-process caller (certify) can read one
      // A shared store undoes what dead processes left in flight only when no other process is alive (PgStore.open).
      restartRecovery: !shared, leases: shared, attempts: shared,
    });
    if (shared) {
      // One virtual clock for every process: a clock another process set is taken at the next catch-up.
      shared.onCatchUp = (tables) => {
        const clock = tables.has('settings') ? sim.store.get('settings', 'platform')?.clock : undefined;
        if (clock) sim.clock.restore(clock);
      };
      // Syncs another process accepted and could not finish (it died) carry on here.
      setInterval(() => void shared!.section(() => sim.sync.kick()).catch(() => undefined), 1000).unref();
    }
    // Forget idempotency keys past their 24 hours now and then.
    // Stryker disable all: frees storage only: §4.5 rule 1's 24 hours hold at claim time whatever the sweep did (domain/idempotency.ts live()), so no call can tell whether it ran
    setInterval(() => {
      if (sim.store.section) {
        sim.store.section(() => sim.maintain()).catch((e: unknown) => {
          if (!(e instanceof JournalFailedError)) process.stderr.write(`warning: forgetting expired idempotency keys failed: ${(e as Error).message}\n`);
        });
        return;
      }
      try {
        sim.maintain();
      } catch (e) {
        if (!(e instanceof JournalFailedError)) throw e; // the disk refuses writes: next time
      }
    }, 10 * 60_000).unref();
    // Stryker restore all
    const firstStart = sim.store.size('integrations') === 0;

    // Webhooks flow in real time (the virtual clock still applies; staff clock moves step through due deliveries).
    sim.webhooks.start();
    // Request and header time-outs (docs/simulator.md): a slow client never holds a socket for Node's default 300 s;
    // what Node's parser refuses is answered with the error envelope (issue 29).
    const server = createSimulatorServer(sim.app);
    server.listen(port, '127.0.0.1');
    await new Promise<void>((ok, ko) => server.once('listening', ok).once('error', ko)).catch((e: NodeJS.ErrnoException) =>
      fail(e.code === 'EADDRINUSE' ? `port ${port} is already in use (try --port 0)` : e.message));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const baseUrl = origin + API_ROOT;

    let fixtures: Fixtures;
    if (firstStart) {
      fixtures = seedDemoWorld(sim, { baseUrl, staffToken: sim.staffToken!, webhookUrl: webhookUrl ?? null });
      // The simulator is a development tool: it keeps the demo credentials so a restart can show them again.
      // Durable before the world is: a restart never finds a world without them.
      if (dataDir) writeFileDurablySync(join(dataDir, 'demo-credentials.json'), JSON.stringify(fixtures, null, 2) + '\n');
      // In the database, under the lock, before the world: every later process shows the same credentials.
      if (shared) await shared.writeValue('demo-credentials', JSON.stringify(fixtures));
    } else {
      const saved = dataDir ? savedFixtures(join(dataDir, 'demo-credentials.json')) : shared ? sharedFixtures(await shared.readValue('demo-credentials'), shared.where) : null;
      if (!saved) fail(shared ? `the database ${shared.where} has a world but no demo credentials; start on a new database` : 'the data directory has a world but no demo-credentials.json; start with an empty --data DIR');
      // Status and coverage as the restored world has them (staff may have changed both); keys cannot be read back.
      fixtures = { ...saved, baseUrl, integrations: saved.integrations.map((i) => ({ ...i, status: currentStatus(sim, i), properties: coveredProperties(sim, i.id) })) };
      if (webhookUrl) {
        const url = webhookUrl;
        sim.store.transaction((tx) => {
          const i = tx.get('integrations', String(fixtures.integrations[0]!.id))!;
          tx.put('integrations', String(i.id), { ...i, webhook: { ...i.webhook, url } });
        });
      }
    }
    if (apiOff) sim.store.transaction((tx) => tx.put('settings', 'platform', { ...tx.get('settings', 'platform')!, api_enabled: false }));
    await sim.store.flush();
    return { sim, fixtures, firstStart, baseUrl, origin, server };
  }
}

function currentStatus(sim: Simulator, fixture: FixtureIntegration): string {
  const integration = sim.store.get('integrations', String(fixture.id));
  return integration ? statusOf(integration) : fixture.status;
}

/**
 * Written beside and renamed into place: a CI job waits for the fixtures file
 * to appear (docs/ci.md) and must never read it half written.
 */
function writePrivate(path: string, text: string): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text + '\n', { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, path);
}

/** The demo credentials the first process on a database saved there; null when there are none. */
function sharedFixtures(text: string | null, where: string): Fixtures | null {
  if (text === null) return null;
  try {
    const saved = JSON.parse(text) as Fixtures;
    if (Array.isArray(saved?.integrations) && typeof saved.staffToken === 'string') return saved;
  } catch {
    // Said below.
  }
  refuse(`the demo credentials in ${where} (simulator_meta) are damaged; restore the database from a backup, or start on a new database`);
}

/** The demo credentials a first start saved; null when there are none; a refusal when they cannot be read. */
function savedFixtures(path: string): Fixtures | null {
  if (!existsSync(path)) return null;
  let saved: Fixtures;
  try {
    saved = JSON.parse(readFileSync(path, 'utf8')) as Fixtures;
  } catch (e) {
    refuse(`${path} is damaged (${(e as Error).message}); restore it from a backup, or move the data directory away to start afresh`);
  }
  if (typeof saved !== 'object' || saved === null || !Array.isArray(saved.integrations) || typeof saved.staffToken !== 'string') {
    refuse(`${path} is damaged (not the demo credentials: no "staffToken" and "integrations"); restore it from a backup, or move the data directory away to start afresh`);
  }
  return saved;
}

// Every start-up failure is `error: …` and exit 2 (docs/simulator.md), never a stack trace and exit 1 (issue 17).
// main() resolves once the banner is out: what fails later is not a start-up failure.
await main().catch(async (e: Error) => {
  await opened?.close().catch(() => undefined);
  const usage = e instanceof StartRefused && e.usage;
  const message = e instanceof StartRefused ? e.message : `the simulator could not start: ${e.message}`;
  process.stderr.write(usage ? usageErrorText(message, HELP.sim) : `error: ${message}\n`);
  process.exit(2);
});
