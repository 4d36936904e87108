/**
 * The PostgreSQL store against the Store contract, and what only a shared
 * store promises: several stores on one database see each other's writes
 * and never interleave; a reopen reads everything back; the schema is
 * migrated once and a newer one is refused; a lost connection costs the
 * unacknowledged transactions and nothing else. A throwaway cluster of the
 * machine's PostgreSQL (pg-cluster.ts) serves the file; without PostgreSQL
 * installed the file fails, saying what to install.
 */
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { attachPgCluster, startPgCluster, type PgCluster } from './pg-cluster.ts';
import { LOCK_KEYS, LOCK_NAMESPACE, SCHEMA_VERSION, SchemaTooNewError } from './pg-schema.ts';
import { PgStore, redactUrl, type PgStoreOptions } from './pg-store.ts';
import { runStoreContract, sampleBooking } from './store.contract.ts';
import { JournalFailedError, StoreClosedError, StoreDamagedError } from './errors.ts';
import { decodeLine, encodeTransaction } from './journal.ts';
import type { Overlay } from './memory-store.ts';

let cluster: Pick<PgCluster, 'createDatabase' | 'stop'>;
let databases = 0;
const newDatabase = () => cluster.createDatabase(`store_${++databases}`);

beforeAll(async () => {
  // The mutation run's one cluster per vitest instance (conformance/mutation/pg-cluster.global-setup.ts), else one of the file's own.
  const shared = inject('pgClusterUrl');
  cluster = shared ? await attachPgCluster(shared) : await startPgCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

// The contract's transactions run in one section opened by hand, as a tool's would.
runStoreContract('PgStore', async () => {
  const store = await PgStore.open(await newDatabase());
  await store.enter();
  return store;
});

describe('PgStore: one state shared by several processes', () => {
  const open: PgStore[] = [];
  const openStore = async (url: string, options = {}) => {
    const store = await PgStore.open(url, options);
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  it('a write of one store is seen by another at its next section; a reopen reads everything back', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    await a.section(() => a.transaction((tx) => {
      tx.put('bookings', '1', sampleBooking(1));
      tx.put('counters', 'booking', { value: 1 });
    }));
    expect(b.get('bookings', '1')).toBeUndefined();
    await b.section(() => {
      expect(b.get('bookings', '1')).toEqual(sampleBooking(1));
      b.transaction((tx) => {
        tx.put('bookings', '2', sampleBooking(2));
        tx.delete('bookings', '1');
        tx.put('counters', 'booking', { value: 2 });
      });
    });
    await a.section(() => undefined);
    expect(a.get('bookings', '1')).toBeUndefined();
    expect(a.get('bookings', '2')).toEqual(sampleBooking(2));
    const c = await openStore(url);
    await c.section(() => undefined);
    expect([...c.values('bookings')]).toEqual([sampleBooking(2)]);
    expect(c.get('counters', 'booking')).toEqual({ value: 2 });
    expect(c.position).toBe(2);
  });

  it('sections of different stores never interleave: 2 × 40 concurrent read-increment-write transactions lose no increment', async () => {
    const url = await newDatabase();
    const stores = [await openStore(url), await openStore(url)];
    // Each store's sections overlap (they share its lock, as one process's requests do); the stores' sections never do.
    const bump = (s: PgStore) => s.section(async () => {
      await new Promise((r) => setImmediate(r));
      s.transaction((tx) => tx.put('counters', 'n', { value: (tx.get('counters', 'n')?.value ?? 0) + 1 }));
      await new Promise((r) => setImmediate(r));
    }, { waitTurn: true });
    await Promise.all(stores.flatMap((s) => Array.from({ length: 40 }, () => bump(s))));
    for (const s of stores) await s.section(() => expect(s.get('counters', 'n')).toEqual({ value: 80 }));
  });

  it('§5.2: rate-limit windows written in a section are one across stores (never journaled); a delete is too', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    await a.section(() => a.transaction((tx) => {
      tx.put('rateWindows', '1', { started_at: 5, count: 3 });
      tx.put('rateWindows', '2', { started_at: 5, count: 1 });
    }));
    await b.section(() => {
      expect(b.get('rateWindows', '1')).toEqual({ started_at: 5, count: 3 });
      b.transaction((tx) => {
        tx.put('rateWindows', '1', { started_at: 5, count: (tx.get('rateWindows', '1')?.count ?? 0) + 1 });
        tx.delete('rateWindows', '2');
      });
    });
    await a.section(() => {
      expect(a.get('rateWindows', '1')).toEqual({ started_at: 5, count: 4 });
      expect(a.get('rateWindows', '2')).toBeUndefined();
    });
    expect(a.position).toBe(0);
  });

  it('a durable write outside a section is refused and writes nothing; a volatile one (rate-limit windows) needs none', async () => {
    const store = await openStore(await newDatabase());
    expect(() => store.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)))).toThrow(/outside a section/);
    expect(store.get('bookings', '1')).toBeUndefined();
    store.transaction((tx) => tx.put('rateWindows', '1', { started_at: 1, count: 1 }));
    expect(store.get('rateWindows', '1')).toEqual({ started_at: 1, count: 1 });
  });

  it('outside() lets another store write while a section waits, and the section resumes on the latest state', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    let release!: () => void;
    const waiting = new Promise<void>((r) => (release = r));
    let outsideNow!: () => void;
    const isOutside = new Promise<void>((r) => (outsideNow = r));
    const seen = a.section(async () => {
      a.transaction((tx) => tx.put('counters', 'n', { value: 1 }));
      await a.outside(() => {
        outsideNow();
        return waiting;
      });
      return a.get('counters', 'n');
    });
    await isOutside;
    await b.section(() => {
      expect(b.get('counters', 'n')).toEqual({ value: 1 });
      b.transaction((tx) => tx.put('counters', 'n', { value: 2 }));
    });
    release();
    expect(await seen).toEqual({ value: 2 });
  });

  it('the first store on a database after every other closed runs afterRestart; one joining a live one does not', async () => {
    const url = await newDatabase();
    const runs: string[] = [];
    const a = await openStore(url, { afterRestart: () => runs.push('a') });
    const b = await openStore(url, { afterRestart: () => runs.push('b') });
    expect([a.report.alone, b.report.alone]).toEqual([true, false]);
    await a.close();
    await b.close();
    const c = await openStore(url, { afterRestart: () => runs.push('c') });
    expect(c.report.alone).toBe(true);
    expect(runs).toEqual(['a', 'c']);
  });

  it('shared values: the first to ask makes one, every store gets that one', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    expect(await a.sharedValue('vault-key', () => 'first')).toBe('first');
    expect(await b.sharedValue('vault-key', () => 'second')).toBe('first');
    await b.writeValue('demo-credentials', '{}');
    expect(await a.readValue('demo-credentials')).toBe('{}');
  });

  it('a lost connection: the unacknowledged write fails with JournalFailedError, the store reloads from PostgreSQL and writes again', async () => {
    const url = await newDatabase();
    const store = await openStore(url);
    await store.section(() => store.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const lost = store.section(async () => {
        store.transaction((tx) => tx.put('counters', 'n', { value: 2 }));
        // The server ends the session before the row is inserted.
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'partner-api simulator'");
      });
      await expect(lost).rejects.toBeInstanceOf(JournalFailedError);
      // The next section reconnects and reloads: the unacknowledged write is gone, the acknowledged one is there.
      await store.section(() => expect(store.get('counters', 'n')).toEqual({ value: 1 }));
      await store.section(() => store.transaction((tx) => tx.put('counters', 'n', { value: 3 })));
      const again = await openStore(url);
      await again.section(() => expect(again.get('counters', 'n')).toEqual({ value: 3 }));
    } finally {
      await admin.end();
    }
  });
});

