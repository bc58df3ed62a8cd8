/** @module The PostgreSQL storage beyond the contract: schema, migrations, pools and clients, durability settings. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { IdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { inChunks } from '../../../storage/PetContent.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../storage/postgres/migrations.js';
import { openPostgresContent } from '../../../storage/postgres/openPostgresContent.js';
import { openPostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { PostgresStorageError } from '../../../storage/postgres/PostgresStorageError.js';
import { petStatements } from '../../../storage/postgres/petStatements.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const key = (name: string, createdAt: number): IdempotencyKey => ({
  scope: 'a1b2c3d4e5f6',
  key: name,
  fingerprint: 'digest',
  createdAt,
  expiresAt: createdAt + 86_400_000,
});

describe('PostgreSQL storage: the server it relies on', () => {
  it("Should run on PostgreSQL's default durability: fsync and synchronous_commit on", async () => {
    const { rows } = await database.admin().query("SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc");
    expect(rows[0]).toEqual({ fsync: 'on', sc: 'on' });
  });
});

describe('PostgreSQL storage: schema and migrations', () => {
  it('Should create the documented tables, indexes and function in its schema, at the current version', async () => {
    const schema = database.freshSchema();
    const storage = await openPostgresStorage({ connectionString: database.url(), schema });
    const admin = database.admin();
    const { rows: tables } = await admin.query('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1', [schema]);
    expect(tables.map((row) => row.tablename)).toEqual([
      'idempotency_keys',
      'pet_ids',
      'pets',
      'schema_migrations',
      'sync_kiosk',
      'sync_kiosk_blocks',
      'sync_leases',
    ]);
    const { rows: indexes } = await admin.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY 1', [schema]);
    expect(indexes.map((row) => row.indexname)).toEqual([
      'idempotency_keys_expires_at',
      'idempotency_keys_pkey',
      'pet_ids_pkey',
      'pets_arrival',
      'pets_pkey',
      'pets_status_arrival',
      'pets_status_id',
      'schema_migrations_pkey',
      'sync_kiosk_blocks_pkey',
      'sync_kiosk_pkey',
      'sync_leases_pkey',
    ]);
    const { rows: functions } = await admin.query(
      'SELECT proname FROM pg_proc WHERE pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) ORDER BY 1',
      [schema],
    );
    expect(functions.map((row) => row.proname)).toEqual(['create_pets', 'json_text_of']);
    const { rows: versions } = await admin.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    // 1: the first release; 2: create_pets leaves expired keys to the sweep; 3: sync; 4: pets.json_text.
    expect(versions).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
    await storage.close();
  });

  it('Should keep animals and continue ids after a reopen, migrating nothing twice', async () => {
    const schema = database.freshSchema();
    const first = await openPostgresStorage({ connectionString: database.url(), schema });
    await Promise.all(['A', 'B', 'C'].map((name) => first.create({ name, categoryId: 1, status: 'sold' })));
    await first.close();
    const again = await openPostgresStorage({ connectionString: database.url(), schema });
    expect((await again.list({ after: 0, limit: 10 })).map((pet) => pet.name)).toEqual(['A', 'B', 'C']);
    expect((await again.create(rex)).id).toBe(4);
    expect((await database.admin().query(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations`)).rows[0].n).toBe(SCHEMA_VERSION);
    await again.close();
  });

  it('Should open safely when several instances start on a new schema at the same moment', async () => {
    const schema = database.freshSchema();
    const storages = await Promise.all(Array.from({ length: 8 }, () => openPostgresStorage({ connectionString: database.url(), schema })));
    const created = await Promise.all(storages.map((storage) => storage.create(rex)));
    expect(created.map((pet) => pet.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await database.admin().query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).rows).toEqual(
      MIGRATIONS.map(({ version }) => ({ version })),
    );
    await Promise.all(storages.map((storage) => storage.close()));
  });

  it('Should refuse a schema newer than it knows, changing nothing', async () => {
    const schema = database.freshSchema();
    await (await openPostgresStorage({ connectionString: database.url(), schema })).close();
    await database
      .admin()
      .query(`INSERT INTO ${schema}.schema_migrations (version, description) VALUES ($1, 'from the future')`, [SCHEMA_VERSION + 1]);
    const opening = openPostgresStorage({ connectionString: database.url(), schema });
    await expect(opening).rejects.toThrow(PostgresStorageError);
    await expect(opening).rejects.toThrow(`The schema ${schema} is at version ${SCHEMA_VERSION + 1}, newer than this animal-store knows`);
    expect((await database.admin().query(`SELECT count(*)::int AS n FROM ${schema}.schema_migrations`)).rows[0].n).toBe(SCHEMA_VERSION + 1);
  });

  it('Should upgrade a schema of version 1, keeping its animals and keys, to a create_pets that deletes nothing', async () => {
    const schema = database.freshSchema();
    const admin = database.admin();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `CREATE TABLE ${schema}.schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(MIGRATIONS[0]!.sql(schema));
    await admin.query(`INSERT INTO ${schema}.schema_migrations (version, description) VALUES (1, 'version 1')`);
    await admin.query(`SELECT * FROM ${schema}.create_pets($1::jsonb)`, [
      JSON.stringify([
        { ...rex, scope: 'a1b2c3d4e5f6', key: 'kept', fingerprint: 'digest', createdAt: 1_700_000_000_000, expiresAt: 1_700_086_400_000 },
      ]),
    ]);
    const storage = await openPostgresStorage({ connectionString: database.url(), schema });
    expect((await admin.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).rows).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
    ]);
    const { rows } = await admin.query(`SELECT pg_get_functiondef('${schema}.create_pets(jsonb)'::regprocedure) AS body`);
    expect(rows[0].body).not.toMatch(/DELETE/);
    expect(await storage.createIdempotent(rex, key('kept', 1_700_000_001_000))).toMatchObject({ pet: { id: 1 }, replayed: true });
    await storage.close();
  });

  it('Should refuse a schema name that is not a plain lowercase identifier', async () => {
    for (const schema of ['Animals', 'a;drop table x', '', 'x'.repeat(64)]) {
      await expect(openPostgresStorage({ connectionString: database.url(), schema })).rejects.toThrow(/schema name .* is not allowed/);
    }
  });

  it('Should say what is wrong, without the password, when the database cannot be reached', async () => {
    const opening = openPostgresStorage({ connectionString: 'postgres://someone:hunter2@127.0.0.1:1/nowhere', connectionTimeout: 2000 });
    await expect(opening).rejects.toThrow(PostgresStorageError);
    const message = await opening.catch((error: Error) => error.message);
    expect(message).toMatch(
      /^The PostgreSQL storage cannot open postgres:\/\/someone@127\.0\.0\.1:1\/nowhere \(schema animal_store\): .*ECONNREFUSED/,
    );
    expect(message).not.toContain('hunter2');
  });

  it('Should take exactly one of connectionString, pool or client', async () => {
    await expect(openPostgresStorage({} as never)).rejects.toThrow(/exactly one of connectionString, pool or client, not none/);
    const pool = new pg.Pool({ connectionString: database.url() });
    await expect(openPostgresStorage({ connectionString: database.url(), pool } as never)).rejects.toThrow(/not connectionString and pool/);
    await pool.end();
    await expect(openPostgresStorage({ connectionString: database.url(), poolSize: 0 })).rejects.toThrow(
      'poolSize must be a positive number',
    );
    await expect(openPostgresStorage({ connectionString: database.url(), queryTimeout: -1 })).rejects.toThrow(
      'queryTimeout must be a positive number',
    );
  });
});

describe('PostgreSQL storage: pools and clients of the user', () => {
  it('Should work on a pg.Pool it is given, share it between schemas, and never end it', async () => {
    const pool = new pg.Pool({ connectionString: database.url(), max: 3 });
    pool.on('error', () => {});
    const [one, two] = await Promise.all([
      openPostgresStorage({ pool, schema: database.freshSchema() }),
      openPostgresStorage({ pool, schema: database.freshSchema() }),
    ]);
    await Promise.all([one.create(rex), two.create({ ...rex, name: 'Tom' }), two.create({ ...rex, name: 'Kiki' })]);
    expect((await one.list({ after: 0, limit: 10 })).map((pet) => pet.name)).toEqual(['Rex']);
    expect((await two.list({ after: 0, limit: 10 })).map((pet) => pet.name)).toEqual(['Tom', 'Kiki']);
    await one.close();
    await two.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it('Should work on a single connected pg.Client, and never end it', async () => {
    const client = new pg.Client({ connectionString: database.url() });
    await client.connect();
    const storage = await openPostgresStorage({ client, schema: database.freshSchema() });
    const created = await Promise.all([storage.create(rex), storage.createIdempotent(rex, key('k', 1_700_000_000_000))]);
    expect(created.map((result) => ('pet' in result ? result.pet.id : result.id))).toEqual([1, 2]);
    expect(await storage.get(2)).toEqual({ id: 2, ...rex });
    await storage.close();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
  });
});

describe('PostgreSQL storage: Idempotency-Keys in the database', () => {
  it('Should store a key in the same transaction as its animal, and delete expired keys by a periodic sweep', async () => {
    const schema = database.freshSchema();
    const storage = await openPostgresStorage({ connectionString: database.url(), schema, keySweep: { everyMilliseconds: 50, atMost: 1 } });
    const day = 86_400_000;
    const first = await storage.createIdempotent(rex, key('old', 1_700_000_000_000));
    const { rows } = await database
      .admin()
      .query(`SELECT scope, key, fingerprint, pet_id::int, created_at = to_timestamp(1700000000) AS exact FROM ${schema}.idempotency_keys`);
    expect(rows).toEqual([{ scope: 'a1b2c3d4e5f6', key: 'old', fingerprint: 'digest', pet_id: first.pet.id, exact: true }]);
    await storage.createIdempotent(rex, key('new', 1_700_000_000_000 + 2 * day));
    await expect
      .poll(async () => (await database.admin().query(`SELECT key FROM ${schema}.idempotency_keys`)).rows, { timeout: 5_000 })
      .toEqual([{ key: 'new' }]);
    await storage.close();
  });

  it('Should not delete expired keys on the path of a create', async () => {
    const schema = database.freshSchema();
    // A sweep that never comes during the test.
    const storage = await openPostgresStorage({ connectionString: database.url(), schema, keySweep: { everyMilliseconds: 3_600_000 } });
    await storage.createIdempotent(rex, key('first', 1_700_000_000_000));
    // Arriving two days later, when the first key has expired: version 1 deleted it here.
    await storage.createIdempotent(rex, key('second', 1_700_000_000_000 + 2 * 86_400_000));
    const { rows } = await database.admin().query(`SELECT key FROM ${schema}.idempotency_keys ORDER BY key`);
    expect(rows.map((row) => row.key)).toEqual(['first', 'second']);
    await storage.close();
  });

  it('Should create once when two instances get the same key at the same moment', async () => {
    const schema = database.freshSchema();
    const [one, two] = await Promise.all([
      openPostgresStorage({ connectionString: database.url(), schema }),
      openPostgresStorage({ connectionString: database.url(), schema }),
    ]);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? one : two).createIdempotent(rex, key('same', 1_700_000_000_000))),
    );
    expect(new Set(results.map((result) => result.pet.id))).toEqual(new Set([1]));
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(await one.list({ after: 0, limit: 10 })).toHaveLength(1);
    await Promise.all([one.close(), two.close()]);
  });
});

describe('PostgreSQL storage: a page costs its limit, not the catalogue', () => {
  /** The blocks a statement of the storage reads, as EXPLAIN (ANALYZE, BUFFERS) counts them for these values. */
  const blocksRead = async (text: string, values: unknown[]) => {
    const { rows } = await database.admin().query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
    const plan = (rows[0]['QUERY PLAN'] as Array<{ Plan: Record<string, number> }>)[0]!.Plan;
    return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
  };

  it('Should read a few blocks per page, with or without a status, even when a status is rare among newer animals', async () => {
    const schema = database.freshSchema();
    const storage = await openPostgresStorage({ connectionString: database.url(), schema });
    // The older half are sold, the newer half available: the last page of the sold ones must
    // not wade through every available one to find that no more are sold.
    const pets: Pet[] = Array.from({ length: 50_000 }, (_, offset) => ({
      id: offset + 1,
      name: `Animal ${offset + 1}`,
      categoryId: 1,
      status: offset < 25_000 ? 'sold' : 'available',
    }));
    const content = await openPostgresContent({ connectionString: database.url(), schema });
    await content.write({ nextId: pets.length + 1, pets: inChunks(pets), idempotencyKeys: [] }, { replace: true });
    await content.close();
    await database.admin().query(`ANALYZE ${schema}.pets`);
    expect((await storage.list({ after: 24_990, limit: 21, status: 'sold' })).map((pet) => pet.id)).toEqual([
      24_991, 24_992, 24_993, 24_994, 24_995, 24_996, 24_997, 24_998, 24_999, 25_000,
    ]);

    const sql = petStatements(`"${schema}"`);
    for (const [text, values] of [
      [sql.listByStatus, [24_990, 21, 'sold']],
      [sql.listByStatus, [25_000, 21, 'sold']],
      [sql.listByStatus, [0, 101, 'available']],
      [sql.listByStatus, [0, 21, 'pending']],
      [sql.list, [0, 101]],
      [sql.list, [49_950, 101]],
      [sql.get, [25_000]],
    ] as const) {
      expect(await blocksRead(text, [...values]), `${text} with ${values.join(', ')}`).toBeLessThan(20);
    }
    await storage.close();
  });
});

describe('PostgreSQL storage: commit reports', () => {
  it('Should tell an observer of each transaction of creates: its size, its time, and that it held', async () => {
    const reports: Array<{ size: number; seconds: number; ok: boolean }> = [];
    const storage = await openPostgresStorage({
      connectionString: database.url(),
      schema: database.freshSchema(),
      onCommit: (report) => reports.push(report),
    });
    await Promise.all(Array.from({ length: 8 }, (_, offset) => storage.create({ ...rex, name: `Rex ${offset}` })));
    expect(reports.reduce((total, report) => total + report.size, 0)).toBe(8);
    expect(reports.every((report) => report.ok && report.seconds >= 0)).toBe(true);
    // Creates that arrive together share a transaction.
    expect(reports.length).toBeLessThan(8);
    await storage.close();
  });
});
