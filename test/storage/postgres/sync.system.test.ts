/**
 * @module Sync on PostgreSQL beyond the contract: the upgrade of a version-1 or version-2 schema in place,
 * and several instances on one schema acting as one hub (leases, pushes, arrival order).
 */
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { inChunks } from '../../../storage/PetContent.js';
import { LOCK_CLASS } from '../../../storage/postgres/migrate.js';
import { MIGRATIONS } from '../../../storage/postgres/migrations.js';
import { openPostgresContent } from '../../../storage/postgres/openPostgresContent.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { petStatements } from '../../../storage/postgres/petStatements.js';
import { startPostgresCluster } from '../../support/postgresCluster.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const KIOSK_A = 'a'.repeat(64);
const KIOSK_B = 'b'.repeat(64);
const pet = (id: number, name = `Animal ${id}`): Pet => ({ id, name, categoryId: 1, status: 'pending' });

/** Every animal, walking pages of `limit` after the last id seen, as a client's pager does. */
const walk = async (storage: PostgresStorage, limit = 7, status?: Pet['status']) => {
  const all: Pet[] = [];
  for (let after = 0; ; ) {
    const page = await storage.list({ after, limit, status });
    if (page.length === 0) return all;
    all.push(...page);
    after = page.at(-1)!.id;
  }
};

const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const open = (schema: string, poolSize = 4) => openPostgresStorage({ connectionString: database.url(), schema, poolSize });

/**
 * Makes `schema` as an earlier release left it, at schema `version` (1: the first release,
 * 2: keys swept apart from creates, 3: sync): three animals, one with an Idempotency-Key
 * made at the returned time, and one whose name JSON must escape.
 */
const makeVersion = async (schema: string, version = 1): Promise<number> => {
  const admin = database.admin();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.schema_migrations (
    version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const migration of MIGRATIONS.slice(0, version)) {
    await admin.query(migration.sql(schema));
    await admin.query(`INSERT INTO ${schema}.schema_migrations (version, description) VALUES ($1, $2)`, [
      migration.version,
      `v${migration.version}`,
    ]);
  }
  const now = Date.now();
  const batch = [
    { name: 'Old 1', categoryId: 1, status: 'sold' },
    {
      name: 'Old 2',
      categoryId: 2,
      status: 'available',
      scope: 's',
      key: 'k',
      fingerprint: 'f',
      createdAt: now,
      expiresAt: now + 60_000,
    },
    { name: 'Old "3"\n\u0001', categoryId: 3, status: 'sold' },
  ];
  await admin.query(`SELECT * FROM ${schema}.create_pets($1::jsonb)`, [JSON.stringify(batch)]);
  return now;
};

describe('PostgreSQL sync: the schema upgrade', () => {
  it.each([1, 2, 3])(
    'Should upgrade a version-%i catalogue in place: same animals, same order, same keys, ids continuing',
    async (version) => {
      const schema = database.freshSchema();
      const admin = database.admin();
      const now = await makeVersion(schema, version);

      const storage = await open(schema);
      expect((await walk(storage, 2)).map(({ id, name }) => [id, name])).toEqual([
        [1, 'Old 1'],
        [2, 'Old 2'],
        [3, 'Old "3"\n\u0001'],
      ]);
      expect((await walk(storage, 1, 'sold')).map(({ id }) => id)).toEqual([1, 3]);
      // Each animal's JSON text (schema version 4) was written for the animals already there.
      expect((await storage.listText({ after: 0, limit: 10 })).text).toBe(JSON.stringify(await storage.list({ after: 0, limit: 10 })));
      const replay = await storage.createIdempotent(rex, {
        scope: 's',
        key: 'k',
        fingerprint: 'f',
        createdAt: now + 1,
        expiresAt: now + 60_000,
      });
      expect(replay).toMatchObject({ replayed: true, pet: { id: 2, name: 'Old 2' } });
      expect((await storage.create(rex)).id).toBe(4);
      const { rows } = await admin.query(`SELECT id, arrival FROM ${schema}.pets ORDER BY id`);
      expect(rows.map((row) => [Number(row.id), Number(row.arrival)])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
      const { rows: versions } = await admin.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
      expect(versions).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
      // Expired keys are the periodic sweep's to delete, never a create's (schema version 2 onwards).
      const { rows: body } = await admin.query(`SELECT pg_get_functiondef('${schema}.create_pets(jsonb)'::regprocedure) AS text`);
      expect(body[0].text).not.toMatch(/DELETE/);
      await storage.close();
    },
  );

  it('Should wait, beyond its query and statement timeouts, for an upgrade another instance is making', { timeout: 60_000 }, async () => {
    const schema = database.freshSchema();
    await makeVersion(schema);
    // Another instance's long upgrade, as the advisory lock of migrations sees it.
    const other = await database.admin().connect();
    await other.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
    const opening = openPostgresStorage({ connectionString: database.url(), schema, queryTimeout: 500, statementTimeout: 500 });
    const outcome = await Promise.race([
      opening.then(
        () => 'opened',
        () => 'failed',
      ),
      wait(2_000).then(() => 'waiting'),
    ]);
    expect(outcome).toBe('waiting');
    await other.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, schema]);
    other.release();
    const storage = await opening;
    expect((await storage.create(rex)).id).toBe(4);
    await storage.close();
  });
});