describe('PgStore: the schema', () => {
  it(`a new database is migrated to version ${SCHEMA_VERSION}, once, however many stores open it at once`, async () => {
    const url = await newDatabase();
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url), PgStore.open(url)]);
    try {
      expect(stores.map((s) => s.report.schema.to)).toEqual([SCHEMA_VERSION, SCHEMA_VERSION, SCHEMA_VERSION]);
      expect(stores.filter((s) => s.report.schema.from === 0)).toHaveLength(1);
    } finally {
      for (const s of stores) await s.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version FROM simulator_schema ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await client.end();
    }
  });

  it('a database of an older schema (version 1) is migrated on open, keeping what it holds', async () => {
    const url = await newDatabase();
    const first = await PgStore.open(url);
    await first.section(() => first.transaction((tx) => tx.put('bookings', '1', sampleBooking(1))));
    await first.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // What a simulator of schema version 1 left.
      await client.query('DROP TABLE simulator_volatile');
      await client.query('DROP TABLE simulator_deliveries');
      await client.query('DELETE FROM simulator_schema WHERE version > 1');
      const again = await PgStore.open(url);
      try {
        expect(again.report.schema).toEqual({ from: 1, to: SCHEMA_VERSION });
        await again.section(() => {
          expect(again.get('bookings', '1')).toEqual(sampleBooking(1));
          again.transaction((tx) => tx.put('rateWindows', '1', { started_at: 1, count: 1 }));
        });
      } finally {
        await again.close();
      }
      const { rows } = await client.query('SELECT count(*)::int AS n FROM simulator_volatile');
      expect(rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('a database migrated by a newer simulator is refused with a clear error, and left as it was', async () => {
    const url = await newDatabase();
    await (await PgStore.open(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("INSERT INTO simulator_schema (version, why) VALUES ($1, 'from the future')", [SCHEMA_VERSION + 1]);
      const refused = PgStore.open(url);
      await expect(refused).rejects.toBeInstanceOf(SchemaTooNewError);
      await expect(refused).rejects.toThrow(`has schema version ${SCHEMA_VERSION + 1}, but this simulator knows versions up to ${SCHEMA_VERSION}`);
      // What to do next is the error's point: start the newer simulator, or point --database elsewhere; nothing is written.
      await expect(refused).rejects.toThrow(/Start that newer simulator .*or point --database at another database; this one will not write a schema it does not know/);
      await expect(refused).rejects.toMatchObject({ name: 'SchemaTooNewError' });
      const { rows } = await client.query('SELECT max(version) AS v FROM simulator_schema');
      expect(rows[0].v).toBe(SCHEMA_VERSION + 1);
    } finally {
      await client.end();
    }
  });
});

describe('PgStore: what processes share besides the journal, and what a store refuses', () => {
  const open: PgStore[] = [];
  const clients: pg.Client[] = [];
  const openStore = async (url: string, options: PgStoreOptions = {}) => {
    const store = await PgStore.open(url, options);
    open.push(store);
    return store;
  };
  /** A plain session on the database, outside every store (a psql of the operator's). */
  const adminOf = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const c of clients.splice(0)) await c.end();
  });
  /** Polls PostgreSQL until `ok` holds: the wait is for an event, bounded by the test's cap, never a budget of time. */
  const until = async (ok: () => Promise<boolean>) => {
    while (!(await ok())) await new Promise((r) => setImmediate(r));
  };
  /** The journal row of transaction `n`, as a store writes it. */
  const row = (n: number, value: number) => encodeTransaction(n, new Map([['counters', new Map<string, unknown>([['n', { value }]])]]) as Overlay).slice(0, -1);
  /** Whether the world's lock is free now (taken and given back at once when it is). */
  const worldLockFree = async (admin: pg.Client) => {
    const { rows } = await admin.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_NAMESPACE, LOCK_KEYS.world]);
    if (rows[0]!.ok) await admin.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.world]);
    return rows[0]!.ok;
  };
  /** Ends the store's session from the server's side and waits until the store has noticed. */
  const cutConnection = async (store: PgStore, admin: pg.Client) => {
    const lost = new Promise<Error>((resolve) => (store.onConnectionLost = resolve));
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'partner-api simulator' AND pid <> pg_backend_pid()");
    return lost;
  };

  it('the database URL is named without its password, in messages and the banner', () => {
    expect(redactUrl('postgres://sim:secret@db.example:5432/sandbox')).toBe('postgres://sim:***@db.example:5432/sandbox');
    expect(redactUrl('postgres://sim@db.example/sandbox')).toBe('postgres://sim@db.example/sandbox');
    expect(redactUrl('not a url')).toBe('(a database URL that does not parse)');
  });

  it('a database that cannot be reached is refused at open with JournalFailedError, naming it without its password', async () => {
    const refused = PgStore.open('postgres://sim:secret@127.0.0.1:1/sandbox');
    await expect(refused).rejects.toBeInstanceOf(JournalFailedError);
    await expect(refused).rejects.toThrow(/^cannot connect to PostgreSQL at postgres:\/\/sim:\*\*\*@127\.0\.0\.1:1\/sandbox: \S/);
  });

  it('a session refused its owner lock is refused at open with JournalFailedError and ended, not left open beside nothing', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    // A role that may connect but not take an advisory lock: the owner lock's query fails while the connection stays up.
    // Roles outlive the file's databases on a cluster shared between runs (the mutation run's): dropped before and after.
    const role = `locked_out_${databases}`;
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      await admin.query('REVOKE EXECUTE ON FUNCTION pg_try_advisory_lock(integer, integer) FROM PUBLIC');
      const refused = PgStore.open(url.replace('//postgres@', `//${role}@`));
      await expect(refused).rejects.toBeInstanceOf(JournalFailedError);
      await expect(refused).rejects.toThrow(/^cannot take this process's lock on PostgreSQL at postgres:\S+: permission denied for function pg_try_advisory_lock$/);
      // The session goes once its end reaches the server: waited for, never timed.
      await until(async () => (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1', [role])).rows[0].n === 0);
    } finally {
      await admin.query('GRANT EXECUTE ON FUNCTION pg_try_advisory_lock(integer, integer) TO PUBLIC');
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, [role]);
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    }
  });

  it('what open reports: how long it took, measured around the open', async () => {
    const url = await newDatabase();
    const before = performance.now();
    const store = await openStore(url);
    const elapsed = performance.now() - before;
    expect(store.report.ms).toBeGreaterThanOrEqual(0);
    expect(store.report.ms).toBeLessThanOrEqual(elapsed);
  });

  it('a journal with a transaction missing, or one damaged, is refused as damaged at catch-up; the world\'s lock is given back, and a repaired journal is read', async () => {
    for (const [bad, message] of [
      [(admin: pg.Client) => admin.query('INSERT INTO simulator_journal (n, record) VALUES (3, $1)', [row(3, 3)]), /goes from transaction 1 to 3: transactions in between are missing\. Restore the database/],
      [(admin: pg.Client) => admin.query("INSERT INTO simulator_journal (n, record) VALUES (2, 'not a journal line')"), /transaction 2 of simulator_journal in postgres:\S+ is damaged \(no checksum prefix\)/],
      [(admin: pg.Client) => admin.query('INSERT INTO simulator_journal (n, record) VALUES (2, $1)', [row(5, 5)]), /transaction 2 of simulator_journal in postgres:\S+ is damaged \(it says it is 5\)/],
    ] as const) {
      const url = await newDatabase();
      const a = await openStore(url);
      await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
      const admin = await adminOf(url);
      await bad(admin);
      const b = await openStore(url);
      const refused = b.section(() => undefined);
      await expect(refused).rejects.toBeInstanceOf(StoreDamagedError);
      await expect(refused).rejects.toThrow(message);
      expect(await worldLockFree(admin), 'the refused store gave the world\'s lock back').toBe(true);
      await admin.query('DELETE FROM simulator_journal WHERE n > 1');
      await b.section(() => expect(b.get('counters', 'n')).toEqual({ value: 1 }));
    }
  });

  it('a catch-up names the tables other stores changed, once; a section with nothing new names none', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    const told: string[][] = [];
    b.onCatchUp = (tables) => told.push([...tables].sort());
    await a.section(() => a.transaction((tx) => {
      tx.put('bookings', '1', sampleBooking(1));
      tx.put('counters', 'booking', { value: 1 });
    }));
    await b.section(() => undefined);
    await b.section(() => b.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    await b.section(() => undefined);
    expect(told).toEqual([['bookings', 'counters']]);
  });

  it('a transaction that writes a rate-limit window and a durable table journals the durable part only', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    await a.section(() => {
      a.transaction((tx) => {
        tx.put('rateWindows', '1', { started_at: 5, count: 1 });
        tx.put('bookings', '1', sampleBooking(1));
      });
      // A transaction that writes no window sends none.
      a.transaction((tx) => tx.put('counters', 'n', { value: 1 }));
    });
    const admin = await adminOf(url);
    const { rows } = await admin.query<{ record: string }>('SELECT record FROM simulator_journal ORDER BY n');
    expect(rows).toHaveLength(2);
    const tx = decodeLine(Buffer.from(rows[0]!.record, 'utf8'));
    expect(typeof tx === 'string' ? tx : tx.ops.map((op) => op[1])).toEqual(['bookings']);
    // The shared volatile rows: the one window written, nothing for the volatile tables the transaction left alone.
    expect((await admin.query('SELECT tbl, key FROM simulator_volatile ORDER BY tbl, key')).rows).toEqual([{ tbl: 'rateWindows', key: '1' }]);
    const b = await openStore(url);
    await b.section(() => {
      expect(b.get('bookings', '1')).toEqual(sampleBooking(1));
      expect(b.get('rateWindows', '1')).toEqual({ started_at: 5, count: 1 });
    });
  });

  it('a rate-limit window written outside a section is not sent, even by a flush; the next section reads the shared ones', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    a.transaction((tx) => tx.put('rateWindows', '1', { started_at: 1, count: 9 }));
    await a.flush();
    await b.section(() => expect(b.get('rateWindows', '1')).toBeUndefined());
    await a.section(() => expect(a.get('rateWindows', '1')).toBeUndefined());
  });

  it('sections of one store join the open one (no turn to wait, unless asked); the lock stays held until the last leaves', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url, { turnMs: 0 });
    await a.enter();
    await a.enter();
    // Joins at once, though the lock was held past its turn: only waitTurn waits.
    await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    await a.leave();
    expect(await worldLockFree(admin), 'one section of the store is still open').toBe(false);
    await a.leave();
    expect(await worldLockFree(admin)).toBe(true);
  });

  it('outside() outside any section only waits; inside one it gives the lock back for the wait (a section begun in the wait takes it itself) and takes it again after', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    expect(await a.outside(async () => 7)).toBe(7);
    expect(await worldLockFree(admin)).toBe(true);
    await a.section(async () => {
      expect(await worldLockFree(admin)).toBe(false);
      await a.outside(async () => {
        expect(await worldLockFree(admin), 'given back for the wait').toBe(true);
        await a.section(async () => expect(await worldLockFree(admin), 'a section begun in the wait holds the lock').toBe(false));
      });
      expect(await worldLockFree(admin), 'taken again after the wait').toBe(false);
    });
    expect(await worldLockFree(admin), 'the section gave the lock back at its end').toBe(true);
  });

  /** Store a holds the world's lock; store b's write waits for it inside PostgreSQL. */
  async function heldWhileAWriterWaits(options: { turnMs?: number }) {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url, options);
    const b = await openStore(url);
    await a.enter();
    const bWrote = b.section(() => b.transaction((tx) => tx.put('counters', 'n', { value: 2 })));
    await until(async () => (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0]!.n === 1);
    return { a, bWrote, admin };
  }

  it('a section that waits its turn lets a store waiting for the lock go first, and sees what it wrote', async () => {
    const { a, bWrote } = await heldWhileAWriterWaits({ turnMs: 0 });
    const aTurn = a.section(() => a.get('counters', 'n'), { waitTurn: true });
    await a.leave();
    expect(await aTurn).toEqual({ value: 2 });
    await bWrote;
  });

  it('a section that waits its turn within the turn joins the open one: a store waiting for the lock does not go first', async () => {
    const { a, bWrote } = await heldWhileAWriterWaits({ turnMs: 3_600_000 });
    // The lock was taken less than an hour ago: the turn is not over, so the section joins; b writes only after a leaves.
    const aTurn = a.section(() => a.get('counters', 'n'), { waitTurn: true });
    await a.leave();
    expect(await aTurn).toBeUndefined();
    await bWrote;
  });

  it('by default a turn lasts 50 ms: once that has passed, a section that waits its turn lets a store waiting for the lock go first', async () => {
    const { a, bWrote } = await heldWhileAWriterWaits({});
    // More than 50 ms since the lock was taken (a slower machine only makes it more): the turn is over.
    await new Promise((r) => setTimeout(r, 60));
    const aTurn = a.section(() => a.get('counters', 'n'), { waitTurn: true });
    await a.leave();
    expect(await aTurn).toEqual({ value: 2 });
    await bWrote;
  });

  it('a turn lasts turnMs from when the lock was taken: at turnMs a section that waits its turn still joins; past it, a store waiting for the lock goes first', async () => {
    // The clock is the test's, so the turn's edge is an instant it sets, not one a slow machine may overrun.
    let now = 1_000_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      for (const [held, seen] of [[100, undefined], [100.5, { value: 2 }]] as const) {
        const { a, bWrote } = await heldWhileAWriterWaits({ turnMs: 100 });
        now += held;
        const aTurn = a.section(() => a.get('counters', 'n'), { waitTurn: true });
        await a.leave();
        expect(await aTurn, `held for ${held} ms of a 100 ms turn`).toEqual(seen);
        await bWrote;
      }
    } finally {
      clock.mockRestore();
    }
  });

  it('a section waiting its turn waits without holding up the process: PostgreSQL is asked and answers meanwhile', async () => {
    const { a, bWrote, admin } = await heldWhileAWriterWaits({ turnMs: 0 });
    const aTurn = a.section(() => a.get('counters', 'n'), { waitTurn: true });
    // A wait that spun instead (on a promise already settled) would starve the event loop: this answer would never come.
    expect(await worldLockFree(admin)).toBe(false);
    await a.leave();
    expect(await aTurn).toEqual({ value: 2 });
    await bWrote;
  });

  it('sections of one store begun while it takes the lock share that one acquisition', async () => {
    const a = await openStore(await newDatabase());
    let entered!: () => void;
    const secondEntered = new Promise<void>((r) => void (entered = r));
    // The first holds its section until the second is in: the second must join the acquisition under way, not wait for the lock to come round.
    const first = a.section(() => secondEntered);
    const second = a.section(() => entered());
    await Promise.all([first, second]);
  });

  it('a section begun inside an open one joins it, even one asked to wait its turn once the turn is over: a section never waits for its own process', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url, { turnMs: 0 });
    const joined = await a.section(async () => {
      // The lock has been held a while (a round trip to PostgreSQL): with turnMs 0 the turn is over.
      expect(await worldLockFree(admin)).toBe(false);
      return a.section(() => 'joined', { waitTurn: true });
    });
    expect(joined).toBe('joined');
    expect(await worldLockFree(admin)).toBe(true);
  });

  it('a section coming back from outside() joins the sections its process has open, even past its turn: it never waits for its own process', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url, { turnMs: 0 });
    let back!: () => void;
    const firstBack = new Promise<void>((r) => void (back = r));
    let other!: Promise<void>;
    const first = a.section(async () => {
      await a.outside(async () => {
        let entered!: () => void;
        const otherIn = new Promise<void>((r) => void (entered = r));
        // Another section of the process takes the lock during the wait and keeps it until the first is back.
        other = a.section(async () => {
          entered();
          await firstBack;
        });
        await otherIn;
        expect(await worldLockFree(admin), 'the other section holds the lock, past its turn').toBe(false);
      });
      back();
    });
    await first;
    await other;
    expect(await worldLockFree(admin)).toBe(true);
  });

  it('work an ended section left behind (a delivery it scheduled) runs in a section of its own: the ended one is not open to it', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    let resume!: () => void;
    const later = new Promise<void>((r) => void (resume = r));
    let afterwards!: Promise<void>;
    await a.section(() => {
      // Scheduled inside the section, run after it ended: its async context is the ended section's.
      afterwards = later.then(() => a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 }))));
    });
    resume();
    await afterwards;
    await b.section(() => expect(b.get('counters', 'n')).toEqual({ value: 1 }));
  });

  it('a section refused on its way back from outside() (the catch-up fails) gives back nothing twice: the store\'s next sections still give the lock back', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    const refused = await a.section(async () => {
      await a.outside(() => admin.query('ALTER TABLE simulator_journal RENAME TO simulator_journal_moved'));
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JournalFailedError);
    await admin.query('ALTER TABLE simulator_journal_moved RENAME TO simulator_journal');
    await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    expect(await worldLockFree(admin), 'the section after the refused one gave the lock back').toBe(true);
  });

  it('a closed store refuses sections and writes as closed, and closes once', async () => {
    const a = await openStore(await newDatabase());
    await a.close();
    await expect(a.section(() => undefined)).rejects.toThrow(/^the store on postgres:\S+ is closed$/);
    await expect(a.section(() => undefined)).rejects.toBeInstanceOf(StoreClosedError);
    expect(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 }))).toThrow(/^the store on postgres:\S+ is closed$/);
    expect(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 }))).toThrow(StoreClosedError);
    await expect(a.tryLease(9), 'a lease asked for on a closed store').rejects.toBeInstanceOf(StoreClosedError);
    await expect(a.tryLease(9)).rejects.toThrow(/^the store on postgres:\S+ is closed$/);
    await a.close();
  });

  it('a store closed while a section of it was open refuses every section after, a read-only one too', async () => {
    const a = await openStore(await newDatabase());
    await a.enter();
    await a.close();
    let ran = false;
    await expect(a.section(() => void (ran = true))).rejects.toBeInstanceOf(StoreClosedError);
    expect(ran).toBe(false);
  });

  it('a section waiting for the lock whose connection is cut is a JournalFailedError naming PostgreSQL\'s reason; the next section reconnects', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    const b = await openStore(url);
    try {
      await a.enter();
      const waiting = b.section(() => b.transaction((tx) => tx.put('counters', 'n', { value: 1 }))).then(() => null, (e: unknown) => e);
      const { rows } = await until(async () => (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0]!.n === 1)
        .then(() => admin.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"));
      const lost = new Promise<Error>((resolve) => (b.onConnectionLost = resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      const refused = await waiting;
      expect(refused).toBeInstanceOf(JournalFailedError);
      expect((refused as Error).message).toMatch(/^PostgreSQL at postgres:\S+ cannot be reached \(.+\); nothing can be written until it can$/);
      await a.leave();
      // The refusal comes with PostgreSQL's message; the socket's end, which marks the connection lost, may come after it.
      await lost;
      await b.section(() => b.transaction((tx) => tx.put('counters', 'n', { value: 2 })));
      await a.section(() => expect(a.get('counters', 'n')).toEqual({ value: 2 }));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a section still waiting for the lock when its store closes is refused as closed (the workers let that one pass at a stop), its body never run', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    try {
      let leave!: () => void;
      const held = new Promise<void>((r) => void (leave = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => void (entered = r));
      const holding = a.section(async () => {
        entered();
        await held;
      });
      await inside;
      let ran = false;
      const waiting = b.section(() => void (ran = true)).then(() => null, (e: unknown) => e);
      await b.close();
      leave();
      await holding;
      const refused = await waiting;
      expect(refused).toBeInstanceOf(StoreClosedError);
      expect((refused as Error).message).toMatch(/^the store on postgres:\S+ is closed$/);
      expect(ran).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a closing store is not a lost connection: its own end is not reported', async () => {
    const a = await openStore(await newDatabase());
    const lost: Error[] = [];
    a.onConnectionLost = (e) => lost.push(e);
    await a.close();
    expect(lost).toEqual([]);
  });

  it('a connection lost in a section: a write after it is refused before it is applied; the store reconnects as the same member of the processes connected', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    const owner = a.owner;
    await a.section(() => undefined);
    await a.section(() => undefined);
    expect(a.owner, 'a section keeps the session (claims are named by it, §4.5 rule 3)').toBe(owner);
    // Judged after the section: its end (the flush) fails, and a failure there would hide an assertion failed inside it.
    let refused: unknown = null;
    let afterRefusal: unknown;
    const section = a.section(async () => {
      a.transaction((tx) => tx.put('counters', 'n', { value: 1 }));
      await cutConnection(a, admin);
      try {
        a.transaction((tx) => tx.put('counters', 'n', { value: 2 }));
      } catch (e) {
        refused = e;
      }
      afterRefusal = a.get('counters', 'n');
    });
    await expect(section).rejects.toBeInstanceOf(JournalFailedError);
    expect(refused).toBeInstanceOf(JournalFailedError);
    expect((refused as Error).message).toMatch(/^the connection to PostgreSQL at postgres:\S+ was lost \(/);
    expect(afterRefusal, 'the refused write was not applied').toEqual({ value: 1 });
    await a.section(() => expect(a.get('counters', 'n')).toBeUndefined());
    expect(a.owner, 'a new session, a new owner: what the old one claimed is no longer being processed').not.toBe(owner);
    // Reconnected, it counts among the processes connected again: the next store to open is not alone.
    const b = await openStore(url, { afterRestart: () => undefined });
    expect(b.report.alone).toBe(false);
  });

  it('a lost connection is told once, with PostgreSQL\'s reason, however many of its session\'s events report it', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    const lost: Error[] = [];
    a.onConnectionLost = (e) => lost.push(e);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'partner-api simulator' AND pid <> pg_backend_pid()");
    await until(async () => lost.length > 0);
    // The next section reconnects; by then the old session has reported its error and its end.
    await a.section(() => undefined);
    expect(lost).toHaveLength(1);
    // The server's own error (57P01 admin_shutdown: what the CLI prints), not the socket's end that follows it.
    expect(lost[0]).toMatchObject({ code: '57P01' });
  });

  /**
   * A TCP relay between a store and PostgreSQL that can hold back what the store sends on the sessions open now: a query
   * the store has sent then reaches no server, so the server's end of the session lands while that query awaits its answer.
   */
  async function relayTo(url: string) {
    const sessions: { store: Socket; server: Socket }[] = [];
    const held = new Set<Socket>();
    let sentWhileHeld!: () => void;
    const heldBack = new Promise<void>((r) => void (sentWhileHeld = r));
    const target = new URL(url);
    const relay = createServer((store) => {
      const server = connect(Number(target.port), target.hostname);
      sessions.push({ store, server });
      store.on('data', (d) => (held.has(store) ? sentWhileHeld() : server.write(d)));
      server.on('data', (d) => store.write(d));
      server.on('close', () => store.destroy());
      store.on('close', () => server.destroy());
      for (const s of [store, server]) s.on('error', () => undefined);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const via = new URL(url);
    via.port = String((relay.address() as { port: number }).port);
    return {
      url: via.href,
      /** What the store sends from now on, on the sessions open now, is held back (a new session is not); resolves once something was. */
      hold: () => {
        for (const { store } of sessions) held.add(store);
        return heldBack;
      },
      close: () => {
        for (const { store, server } of sessions) {
          store.destroy();
          server.destroy();
        }
        return new Promise<void>((r) => relay.close(() => r()));
      },
    };
  }

  it('a connection PostgreSQL ends while the lock\'s release awaits its answer is lost, told once with PostgreSQL\'s reason', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const relay = await relayTo(url);
    try {
      const a = await openStore(relay.url);
      const lost: Error[] = [];
      a.onConnectionLost = (e) => lost.push(e);
      await a.enter();
      const sent = relay.hold();
      // The last section ends: the release's unlock is sent, and held back by the relay.
      const left = a.leave();
      await sent;
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'partner-api simulator' AND pid <> pg_backend_pid()");
      await left;
      await until(async () => lost.length > 0);
      // The next section reconnects; by then the old session has reported everything it will.
      await a.section(() => undefined);
      expect(lost).toHaveLength(1);
      // The unlock's own failure is PostgreSQL's word (57P01 admin_shutdown), not the socket's end that follows it.
      expect(lost[0]).toMatchObject({ code: '57P01' });
      expect(await worldLockFree(admin)).toBe(true);
    } finally {
      await relay.close();
    }
  });

  it('a catch-up PostgreSQL fails (the journal table gone) is refused as a journal failure, not a crash: the lock is given back, and once the table is back the store reads it', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    await admin.query('ALTER TABLE simulator_journal RENAME TO simulator_journal_moved');
    const refused = await a.section(() => undefined).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JournalFailedError);
    expect((refused as Error).message).toMatch(/^cannot read the journal from PostgreSQL at postgres:\S+ \(relation "simulator_journal" does not exist\)$/);
    expect(await worldLockFree(admin)).toBe(true);
    await admin.query('ALTER TABLE simulator_journal_moved RENAME TO simulator_journal');
    await a.section(() => expect(a.get('counters', 'n')).toEqual({ value: 1 }));
  });

  it('a lost connection that cannot be made again: the section is refused with the connection\'s own error, and goes on once PostgreSQL lets it in', async () => {
    const url = await newDatabase();
    // A database cannot refuse connections to itself: the operator's session is on another.
    const elsewhere = new URL(url);
    const database = elsewhere.pathname.slice(1);
    elsewhere.pathname = '/postgres';
    const admin = await adminOf(elsewhere.href);
    const a = await openStore(url);
    await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    try {
      await cutConnection(a, admin);
      const refused = await a.section(() => undefined).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(JournalFailedError);
      expect((refused as Error).message).toMatch(/^cannot connect to PostgreSQL at postgres:\S+: /);
    } finally {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
    }
    await a.section(() => expect(a.get('counters', 'n')).toEqual({ value: 1 }));
  });

  it('a connection lost in a section that wrote nothing: what it read stands, since nothing waited to be acknowledged', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    const read = await a.section(async () => {
      const value = a.get('counters', 'n');
      await cutConnection(a, admin);
      return value;
    });
    expect(read).toEqual({ value: 1 });
  });

  it('rate-limit windows PostgreSQL refuses fail the flush that sent them, named as such; the next section reloads', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    const refused = await a.section(async () => {
      await admin.query('ALTER TABLE simulator_volatile RENAME TO simulator_volatile_moved');
      a.transaction((tx) => tx.put('rateWindows', '1', { started_at: 5, count: 1 }));
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JournalFailedError);
    expect((refused as Error).message).toMatch(/^PostgreSQL at postgres:\S+ did not take the rate-limit windows or the delivery log \(relation "simulator_volatile" does not exist\); nothing after/);
    await admin.query('ALTER TABLE simulator_volatile_moved RENAME TO simulator_volatile');
    await a.section(() => expect(a.get('rateWindows', '1')).toBeUndefined());
  });

  it('an insert PostgreSQL refuses: that flush and every one queued behind it fail, nothing later is inserted, and the next section reloads', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    await a.section(() => a.transaction((tx) => tx.put('counters', 'n', { value: 1 })));
    const flushes = await a.section(async () => {
      // Transaction 2 is taken behind the store's back, after its catch-up (a row an operator wrote): the store's own 2 is refused.
      await admin.query('INSERT INTO simulator_journal (n, record) VALUES (2, $1)', [row(2, 20)]);
      a.transaction((tx) => tx.put('counters', 'n', { value: 2 }));
      const first = a.flush();
      a.transaction((tx) => tx.put('counters', 'n', { value: 3 }));
      const second = a.flush();
      return Promise.allSettled([first, second]);
    }).catch((e: unknown) => e);
    expect(flushes).toBeInstanceOf(JournalFailedError);
    expect((flushes as Error).message).toMatch(/^PostgreSQL at postgres:\S+ did not take transactions 2 to 2 \(duplicate key .*\); nothing after the last one it took is acknowledged/);
    const { rows } = await admin.query<{ n: string }>('SELECT n FROM simulator_journal ORDER BY n');
    expect(rows.map((r) => Number(r.n)), 'transaction 3 was not inserted after 2 was refused').toEqual([1, 2]);
    await a.section(() => expect(a.get('counters', 'n')).toEqual({ value: 20 }));
  });

  it('delivery leases: one holder at a time across stores, taken again by its holder at no cost, given back by release or by the session\'s end', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    expect(await a.tryLease(7)).toBe(true);
    expect(await a.tryLease(7)).toBe(true);
    expect(a.holds(7)).toBe(true);
    expect(await b.tryLease(7)).toBe(false);
    expect(b.holds(7)).toBe(false);
    expect(await b.tryLease(8)).toBe(true);
    await a.releaseLease(7);
    expect(a.holds(7)).toBe(false);
    expect(await b.tryLease(7), 'one release gives back a lease taken twice').toBe(true);
    await b.close();
    expect(await a.tryLease(7), 'a closed store\'s leases go with its session').toBe(true);
    expect(await a.tryLease(8)).toBe(true);
  });

  it('a store whose connection is lost holds no lease and takes none until it reconnects', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    expect(await a.tryLease(7)).toBe(true);
    await cutConnection(a, admin);
    expect(a.holds(7)).toBe(false);
    expect(await a.tryLease(7)).toBe(false);
    await a.releaseLease(7);
  });

  it('§4.5 rule 3 across processes: an owner is gone once its session ended, never while it lives; a name no session has is not gone; unknown counts as alive', async () => {
    const url = await newDatabase();
    const admin = await adminOf(url);
    const a = await openStore(url);
    const b = await openStore(url);
    expect(a.owner).toMatch(/^[1-9]\d*$/);
    expect(a.owner).not.toBe(b.owner);
    expect(await b.ownerGone(a.owner)).toBe(false);
    for (const name of ['0', '-3', 'x', '']) expect(await b.ownerGone(name), name).toBe(false);
    await a.close();
    expect(await b.ownerGone(a.owner)).toBe(true);
    await cutConnection(b, admin);
    expect(await b.ownerGone(a.owner), 'PostgreSQL unreachable: alive').toBe(false);
  });

  it('the staff plane\'s delivery log: every store\'s attempts of an integration, the last ones oldest first; beyond 1,000 inserted, each integration keeps its last 200', async () => {
    const url = await newDatabase();
    const a = await openStore(url);
    const b = await openStore(url);
    a.addAttempt({ integration_id: 1, n: 1 } as { integration_id: number });
    await a.flush();
    b.addAttempt({ integration_id: 1, n: 2 } as { integration_id: number });
    b.addAttempt({ integration_id: 2, n: 3 } as { integration_id: number });
    expect(await b.recentAttempts(1, 10)).toEqual([{ integration_id: 1, n: 1 }, { integration_id: 1, n: 2 }]);
    expect(await b.recentAttempts(1, 1)).toEqual([{ integration_id: 1, n: 2 }]);
    expect(await a.recentAttempts(2, 10)).toEqual([{ integration_id: 2, n: 3 }]);
    const many = (from: number, count: number) => {
      for (let i = from; i < from + count; i++) a.addAttempt({ integration_id: 1, n: i } as { integration_id: number });
    };
    // a has inserted 1; 998 more make 999: no trim yet.
    many(100, 998);
    await a.flush();
    expect(await a.recentAttempts(1, 2000)).toHaveLength(2 + 998);
    // The thousandth insert of a trims: 200 per integration stay, the newest.
    many(2000, 1);
    await a.flush();
    const kept = await a.recentAttempts<{ integration_id: number; n: number }>(1, 2000);
    expect(kept).toHaveLength(200);
    expect(kept.at(-1)!.n).toBe(2000);
    expect(await a.recentAttempts(2, 10)).toEqual([{ integration_id: 2, n: 3 }]);
  });

  it('shared values: a name never written reads as null', async () => {
    const a = await openStore(await newDatabase());
    expect(await a.readValue('never-written')).toBeNull();
  });
});
