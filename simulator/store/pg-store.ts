/**
 * The PostgreSQL store: the memory store, with PostgreSQL as the durable
 * journal that several simulator processes share (issue 39, a shared
 * sandbox). The domain keeps its synchronous transactions (ARCHITECTURE.md
 * rule 3); what changes is around them:
 *
 * - Each process keeps the tables in memory, as the file store does.
 *   PostgreSQL holds `simulator_journal`: every committed transaction, one
 *   row, numbered without a gap (`n`), as the file store's journal line.
 * - A **section** is the one writer at a time across processes: it takes a
 *   session-level advisory lock (`pg_advisory_lock`), catches up on the
 *   journal rows other processes wrote since this one's position, and only
 *   then lets synchronous transactions run; their rows are inserted before
 *   the section ends, and the lock is released once no section of the
 *   process is open. So every transaction of every process runs on the
 *   latest state, and no two interleave: §4.5 rules 6 and 7 (no unit held
 *   twice), one sequence per event per integration (§6.1), idempotency keys
 *   (§4.5 rules 1–3) and the sync windows (§8) hold across processes as they
 *   hold in one.
 * - Sections of one process share the lock (a request and the deliveries it
 *   drives run together, as in one process today). A request's section waits
 *   its turn once the process has held the lock for `turnMs`, so a busy
 *   process cannot keep the others waiting for ever.
 * - A write outside a section is a bug, refused: it would run on a state
 *   that may be stale. Volatile tables (the rate-limit windows) are never
 *   journaled: written in a section, they go to `simulator_volatile` (an
 *   unlogged table, one row per record) before the section ends and are read
 *   back at the next one, so an integration's window is one across every
 *   process (§5.2); written outside a section, they are not sent, and the
 *   next section's read replaces them.
 * - When PostgreSQL refuses an insert or the connection drops, nothing after
 *   the last inserted row is acknowledged (503, as the file store's journal
 *   failure), and the process reloads everything from PostgreSQL before it
 *   writes again: PostgreSQL, never a process's memory, is the truth.
 *
 * PostgreSQL is the only coordinator: no membership, leader or consensus of
 * our own. Who is connected is an advisory lock every process holds shared;
 * the first process to find it free (every other one stopped) undoes the
 * work in flight of the ones that died (`afterRestart`, domain/recovery.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { JournalFailedError, StoreClosedError, StoreDamagedError } from './errors.ts';
import { decodeLine, encodeTransaction } from './journal.ts';
import { LazyTable } from './lazy-table.ts';
import { DELETED, MemoryStore, type Overlay } from './memory-store.ts';
import { LEASE_NAMESPACE, LOCK_KEYS, LOCK_NAMESPACE, OWNER_NAMESPACE, migrate } from './pg-schema.ts';
import { VOLATILE_TABLES, type TableName, type Transaction } from './store.ts';

export interface PgStoreOptions {
  /**
   * Runs once, in a section, when this process is the only one connected
   * (the first start, or the first after every process stopped): work the
   * dead left in flight is undone (domain/recovery.ts). While it runs, no
   * other process can finish connecting.
   */
  afterRestart?: (tx: Transaction) => void;
  /** How long a process may keep the lock before a request's section waits for the others to have their turn (ms; default 50). */
  turnMs?: number;
}

/** What open found and did. */
export interface PgOpenReport {
  /** The schema version found (0: a new database) and the one now. */
  schema: { from: number; to: number };
  /** No other simulator was connected: this one ran `afterRestart`. */
  alone: boolean;
  ms: number;
}

/** The database URL without its password, for messages and the banner. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(a database URL that does not parse)';
  }
}

type LockState = 'idle' | 'acquiring' | 'held' | 'releasing';

/** An open section, as the async context of its work sees it. */
interface SectionMark {
  open: boolean;
}