describe('PostgreSQL sync: several instances are one hub', () => {
  it('Should never give the same id twice across instances leasing and creating at once', { timeout: 60_000 }, async () => {
    const schema = database.freshSchema();
    const instances = await Promise.all([open(schema), open(schema), open(schema)]);
    const given: Array<{ first: number; last: number }> = [];
    await Promise.all(
      instances.flatMap((storage, index) =>
        Array.from({ length: 20 }, async (_, round) => {
          // A key of its own per lease: a key holds at most four unused blocks.
          if (round % 4 === 0) given.push(await storage.sync.lease((index * 100 + round).toString(16).padStart(64, '0'), 50));
          else {
            const { id } = await storage.create(rex);
            given.push({ first: id, last: id });
          }
        }),
      ),
    );
    given.sort((one, other) => one.first - other.first);
    for (let at = 1; at < given.length; at++) expect(given[at]!.first).toBeGreaterThan(given[at - 1]!.last);
    await Promise.all(instances.map((storage) => storage.close()));
  });

  it('Should store a push sent through two instances at the same moment once, and list it once', { timeout: 60_000 }, async () => {
    const schema = database.freshSchema();
    const [one, two] = await Promise.all([open(schema), open(schema)]);
    const block = await one.sync.lease(KIOSK_A, 100);
    const local = await two.create(rex);
    const pushed = Array.from({ length: 40 }, (_, offset) => pet(block.first + offset));
    for (let round = 0; round < 5; round++) {
      const batch = pushed.slice(round * 8, round * 8 + 8);
      const results = await Promise.all([one.sync.store(KIOSK_A, batch), two.sync.store(KIOSK_A, batch), one.sync.store(KIOSK_A, batch)]);
      expect(results.reduce((sum, { stored }) => sum + stored, 0)).toBe(8);
      for (const { stored, present } of results) expect(stored + present).toBe(8);
    }
    // In arrival order: the hub's own animal, then the pushed ones in the order they came.
    expect((await walk(two)).map(({ id }) => id)).toEqual([local.id, ...pushed.map(({ id }) => id)]);
    expect((await walk(one, 5, 'pending')).map(({ id }) => id)).toEqual(pushed.map(({ id }) => id));
    // A local create after the pushes arrives last, with the next id above every lease.
    const later = await one.create(rex);
    expect([local.id, later.id]).toEqual([block.last + 1, block.last + 2]);
    expect((await one.list({ after: pushed.at(-1)!.id, limit: 10 })).map(({ id }) => id)).toEqual([later.id]);
    await Promise.all([one.close(), two.close()]);
  });

  it('Should make animals visible in arrival order across instances: pagers miss none of the pushed or created ones', {
    timeout: 120_000,
  }, async () => {
    const schema = database.freshSchema();
    const [reader, creator, pusherA, pusherB] = await Promise.all([open(schema, 6), open(schema), open(schema), open(schema)]);
    // Each write waits 0–4 ms after its rows are in and before it commits, widening the
    // window in which a later arrival could become visible before an earlier one.
    await database.admin().query(`
      CREATE FUNCTION ${schema}.slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(random() * 0.004); RETURN NULL; END $$;
      CREATE TRIGGER slow_commit AFTER INSERT ON ${schema}.pets FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.slow_commit();
    `);
    const blockA = await pusherA.sync.lease(KIOSK_A, 300);
    const blockB = await pusherB.sync.lease(KIOSK_B, 300);
    let writing = true;
    const push = async (storage: PostgresStorage, scope: string, first: number) => {
      for (let offset = 0; offset < 300; offset += 3) {
        await storage.sync.store(scope, [pet(first + offset), pet(first + offset + 1), pet(first + offset + 2)]);
      }
    };
    const writes = Promise.all([
      push(pusherA, KIOSK_A, blockA.first),
      push(pusherB, KIOSK_B, blockB.first),
      (async () => {
        for (let count = 0; count < 300; count++) await creator.create(rex);
      })(),
    ]).finally(() => {
      writing = false;
    });
    const pagers = Array.from({ length: 4 }, async () => {
      const seen: number[] = [];
      let after = 0;
      for (;;) {
        const wasWriting = writing;
        const page = await reader.list({ after, limit: 5 });
        seen.push(...page.map(({ id }) => id));
        if (page.length > 0) after = page.at(-1)!.id;
        else if (!wasWriting) return seen;
      }
    });
    await writes;
    const all = (await walk(reader, 100)).map(({ id }) => id);
    expect(all).toHaveLength(900);
    for (const seen of await Promise.all(pagers)) expect(seen).toEqual(all);
    await Promise.all([reader, creator, pusherA, pusherB].map((storage) => storage.close()));
  });

  it('Should refuse, through any instance, a push of ids leased to another key, storing nothing', async () => {
    const schema = database.freshSchema();
    const [one, two] = await Promise.all([open(schema), open(schema)]);
    const theirs = await one.sync.lease(KIOSK_B, 10);
    await expect(two.sync.store(KIOSK_A, [pet(theirs.first)])).rejects.toMatchObject({ code: 'forbidden' });
    expect(await one.get(theirs.first)).toBeUndefined();
    await Promise.all([one.close(), two.close()]);
  });
});

