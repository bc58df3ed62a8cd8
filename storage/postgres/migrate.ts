/** @module Brings a schema to the version this code needs: created when missing, migrated when older. */
import { inTransaction } from './inTransaction.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import type { PostgresPool, PostgresQueryable } from './PostgresPool.js';
import { PostgresStorageError } from './PostgresStorageError.js';
import { quoteSchema } from './schemaName.js';

/**
 * The advisory lock class of animal-store ("anst"); the second key is the schema's hash, so
 * instances on different schemas never wait for each other.
 */
export const LOCK_CLASS = 0x616e7374;

/** The version recorded in the schema, 0 when there is no schema or no migrations table yet. */
const appliedVersion = async (db: PostgresQueryable, schema: string): Promise<number> => {
  const { rows } = await db.query('SELECT to_regclass($1) IS NOT NULL AS present', [`${quoteSchema(schema)}.schema_migrations`]);
  if (!rows[0]?.present) return 0;
  const { rows: versions } = await db.query(`SELECT coalesce(max(version), 0) AS version FROM ${quoteSchema(schema)}.schema_migrations`);
  return Number(versions[0]?.version ?? 0);
};

/** The oldest PostgreSQL the migrations run on: version 4's function has an SQL-standard body (`RETURN`). */
const OLDEST_SERVER = { number: 140_000, name: '14' };

/** Refuses, before changing anything, a server older than the migrations need. */
const checkServer = async (db: PostgresQueryable): Promise<void> => {
  const { rows } = await db.query(`SELECT current_setting('server_version_num')::int AS number, current_setting('server_version') AS name`);
  const { number, name } = rows[0] as { number: number; name: string };
  if (number < OLDEST_SERVER.number) {
    throw new PostgresStorageError(
      `The PostgreSQL server is version ${name}, and animal-store needs ${OLDEST_SERVER.name} or later to create or upgrade its schema; nothing was changed.`,
    );
  }
};

const tooNew = (schema: string, version: number) =>
  new PostgresStorageError(
    `The schema ${schema} is at version ${version}, newer than this animal-store knows (${SCHEMA_VERSION}); upgrade animal-store on every instance before starting this one.`,
  );

/**
 * Creates the schema and its tables, or migrates them to `SCHEMA_VERSION`, and returns the
 * version found before. Safe when several instances open at once: the changes are made in
 * one transaction under an advisory lock, and whoever gets it second finds nothing left to
 * do. When the schema is current already, it only reads (two cheap queries, no lock), so
 * instances can run as a role that may not change the schema. Never drops or rewrites data.
 * `openChanges`, when given, opens the pool the changes run on (and are waited for on) and
 * which is ended after: one without time limits, since a version may rewrite a large table
 * once, and an instance starting meanwhile must wait for it rather than fail.
 */
export const migrate = async (pool: PostgresPool, schema: string, openChanges?: () => Promise<PostgresPool>): Promise<number> => {
  const quoted = quoteSchema(schema);
  const found = await appliedVersion(pool, schema);
  if (found === SCHEMA_VERSION) return found;
  if (found > SCHEMA_VERSION) throw tooNew(schema, found);
  await checkServer(pool);

  const changes = openChanges === undefined ? pool : await openChanges();
  try {
    return await change(changes, schema, quoted, found);
  } finally {
    if (changes !== pool) await changes.end().catch(() => {});
  }
};

/** Applies the missing versions in one transaction, under the advisory lock. */
const change = (pool: PostgresPool, schema: string, quoted: string, found: number) =>
  inTransaction(pool, 'BEGIN', async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
    const { rows } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    // Only when missing: CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when it exists.
    if (rows.length === 0) await client.query(`CREATE SCHEMA ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
        version integer PRIMARY KEY,
        description text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const current = await appliedVersion(client, schema);
    if (current > SCHEMA_VERSION) throw tooNew(schema, current);
    for (const migration of MIGRATIONS.filter(({ version }) => version > current)) {
      await client.query(migration.sql(quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version, description) VALUES ($1, $2)`, [
        migration.version,
        migration.description,
      ]);
    }
    return found;
  });
