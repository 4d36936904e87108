/**
 * The PostgreSQL store's schema, owned and migrated by the simulator itself
 * (pg-boss does the same): `simulator_schema` lists every migration applied,
 * one row each; a start applies the missing ones in order, in one
 * transaction, under an advisory lock, so two processes starting at once
 * migrate once. A database migrated by a newer simulator is refused: an
 * older one never writes a schema it does not know (issue 39 item 1).
 */
import type pg from 'pg';

/** The advisory-lock namespace of the simulator (two-int form: namespace, key), "PAPI" in ASCII. */
export const LOCK_NAMESPACE = 0x50415049;
/** Keys in that namespace. Delivery leases use LEASE_NAMESPACE with the integration id. */
export const LOCK_KEYS = {
  /** Held (exclusive, session level) while a process runs a section: the one writer at a time. */
  world: 1,
  /** Held shared by every process connected; exclusive only by the first process after all stopped. */
  alive: 2,
  /** Held (transaction level) while migrating. */
  migrations: 3,
} as const;
/** The namespace of per-integration delivery leases (key: the integration id). */
export const LEASE_NAMESPACE = LOCK_NAMESPACE + 1;
/**
 * The namespace of process owner locks: each process holds one key of it
 * (session level, a random number chosen at connect) for as long as its
 * session lives; the idempotency claims it makes name that key, so another
 * process can ask PostgreSQL whether a claim's owner is gone (§4.5 rule 3).
 */
export const OWNER_NAMESPACE = LOCK_NAMESPACE + 2;

export interface Migration {
  version: number;
  /** Why it exists, for whoever reads `simulator_schema`. */
  why: string;
  sql: string;
}

/** Append only: a released migration is never edited, a change is a new version. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    why: 'the journal of committed transactions (one row each, the file store\'s journal line) and the values every process shares',
    sql: `
      CREATE TABLE simulator_journal (
        n bigint PRIMARY KEY,
        record text NOT NULL,
        committed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE simulator_meta (
        name text PRIMARY KEY,
        value text NOT NULL
      );`,
  },
  {
    version: 2,
    why: 'the volatile tables (rate-limit windows) shared by every process, so an integration\'s limit is one across them (§5.2); '
      + 'unlogged: never journaled, and a crash of PostgreSQL opens fresh windows, as a restart of one simulator does',
    sql: `
      CREATE UNLOGGED TABLE simulator_volatile (
        tbl text NOT NULL,
        key text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (tbl, key)
      );`,
  },
  {
    version: 3,
    why: 'the delivery and ping attempts of every process, so the staff plane\'s delivery log (GET /_staff/integrations/{id}/deliveries) '
      + 'is one across processes; each process inserts its attempts with its next journal rows and keeps the last 200 per integration',
    sql: `
      CREATE TABLE simulator_deliveries (
        id bigserial PRIMARY KEY,
        integration_id bigint NOT NULL,
        attempt text NOT NULL
      );
      CREATE INDEX simulator_deliveries_integration ON simulator_deliveries (integration_id, id);`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** The database was migrated by a newer simulator than this one. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
}

/** Brings the schema to SCHEMA_VERSION; returns the version found and the one left. Refuses a newer schema. */
export async function migrate(client: pg.Client, where: string): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, LOCK_KEYS.migrations]);
    await client.query(`CREATE TABLE IF NOT EXISTS simulator_schema (
      version integer PRIMARY KEY,
      why text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0)::integer AS version FROM simulator_schema');
    const from = rows[0]!.version;
    if (from > SCHEMA_VERSION) {
      throw new SchemaTooNewError(`the database ${where} has schema version ${from}, but this simulator knows versions up to ${SCHEMA_VERSION}: `
        + 'a newer simulator migrated it. Start that newer simulator (every process on one database must be that version or newer), '
        + 'or point --database at another database; this one will not write a schema it does not know.');
    }
    for (const m of MIGRATIONS.filter((x) => x.version > from)) {
      await client.query(m.sql);
      await client.query('INSERT INTO simulator_schema (version, why) VALUES ($1, $2)', [m.version, m.why]);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, SCHEMA_VERSION) };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