describe('PostgreSQL sync: a page still costs its limit once animals arrive out of id order', () => {
  /** The blocks a statement reads, as EXPLAIN (ANALYZE, BUFFERS) counts them for these values. */
  const blocksRead = async (text: string, values: unknown[]) => {
    const { rows } = await database.admin().query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
    const plan = (rows[0]['QUERY PLAN'] as Array<{ Plan: Record<string, number> }>)[0]!.Plan;
    return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
  };

  it('Should read a few blocks per page after a pushed animal, with or without a status', { timeout: 60_000 }, async () => {
    const schema = database.freshSchema();
    const storage = await open(schema);
    const old: Pet[] = Array.from({ length: 30_000 }, (_, offset) => ({
      id: offset + 1,
      name: `Animal ${offset + 1}`,
      categoryId: 1,
      status: offset < 15_000 ? 'sold' : 'available',
    }));
    const content = await openPostgresContent({ connectionString: database.url(), schema });
    await content.write({ nextId: old.length + 1, pets: inChunks(old), idempotencyKeys: [] }, { replace: true });
    await content.close();
    // A kiosk's block, then the hub's own creates above it, then the kiosk's push: its
    // animals have lower ids than the hub's newest but arrive after them.
    const block = await storage.sync.lease(KIOSK_A, 2_000);
    const local = await Promise.all(Array.from({ length: 50 }, () => storage.create(rex)));
    const pushed = Array.from({ length: 2_000 }, (_, offset) => pet(block.first + offset));
    await storage.sync.store(KIOSK_A, pushed.slice(0, 1_000));
    await storage.sync.store(KIOSK_A, pushed.slice(1_000));
    await database.admin().query(`ANALYZE ${schema}.pets`);

    const middle = pushed[999]!.id;
    expect((await storage.list({ after: local.at(-1)!.id, limit: 2 })).map(({ id }) => id)).toEqual([block.first, block.first + 1]);
    expect((await storage.list({ after: middle, limit: 2, status: 'pending' })).map(({ id }) => id)).toEqual([middle + 1, middle + 2]);
    expect(await storage.list({ after: middle, limit: 2, status: 'sold' })).toEqual([]);
    expect(await storage.list({ after: middle, limit: 2, status: 'available' })).toEqual([]);

    const sql = petStatements(`"${schema}"`);
    for (const [text, values] of [
      [sql.list, [middle, 101]],
      [sql.list, [local.at(-1)!.id, 101]],
      [sql.listByStatus, [middle, 101, 'pending']],
      [sql.listByStatus, [middle, 21, 'sold']],
      [sql.listByStatus, [middle, 21, 'available']],
      [sql.listByStatus, [local[0]!.id, 21, 'available']],
    ] as const) {
      expect(await blocksRead(text, [...values]), `${text} with ${values.join(', ')}`).toBeLessThan(20);
    }
    await storage.close();
  });
});