function durablePart(overlay: Overlay): Overlay {
  if (![...overlay.keys()].some((name) => VOLATILE_TABLES.has(name))) return overlay;
  return new Map([...overlay].filter(([name]) => !VOLATILE_TABLES.has(name)));
}

/** An attempt as the staff plane's delivery log keeps it (the delivery worker's `Delivery`): JSON, named by its integration. */
interface LoggedAttempt {
  integration_id: number;
}

export class PgStore extends MemoryStore {
  private client!: pg.Client;
  /** Why the connection is gone (the next section reconnects). */
  private broken: Error | null = null;
  /** Memory may hold transactions PostgreSQL does not: reload everything before the next write. */
  private diverged = false;
  /** The last transaction number in memory (caught up or written here). */
  private lastN = 0;
  /** Rows written here and not yet inserted. */
  private pending: { n: number; record: string }[] = [];
  /** Volatile records written in a section and not yet sent, by table and key (the last write wins). */
  private volatilePending = new Map<string, { table: TableName; key: string; value: unknown }>();
  /** Inserts run one after another; a failed one fails every later flush until the reload. */
  private inserting: Promise<void> = Promise.resolve();
  private failure: JournalFailedError | null = null;
  private state: LockState = 'idle';
  /** Sections of this process open now. */
  private holders = 0;
  private heldSince = 0;
  /** An acquisition or a release under way. */
  private transition: Promise<void> | null = null;
  private readonly marks = new AsyncLocalStorage<SectionMark>();
  private closed = false;
  private readonly turnMs: number;
  /** Told after catching up on transactions other processes wrote, with the tables they changed (the simulator reloads its clock). */
  onCatchUp: ((tables: ReadonlySet<TableName>) => void) | null = null;
  /** Called when the connection is lost (the CLI says so on stderr). */
  onConnectionLost: ((e: Error) => void) | null = null;
  report!: PgOpenReport;
  /** The database, for messages (no password). */
  readonly where: string;

  private constructor(private readonly url: string, options: PgStoreOptions) {
    super();
    this.where = redactUrl(url);
    this.turnMs = options.turnMs ?? 50;
  }

  /** Records read back from PostgreSQL stay JSON text until first read (as the file store's). */
  protected override newTable(): Map<string, unknown> {
    return new LazyTable();
  }

