/**
 * The PostgreSQL store against the Store contract, and what only a shared
 * store promises: several stores on one database see each other's writes
 * and never interleave; a reopen reads everything back; the schema is
 * migrated once and a newer one is refused; a lost connection costs the
 * unacknowledged transactions and nothing else. A throwaway cluster of the
 * machine's PostgreSQL (pg-cluster.ts) serves the file; without PostgreSQL
 * installed the file fails, saying what to install.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { attachPgCluster, startPgCluster, type PgCluster } from './pg-cluster.ts';
import { SCHEMA_VERSION, SchemaTooNewError } from './pg-schema.ts';
import { PgStore } from './pg-store.ts';
import { runStoreContract, sampleBooking } from './store.contract.ts';
import { JournalFailedError } from './errors.ts';

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
