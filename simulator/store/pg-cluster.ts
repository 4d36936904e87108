/**
 * A throwaway PostgreSQL cluster for tests (and, later, `npm run sandbox`):
 * `initdb` in a new temporary directory, the server on a free loopback port
 * with its unix socket in that directory, stopped and the directory removed
 * by `stop()` (and, should the process end first, by an exit hook). It uses
 * the machine's PostgreSQL server binaries; without them it fails, naming
 * what to install. `initdb` refuses to run as root, so as root every
 * PostgreSQL command runs as the `postgres` user (`runuser`), in a directory
 * that user owns. The server is a daemon (pg_ctl), so a watchdog process
 * stops it and removes the directory should this process be killed
 * outright (SIGKILL, no exit hook runs).
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the cluster's default database, trust authentication. */
  url: string;
  port: number;
  dir: string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (immediately) and removes the directory; safe to call twice. */
  stop(): Promise<void>;
}

export interface PgClusterOptions {
  /** Keep fsync on (a sandbox someone works in); tests turn it off: a cluster thrown away needs no crash safety. Default false. */
  durable?: boolean;
}

/** Where the server binaries are: $PG_BIN, the newest /usr/lib/postgresql/N/bin, or `initdb` on the PATH. */
export function findPgBin(where: { env?: NodeJS.ProcessEnv; debian?: string } = {}): string {
  const env = where.env ?? process.env;
  const candidates: string[] = [];
  if (env.PG_BIN) candidates.push(env.PG_BIN);
  const debian = where.debian ?? '/usr/lib/postgresql';
  if (existsSync(debian)) {
    for (const v of readdirSync(debian).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a))) candidates.push(join(debian, v, 'bin'));
  }
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) candidates.push(dir);
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error('PostgreSQL server binaries (initdb, pg_ctl) were not found in $PG_BIN, /usr/lib/postgresql/*/bin or the PATH: '
      + 'install the PostgreSQL server (Debian or Ubuntu: apt-get install postgresql; .ci/run does so where initdb is missing), or set PG_BIN to its bin directory');
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The uid and gid of the postgres user (as root, every PostgreSQL command runs as it). */
function postgresUser(): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error('initdb refuses to run as root, and there is no `postgres` user to run it as: install the PostgreSQL server package (apt-get install postgresql), which creates it, or run the tests as another user');
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = findPgBin();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : null;
  const dir = mkdtempSync(join(tmpdir(), 'sim-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const command = (name: string, args: string[]) => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]] : [join(bin, name), args]) as [string, string[]];
  let started = false;
  let watchdog: ReturnType<typeof spawn> | null = null;
  const stopNow = () => {
    watchdog?.kill('SIGKILL');
    watchdog = null;
    if (started) spawnSync(...command('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore', timeout: 30_000 });
    started = false;
    rmSync(dir, { recursive: true, force: true });
  };
  // Whatever happens to the test process, the server does not outlive it.
  const onExit = () => stopNow();
  process.once('exit', onExit);
  try {
    await run(...command('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions', ...(options.durable ? [] : ['--no-sync'])]), { timeout: 120_000 });
    const tuning = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${tuning}`;
      try {
        started = true;
        await run(...command('pg_ctl', ['-D', data, '-l', log, '-o', serverOptions, '-w', '-t', '120', 'start']), { timeout: 150_000 });
        break;
      } catch (e) {
        started = false;
        // Another process took the port between our look and the server's bind: try another.
        const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
        if (attempt < 3 && /could not bind|Address already in use/.test(text)) continue;
        throw new Error(`PostgreSQL did not start (${(e as Error).message.trim()}); its log: ${text.slice(-2000)}`);
      }
    }
    // Polls this process once a second; once it is gone, stops the server and removes the directory (paths from mkdtemp: no quoting needed).
    const stopCommand = [...command('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])].flat().join(' ');
    watchdog = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopCommand} >/dev/null 2>&1; rm -rf ${dir}`], { detached: true, stdio: 'ignore' });
    watchdog.unref();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return {
      url, port, dir,
      createDatabase: (name) => createDatabase(url, name),
      async stop() {
        process.removeListener('exit', onExit);
        stopNow();
      },
    };
  } catch (e) {
    process.removeListener('exit', onExit);
    stopNow();
    throw e;
  }
}

function databaseUrl(url: string, name: string): string {
  const at = new URL(url);
  at.pathname = `/${name}`;
  return at.href;
}

async function createDatabase(url: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new RangeError(`createDatabase: "${name}" is not a plain lower-case database name`);
  await asAdmin(url, (client) => client.query(`CREATE DATABASE ${name}`));
  return databaseUrl(url, name);
}

async function asAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A cluster startPgCluster started elsewhere, used as if started here: the mutation run of the store's own tests starts
 * one per vitest instance (conformance/mutation/pg-cluster.global-setup.ts), since Stryker reruns pg-store.test.ts for
 * each mutant it covers and a cluster takes seconds to start. stop() drops the databases created through it and leaves
 * the server running. One user at a time: attaching first drops every database but the cluster's own, which a run cut
 * short (Stryker's bail after the first failure, a crash) left behind, so a long run does not fill the disk.
 */
export async function attachPgCluster(url: string): Promise<Pick<PgCluster, 'url' | 'createDatabase' | 'stop'>> {
  const created: string[] = [];
  const dropAll = (names: string[]) => asAdmin(url, async (client) => {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  const { rows } = await asAdmin(url, (client) => client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname NOT IN ('postgres', 'template0', 'template1')"));
  await dropAll(rows.map((r) => r.datname));
  return {
    url,
    async createDatabase(name) {
      const made = await createDatabase(url, name);
      created.push(name);
      return made;
    },
    stop: () => dropAll(created.splice(0)),
  };
}