  /**
   * Connects, migrates the schema (refusing a newer one: SchemaTooNewError),
   * and joins the processes connected; the first of them runs `afterRestart`.
   * The state is read at the first section.
   */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const started = performance.now();
    const store = new PgStore(url, options);
    await store.connect();
    try {
      const schema = await migrate(store.client, store.where);
      const { rows } = await store.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_NAMESPACE, LOCK_KEYS.alive]);
      const alone = rows[0]!.ok;
      if (alone) {
        // Every other process is gone: what they left in flight is undone before anyone else joins (they wait on the shared lock below).
        const recover = options.afterRestart;
        await store.section(() => {
          if (recover) store.transaction(recover);
        });
      }
      await store.client.query('SELECT pg_advisory_lock_shared($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.alive]);
      if (alone) await store.client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.alive]);
      store.report = { schema, alone, ms: performance.now() - started };
      return store;
    } catch (e) {
      store.closed = true;
      await store.client.end().catch(() => undefined);
      throw e;
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'partner-api simulator' });
    // A connection that dies between queries reports here; without a listener the process would crash.
    client.on('error', (e) => this.lose(client, e));
    client.on('end', () => this.lose(client, new Error('the connection to PostgreSQL ended')));
    try {
      await client.connect();
    } catch (e) {
      await client.end().catch(() => undefined);
      throw new JournalFailedError(`cannot connect to PostgreSQL at ${this.where}: ${(e as Error).message}`);
    }
    // This session's owner lock: held while the session lives, named by the claims this process makes (§4.5 rule 3).
    // A new session (a reconnect) takes a new key: what the old one claimed is no longer being processed.
    try {
      for (;;) {
        const key = randomInt(1, 2 ** 31 - 1);
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [OWNER_NAMESPACE, key]);
        if (rows[0]!.ok) {
          this.ownerKey = key;
          break;
        }
      }
    } catch (e) {
      // A session that cannot take its owner lock is of no use: ended, not left open beside the store's (a connection held for nothing).
      await client.end().catch(() => undefined);
      throw new JournalFailedError(`cannot take this process's lock on PostgreSQL at ${this.where}: ${(e as Error).message}`);
    }
    this.client = client;
    this.broken = null;
  }

  private ownerKey = 0;

  /** This process's session, as its idempotency claims name it (Store.owner). */
  get owner(): string {
    return String(this.ownerKey);
  }

  /**
   * True once the session that held `owner`'s lock has ended (the process
   * died, or lost its connection): PostgreSQL lists the locks every session
   * of this database holds. Unknown (PostgreSQL unreachable) counts as alive:
   * the claim then answers 409 IN_PROGRESS as before, never a second create.
   */
  async ownerGone(owner: string): Promise<boolean> {
    const key = Number(owner);
    if (!Number.isSafeInteger(key) || key <= 0) return false;
    try {
      const { rows } = await this.client.query<{ held: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND classid = $1::bigint::oid AND objid = $2::bigint::oid) AS held`, [OWNER_NAMESPACE, key]);
      return !rows[0]!.held;
    } catch {
      return false;
    }
  }

  private lose(client: pg.Client, e: Error): void {
    if (this.closed || client !== this.client || this.broken) return;
    this.broken = e;
    this.leases.clear();
    // The session's locks went with it; whatever was not inserted is not acknowledged, and memory is reloaded.
    this.diverged = true;
    this.failure ??= new JournalFailedError(`the connection to PostgreSQL at ${this.where} was lost (${e.message}); nothing since the last acknowledged transaction is, and this process reloads its state before it writes again`);
    this.onConnectionLost?.(e);
  }

  /** A new connection after a lost one; it joins the processes connected again (never as the first: recovery ran at open). */
  private async reconnect(): Promise<void> {
    await this.client.end().catch(() => undefined);
    await this.connect();
    await this.client.query('SELECT pg_advisory_lock_shared($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.alive]);
    this.diverged = true;
  }

  // ------------------------------------------------------------------ sections

  async section<R>(work: () => R | Promise<R>, options: { waitTurn?: boolean } = {}): Promise<R> {
    if (this.marks.getStore()?.open) return work();
    await this.enter(options.waitTurn === true);
    const mark: SectionMark = { open: true };
    try {
      return await this.marks.run(mark, work);
    } finally {
      if (mark.open) {
        mark.open = false;
        await this.leave();
      }
    }
  }

  async outside<R>(wait: () => Promise<R>): Promise<R> {
    const mark = this.marks.getStore();
    if (!mark?.open) return wait();
    mark.open = false;
    await this.leave();
    try {
      return await wait();
    } finally {
      await this.enter(false);
      mark.open = true;
    }
  }

  /**
   * Opens a section by hand (tests and tools that run transactions without
   * `section`): it lasts until `leave()` or close. Waits for the lock and
   * catches up first.
   */
  async enter(waitTurn = false): Promise<void> {
    for (;;) {
      if (this.closed) throw new StoreClosedError(`the store on ${this.where} is closed`);
      if (this.state === 'held' && !(waitTurn && performance.now() - this.heldSince > this.turnMs)) {
        this.holders += 1;
        return;
      }
      if (this.state === 'idle') {
        this.state = 'acquiring';
        const acquired = this.acquire().then(
          () => {
            this.state = 'held';
            this.heldSince = performance.now();
            // The section that acquired has just had its turn waited for, in PostgreSQL's queue: it joins now, whatever
            // waitTurn says and however slow the machine. Judged by the clock again, a turn older than turnMs (0, or a
            // pause after the lock came) would send it back to wait for idle while it holds the lock: a deadlock.
            this.holders += 1;
          },
          (e: unknown) => {
            this.state = 'idle';
            throw e;
          },
        ).finally(() => {
          this.transition = null;
        });
        this.transition = acquired;
        await acquired;
        return;
      }
      // Acquiring or releasing (or a turn that is over: the holders drain, then the lock goes round).
      await (this.transition ?? new Promise<void>((resolve) => this.idleWaiters.push(resolve)));
    }
  }

  private idleWaiters: (() => void)[] = [];

  /** Ends a section opened by `enter`: what it wrote is inserted; the last section of the process releases the lock. */
  async leave(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.holders -= 1;
      if (this.holders === 0 && this.state === 'held') await this.release();
    }
  }

  private async acquire(): Promise<void> {
    try {
      if (this.broken) await this.reconnect();
      await this.client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.world]);
    } catch (e) {
      throw this.unreached(e);
    }
    try {
      if (this.diverged) this.forget();
      await this.catchUp();
      this.diverged = false;
      this.failure = null;
      this.inserting = Promise.resolve();
    } catch (e) {
      await this.client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.world]).catch(() => undefined);
      if (e instanceof StoreDamagedError || e instanceof JournalFailedError) throw e;
      throw new JournalFailedError(`cannot read the journal from PostgreSQL at ${this.where} (${(e as Error).message})`);
    }
  }

  private release(): Promise<void> {
    this.state = 'releasing';
    const done = (async () => {
      try {
        // Nothing written under the lock may stay behind it.
        await this.flush().catch(() => undefined);
        if (!this.broken) await this.client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.world]);
      } catch (e) {
        this.lose(this.client, e as Error);
      } finally {
        this.state = 'idle';
        this.transition = null;
        for (const wake of this.idleWaiters.splice(0)) wake();
      }
    })();
    this.transition = done;
    return done;
  }

  /** Drops everything in memory: the next catch-up reads the whole journal again. */
  private forget(): void {
    this.tables.clear();
    this.lastN = 0;
    this.pending = [];
    this.volatilePending.clear();
  }

  /** Applies the rows other processes wrote since `lastN`, in order, checking that none is missing. */
  private async catchUp(): Promise<number> {
    const { rows } = await this.client.query<{ n: string; record: string }>(
      'SELECT n, record FROM simulator_journal WHERE n > $1 ORDER BY n', [this.lastN]);
    const changed = new Set<TableName>();
    for (const row of rows) {
      const n = Number(row.n);
      if (n !== this.lastN + 1) {
        throw new StoreDamagedError(`simulator_journal in ${this.where} goes from transaction ${this.lastN} to ${n}: transactions in between are missing. `
          + 'Restore the database from a backup (pg_dump), or start on a new database.');
      }
      const tx = decodeLine(Buffer.from(row.record, 'utf8'));
      if (typeof tx === 'string' || tx.n !== n) {
        throw new StoreDamagedError(`transaction ${n} of simulator_journal in ${this.where} is damaged (${typeof tx === 'string' ? tx : `it says it is ${tx.n}`})`);
      }
      for (const op of tx.ops) {
        const table = this.table(op[1] as TableName);
        if (op[0] === 'put') table.set(op[2], op[3]);
        else table.delete(op[2]);
        changed.add(op[1] as TableName);
      }
      this.lastN = n;
    }
    if (changed.size > 0) this.onCatchUp?.(changed);
    // The volatile tables as the other processes left them (a handful of rows: one window per integration).
    const volatile = await this.client.query<{ tbl: string; key: string; value: string }>('SELECT tbl, key, value FROM simulator_volatile');
    for (const name of VOLATILE_TABLES) this.table(name).clear();
    for (const row of volatile.rows) this.table(row.tbl as TableName).set(row.key, row.value);
    return rows.length;
  }

  // ------------------------------------------------------------------ the Store

  protected override commit(overlay: Overlay): void {
    if (this.closed) throw new StoreClosedError(`the store on ${this.where} is closed`);
    if (this.state === 'held') {
      for (const name of VOLATILE_TABLES) {
        for (const [key, value] of overlay.get(name) ?? []) this.volatilePending.set(`${name}\t${key}`, { table: name, key, value });
      }
    }
    const durable = durablePart(overlay);
    if (durable.size > 0) {
      if (this.state !== 'held') {
        throw new Error('a write to the shared PostgreSQL store outside a section: it could run on a stale state and interleave with another process (a bug: wrap it in store.section)');
      }
      // Refused before anything is applied, as the file store refuses while its disk does (503).
      if (this.failure) throw this.failure;
      const n = this.lastN + 1;
      // Encoded (and any value JSON cannot hold refused) before anything is applied: all or nothing.
      const line = encodeTransaction(n, durable);
      this.pending.push({ n, record: line.slice(0, -1) });
      this.lastN = n;
    }
    super.commit(overlay);
  }

  /** Resolves once every transaction written here so far is in PostgreSQL (one insert for all that waited: group commit). */
  override flush(): Promise<void> {
    if (this.pending.length > 0 || this.volatilePending.size > 0 || this.attemptsPending.length > 0) {
      const batch = this.pending.splice(0);
      const volatile = [...this.volatilePending.values()];
      this.volatilePending.clear();
      const attempts = this.attemptsPending.splice(0);
      this.inserting = this.inserting.then(() => this.insert(batch, volatile, attempts));
      // Handled here as well: a failed insert nobody waits for must not end the process.
      this.inserting.catch(() => undefined);
    }
    return this.inserting;
  }

  private async insert(batch: { n: number; record: string }[], volatile: { table: TableName; key: string; value: unknown }[], attempts: LoggedAttempt[]): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      if (attempts.length > 0) await this.insertAttempts(attempts);
      const puts = volatile.filter((v) => v.value !== DELETED);
      const deletes = volatile.filter((v) => v.value === DELETED);
      if (puts.length > 0) {
        await this.client.query('INSERT INTO simulator_volatile (tbl, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) '
          + 'ON CONFLICT (tbl, key) DO UPDATE SET value = excluded.value', [puts.map((v) => v.table), puts.map((v) => v.key), puts.map((v) => JSON.stringify(v.value))]);
      }
      if (deletes.length > 0) {
        await this.client.query('DELETE FROM simulator_volatile WHERE (tbl, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
          [deletes.map((v) => v.table), deletes.map((v) => v.key)]);
      }
      // One statement: all of the batch or none.
      if (batch.length > 0) {
        await this.client.query('INSERT INTO simulator_journal (n, record) SELECT * FROM unnest($1::bigint[], $2::text[])',
          [batch.map((b) => b.n), batch.map((b) => b.record)]);
      }
    } catch (e) {
      this.diverged = true;
      this.failure ??= new JournalFailedError(`PostgreSQL at ${this.where} did not take ${batch.length > 0 ? `transactions ${batch[0]!.n} to ${batch.at(-1)!.n}` : 'the rate-limit windows or the delivery log'} (${(e as Error).message}); `
        + 'nothing after the last one it took is acknowledged, and this process reloads its state from PostgreSQL before it writes again');
      throw this.failure;
    }
  }

  // ------------------------------------------------------------------ the staff plane's delivery log

  /** Attempts made here and not yet inserted. */
  private attemptsPending: LoggedAttempt[] = [];
  private attemptsSinceTrim = 0;

  /** SharedAttempts: queued, and inserted with the next flush (the section that records the attempt's outcome ends with one). */
  addAttempt(attempt: LoggedAttempt): void {
    if (!this.closed) this.attemptsPending.push(attempt);
  }

  /** SharedAttempts: every process's last `limit` attempts of the integration, oldest first. */
  async recentAttempts<T extends LoggedAttempt>(integrationId: number, limit: number): Promise<T[]> {
    await this.flush();
    const { rows } = await this.client.query<{ attempt: string }>(
      'SELECT attempt FROM (SELECT id, attempt FROM simulator_deliveries WHERE integration_id = $1 ORDER BY id DESC LIMIT $2) recent ORDER BY id',
      [integrationId, limit]);
    return rows.map((r) => JSON.parse(r.attempt) as T);
  }

  private async insertAttempts(attempts: LoggedAttempt[]): Promise<void> {
    await this.client.query('INSERT INTO simulator_deliveries (integration_id, attempt) SELECT * FROM unnest($1::bigint[], $2::text[])',
      [attempts.map((a) => a.integration_id), attempts.map((a) => JSON.stringify(a))]);
    // The staff plane shows the last 200 per integration: older rows go now and then, not on every insert.
    this.attemptsSinceTrim += attempts.length;
    if (this.attemptsSinceTrim < 1000) return;
    this.attemptsSinceTrim = 0;
    await this.client.query(`DELETE FROM simulator_deliveries WHERE id IN (SELECT id FROM (
      SELECT id, row_number() OVER (PARTITION BY integration_id ORDER BY id DESC) AS newer FROM simulator_deliveries) ranked WHERE newer > 200)`);
  }

  // ------------------------------------------------------------------ shared values and leases

  /** A value every process shares (the vault key): the first to ask makes it with `make`; everyone gets the same. */
  async sharedValue(name: string, make: () => string): Promise<string> {
    await this.client.query('INSERT INTO simulator_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, make()]);
    return (await this.readValue(name))!;
  }

  async readValue(name: string): Promise<string | null> {
    const { rows } = await this.client.query<{ value: string }>('SELECT value FROM simulator_meta WHERE name = $1', [name]);
    return rows[0]?.value ?? null;
  }

  async writeValue(name: string, value: string): Promise<void> {
    await this.client.query('INSERT INTO simulator_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value]);
  }

  private readonly leases = new Set<number>();

  /**
   * Takes the delivery lease of `id` for this process if it is free (a
   * session-level advisory lock, so it goes with the session when the
   * process dies); true when this process holds it now.
   */
  async tryLease(id: number): Promise<boolean> {
    if (this.leases.has(id)) return true;
    if (this.broken) return false;
    let ok: boolean;
    try {
      ok = (await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LEASE_NAMESPACE, id])).rows[0]!.ok;
    } catch (e) {
      throw this.unreached(e);
    }
    if (ok) this.leases.add(id);
    return ok;
  }

  /**
   * What a query that failed is to its caller: the store closed under it (the process is stopping; the workers let
   * that pass), or PostgreSQL out of reach (retried later). Never the driver's own error, which no caller expects.
   */
  private unreached(e: unknown): Error {
    if (this.closed) return new StoreClosedError(`the store on ${this.where} is closed`);
    if (e instanceof JournalFailedError) return e;
    return new JournalFailedError(`PostgreSQL at ${this.where} cannot be reached (${(e as Error).message}); nothing can be written until it can`);
  }

  holds(id: number): boolean {
    return this.leases.has(id);
  }

  async releaseLease(id: number): Promise<void> {
    if (!this.leases.delete(id) || this.broken) return;
    await this.client.query('SELECT pg_advisory_unlock($1, $2)', [LEASE_NAMESPACE, id]).catch(() => undefined);
  }

  /** The transaction number this process has reached (tests). */
  get position(): number {
    return this.lastN;
  }

  /** Inserts what was written, then ends the connection: its locks (the section's, the leases) go with it. */
  override async close(): Promise<void> {
    if (this.closed) return;
    await this.flush().catch(() => undefined);
    this.closed = true;
    await this.client.end().catch(() => undefined);
  }
}