describe('PostgreSQL sync: a kiosk on PostgreSQL', () => {
  it('Should refuse a whole batch of creates that outruns its leased ids with a 503, and create again once a block comes', async () => {
    const schema = database.freshSchema();
    const storage = await open(schema);
    await storage.sync.join('http://127.0.0.1:9/v1');
    await storage.sync.addBlock({ first: 11, last: 12 });
    const three = await Promise.allSettled([storage.create(rex), storage.create(rex), storage.create(rex)]);
    expect(three.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(three[0]).toMatchObject({ reason: { code: 'storage_unavailable', message: expect.stringMatching(/no ids/) } });
    expect(await walk(storage)).toEqual([]);
    await storage.sync.addBlock({ first: 21, last: 30 });
    const ids = (await Promise.all([storage.create(rex), storage.create(rex), storage.create(rex)])).map(({ id }) => id);
    expect(ids).toEqual([11, 12, 21]);
    expect(await storage.sync.kiosk()).toMatchObject({ nextId: 22 });
    await storage.close();
  });
});

describe('PostgreSQL sync: the database down', () => {
  it('Should refuse every sync step with storage_unavailable while the database is down, and go on once it is back', {
    timeout: 60_000,
  }, async () => {
    // Its own throwaway server, which this test stops and starts.
    const cluster = await startPostgresCluster();
    try {
      const storage = await openPostgresStorage({ connectionString: cluster.url, connectionTimeout: 1000 });
      const block = await storage.sync.lease(KIOSK_A, 10);
      await storage.sync.store(KIOSK_A, [pet(block.first)]);

      await cluster.stop();
      const steps: Array<() => Promise<unknown>> = [
        () => storage.sync.lease(KIOSK_A, 10),
        () => storage.sync.store(KIOSK_A, [pet(block.first + 1)]),
        () => storage.sync.kiosk(),
        () => storage.sync.join('http://127.0.0.1:9/v1'),
        () => storage.sync.insertPulled([pet(1_000)], 1_000),
      ];
      for (const step of steps) await expect(step()).rejects.toMatchObject({ code: 'storage_unavailable' });

      await cluster.start();
      let next: { first: number; last: number } | undefined;
      for (const deadline = Date.now() + 20_000; next === undefined && Date.now() < deadline; ) {
        next = await storage.sync.lease(KIOSK_A, 10).catch(() => undefined);
      }
      expect(next).toEqual({ first: block.last + 1, last: block.last + 10 });
      expect(await storage.sync.store(KIOSK_A, [pet(block.first), pet(block.first + 1)])).toEqual({ stored: 1, present: 1 });
      expect((await walk(storage)).map(({ id }) => id)).toEqual([block.first, block.first + 1]);
      await storage.close();
    } finally {
      await cluster.destroy();
    }
  });
});
