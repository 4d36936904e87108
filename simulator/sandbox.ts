/**
 * `npm run sandbox -- --processes N [--database URL] …`: a shared sandbox on
 * one machine (issue 39 item 5). N simulator processes (`npm start --
 * --database URL`) on one PostgreSQL database, behind a round-robin proxy
 * on one port: any process answers any request, and they serve one world.
 * Without --database it starts a PostgreSQL cluster of its own in a
 * temporary directory with the machine's PostgreSQL binaries
 * (store/pg-cluster.ts), stopped and removed when the sandbox stops. A
 * process that dies is started again; meanwhile the proxy sends its
 * requests to the others. docs/shared-sandbox.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../cli/command-line.ts';
import { resendable } from '../protocol/resend-rule.ts';
import type { Fixtures } from './demo-world.ts';
import { startPgCluster, type PgCluster } from './store/pg-cluster.ts';
import { redactUrl } from './store/pg-store.ts';

const USAGE = `Usage: npm run sandbox -- [options]

  --processes N        simulator processes behind the proxy (default 2; 1 to 16)
  --database URL       their PostgreSQL database (postgres://…; or DATABASE_URL); without it the sandbox starts a
                       cluster of its own in a temporary directory, removed when it stops (needs the PostgreSQL server
                       binaries: apt-get install postgresql)
  --port N             the proxy's port on 127.0.0.1 (default 4010; 0 picks a free port)
  --fixtures-out FILE  write base URL (the proxy's), staff token, demo credentials and each process's pid and base URL
                       as JSON once serving (written again when a process is started again)
  --webhook-url URL    register URL as the first demo integration's webhook (as npm start does)
  --help               this text
`;

const POINTER = '(npm run sandbox -- --help lists the options)';
const START_TIMEOUT_MS = 120_000;

class Refused extends Error {}

interface Backend {
  index: number;
  child: ChildProcess;
  origin: string | null;
  fixtures: Fixtures | null;
}

/** What `--fixtures-out` writes: `npm start`'s fixtures with the proxy's base URL, plus each process (issue 39 item 5). */
export interface SandboxFixtures extends Fixtures {
  /** One entry per process, by index; `pid` and `baseUrl` are those of the process serving now (a restarted one's new ones). */
  processes: { index: number; pid: number; baseUrl: string }[];
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseCommandLine({
      options: {
        processes: { type: 'string', default: '2' },
        database: { type: 'string' },
        port: { type: 'string', default: '4010' },
        'fixtures-out': { type: 'string' },
        'webhook-url': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    throw new Refused((e as Error).message);
  }
  if (args.help) return void process.stdout.write(USAGE);
  const count = /^[0-9]{1,2}$/.test(args.processes) ? Number(args.processes) : NaN;
  if (!(count >= 1 && count <= 16)) throw new Refused(`--processes must be an integer from 1 to 16, got "${args.processes}"`);
  const port = /^[0-9]{1,5}$/.test(args.port) ? Number(args.port) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Refused(`--port must be an integer from 0 to 65535, got "${args.port}"`);
  const given = args.database ?? (process.env.DATABASE_URL || undefined);
  if (given !== undefined && !/^postgres(ql)?:\/\/\S*$/.test(given)) throw new Refused(`${args.database !== undefined ? '--database' : 'DATABASE_URL'} must be a postgres:// or postgresql:// URL`);
  if (args['webhook-url'] && !/^https?:\/\/\S+$/.test(args['webhook-url'])) throw new Refused(`--webhook-url must be an http(s) URL, got "${args['webhook-url']}"`);

  let work: string | null = null;
  let cluster: PgCluster | null = null;
  const backends: Backend[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(backends.map((b) => new Promise<void>((done) => {
      if (b.child.exitCode !== null || b.child.signalCode !== null) return done();
      b.child.once('close', () => done());
      b.child.kill('SIGTERM');
      setTimeout(() => b.child.kill('SIGKILL'), 20_000).unref();
    })));
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));
  // Whatever ends this process, its simulators go with it (the cluster's own exit hook stops the cluster).
  process.once('exit', () => {
    for (const b of backends) if (b.child.exitCode === null) b.child.kill('SIGKILL');
  });
  try {
    // A cluster of its own only when no database was named: the sandbox is then whole on this machine.
    if (given === undefined) cluster = await startPgCluster({ durable: true });
    const database = given ?? (await cluster!.createDatabase('sandbox'));
    // Where the processes write their fixtures (each file removed once read): inside the cluster's directory when the sandbox
    // has one, so that even a sandbox killed outright leaves nothing behind (the cluster's watchdog removes it).
    work = cluster ? join(cluster.dir, 'sandbox') : mkdtempSync(join(tmpdir(), 'sim-sandbox-'));
    mkdirSync(work, { recursive: true, mode: 0o700 });
    const workDir = work;
    let serving = false;
    let proxyOrigin = '';
    let base: Fixtures | null = null;
    // Each process as last seen serving: one being started again keeps its entry until its successor serves.
    const seen: SandboxFixtures['processes'] = [];
    const writeFixtures = (): SandboxFixtures => {
      base ??= backends[0]!.fixtures!;
      const path = new URL(base.baseUrl).pathname;
      for (const b of backends) if (b.origin !== null) seen[b.index] = { index: b.index, pid: b.child.pid!, baseUrl: b.origin + path };
      const fixtures: SandboxFixtures = { ...base, baseUrl: proxyOrigin + path, processes: [...seen] };
      if (!args['fixtures-out']) return fixtures;
      const file = resolve(args['fixtures-out']);
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, JSON.stringify(fixtures, null, 2) + '\n', { mode: 0o600 });
      chmodSync(partial, 0o600);
      renameSync(partial, file);
      return fixtures;
    };

    const cli = fileURLToPath(new URL(`./cli.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url));
    const launch = (index: number): Backend => {
      const fixturesFile = join(workDir, `process-${index}.json`);
      rmSync(fixturesFile, { force: true });
      const child = spawn(process.execPath, [...process.execArgv, cli, '--database', database, '--port', '0', '--fixtures-out', fixturesFile,
        ...(args['webhook-url'] ? ['--webhook-url', args['webhook-url']] : [])], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      const backend: Backend = { index, child, origin: null, fixtures: null };
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (s: string) => {
        out += s;
        if (backend.origin === null && /base URL\s+\S+/.test(out) && out.endsWith('\n')) {
          backend.fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as Fixtures;
          rmSync(fixturesFile, { force: true });
          backend.origin = new URL(backend.fixtures.baseUrl).origin;
          // A process started again has a new pid and port: the fixtures file follows.
          if (serving) writeFixtures();
        }
      });
      // Each process's warnings and errors, named.
      child.stderr!.setEncoding('utf8').on('data', (s: string) => process.stderr.write(s.replace(/^(?=.)/gm, `[process ${index}] `)));
      child.once('close', (code, signal) => {
        backend.origin = null;
        if (stopping) return;
        process.stderr.write(`[process ${index}] exited (${signal ?? `code ${code}`}); the others serve its requests; starting it again in a second\n`);
        setTimeout(() => {
          if (!stopping) backends[index] = launch(index);
        }, 1000).unref();
      });
      return backend;
    };
    for (let i = 0; i < count; i++) backends.push(launch(i));
    await waitFor(() => backends.every((b) => b.origin !== null) || backends.some((b) => b.child.exitCode !== null), START_TIMEOUT_MS);
    const failed = backends.find((b) => b.origin === null);
    if (failed) throw new Refused(`simulator process ${failed.index} did not start (its messages are above)`);

    let next = 0;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => forward(req, res, Buffer.concat(chunks), () => {
        // Round robin over the processes serving now.
        const live = backends.filter((b) => b.origin !== null);
        if (live.length === 0) return null;
        return live[next++ % live.length]!;
      }));
    });
    proxy.listen(port, '127.0.0.1');
    await new Promise<void>((ok, ko) => proxy.once('listening', ok).once('error', ko)).catch((e: NodeJS.ErrnoException) => {
      throw new Refused(e.code === 'EADDRINUSE' ? `port ${port} is already in use (try --port 0)` : e.message);
    });
    const origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    proxyOrigin = origin;
    const fixtures = writeFixtures();
    serving = true;
    process.stdout.write([
      `Partner API 2026-09 shared sandbox: ${count} simulator process(es) behind one proxy`,
      `  base URL     ${fixtures.baseUrl}`,
      `  staff plane  ${origin}/_staff   (Authorization: Bearer ${fixtures.staffToken})`,
      `  storage      PostgreSQL ${redactUrl(database)}${cluster ? ` (a cluster of its own in ${cluster.dir}, removed when the sandbox stops)` : ''}`,
      ...backends.map((b) => `  process ${b.index}    ${b.origin} (pid ${b.child.pid})`),
      ...fixtures.integrations.map((i) => `  ${i.slug.padEnd(17)} #${i.id} ${i.status.padEnd(8)} API key ${i.apiKey}  webhook secret ${i.webhookSecret}`),
    ].join('\n') + '\n');
  } catch (e) {
    stopping = true;
    for (const b of backends) b.child.kill('SIGKILL');
    await cluster?.stop().catch(() => undefined);
    if (work) rmSync(work, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Sends the request to a process, on a connection of its own (a pooled one
 * to a process that just died fails mid-request, where a new one is refused
 * before a byte is sent). A process that refuses the connection got nothing,
 * so the request goes to the next one; one that reset it may have got the
 * request, so only a request safe to send twice goes on: idempotent by its
 * method (RFC 9110 §9.2.2), or a create under a usable Idempotency-Key (§4.5
 * rule 1 replays what the dead process committed, and a claim it left in
 * flight is released once its session is gone, rule 3:
 * docs/shared-sandbox.md). One rule with the suite's clients:
 * protocol/resend-rule.ts `resendable`.
 * The answer names the process that served it (`X-Sandbox-Process`).
 */
function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, pick: () => Backend | null, tries = 0): void {
  const backend = pick();
  if (!backend || tries > 16) {
    res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
    res.end(JSON.stringify({ success: false, code: 'STORAGE_UNAVAILABLE', message: 'No simulator process of the sandbox is serving right now; retry shortly.', errors: {} }));
    return;
  }
  const origin = backend.origin!;
  // Hop-by-hop headers stay on the client's connection (RFC 9110 §7.6.1); the body was read whole.
  const { connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...headers } = req.headers;
  const upstream = request(origin + (req.url ?? '/'), { agent: false, method: req.method, headers: { ...headers, host: new URL(origin).host, 'content-length': String(body.length) } }, (answer) => {
    const { connection: _ac, 'keep-alive': _ak, ...answered } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...answered, 'x-sandbox-process': String(backend.index) });
    answer.pipe(res);
  });
  upstream.on('error', (e: NodeJS.ErrnoException) => {
    // The one rule of what may be sent twice (protocol/resend-rule.ts): by its method, or a keyed create.
    const resend = e.code === 'ECONNREFUSED' || (e.code === 'ECONNRESET' && resendable({ method: req.method ?? '', path: req.url, headers: req.headers }));
    if (resend && !res.headersSent) return forward(req, res, body, pick, tries + 1);
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'application/json' });
    res.end(res.headersSent ? undefined : JSON.stringify({ success: false, code: 'BAD_GATEWAY', message: `simulator process ${backend.index} failed mid-answer: ${e.message}`, errors: {} }));
  });
  upstream.end(body);
}

function waitFor(done: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (done()) return resolve();
      if (Date.now() > until) return reject(new Refused(`the simulator processes did not start within ${ms / 1000} s`));
      setTimeout(check, 50);
    };
    check();
  });
}

await main().catch((e: Error) => {
  process.stderr.write(e instanceof Refused ? `error: ${e.message}\n${POINTER}\n` : `error: the sandbox could not start: ${e.message}\n`);
  process.exit(2);
});
