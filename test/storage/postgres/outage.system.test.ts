/**
 * @module When the database fails, the PostgreSQL storage answers storage_unavailable in
 * bounded time, changes nothing, keeps the process alive, and works again by itself once the
 * database is back: a server that stops, a network that refuses or goes silent, a full pool,
 * a slow statement, a read-only database.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { PetStorage } from '../../../core/PetStorage.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { startPostgresCluster } from '../../support/postgresCluster.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcpProxy.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
const later = <T extends { close(): Promise<unknown> } | { end(): Promise<unknown> }>(thing: T): T => {
  cleanups.push(() => ('close' in thing ? thing.close() : thing.end()));
  return thing;
};

/** The test database's URL through a proxy, whose network can then fail on demand. */
const throughProxy = async (): Promise<{ proxy: TcpProxy; url: string }> => {
  const url = new URL(database.url());
  const proxy = later(await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) }));
  url.port = String(proxy.port);
  return { proxy, url: url.href };
};

/** Resolves with how the call settled and how long it took. */
const settle = async (call: () => Promise<unknown>) => {
  const started = Date.now();
  try {
    return { value: await call(), milliseconds: Date.now() - started };
  } catch (error) {
    return { error: error as { code?: string; message: string }, milliseconds: Date.now() - started };
  }
};

/**
 * Every operation fails with storage_unavailable, each within `bound` milliseconds. Bounds
 * are the configured timeouts plus seconds of slack: they tell "bounded" from "hangs until
 * the test times out", not fast from slow.
 */
const expectUnavailable = async (storage: PetStorage, bound: number) => {
  for (const call of [() => storage.create(rex), async () => storage.list({ after: 0, limit: 5 }), async () => storage.get(1)]) {
    const { error, milliseconds } = await settle(call);
    expect(error?.code).toBe('storage_unavailable');
    expect(milliseconds).toBeLessThan(bound);
  }
};

describe('PostgreSQL storage when the database fails', () => {
  it('Should answer storage_unavailable while the network refuses, then work again by itself, having stored nothing meanwhile', async () => {
    const { proxy, url } = await throughProxy();
    const storage = later(await openPostgresStorage({ connectionString: url, schema: database.freshSchema(), connectionTimeout: 1000 }));
    expect((await storage.create(rex)).id).toBe(1);

    await proxy.cut();
    await expectUnavailable(storage, 8_000);
    const failed = await settle(() => storage.create({ ...rex, name: 'Lost' }));
    expect(failed.error?.message).toBe('The database could not store the animal, so it was not stored. Try again later.');
    const health = await storage.checkHealth();
    expect(health.ok).toBe(false);
    expect(!health.ok && health.reason).toMatch(/^The database cannot be reached: .*ECONNREFUSED/);

    await proxy.restore();
    expect(await storage.checkHealth()).toEqual({ ok: true });
    // The same storage, never reopened: the next id follows the last acknowledged one.
    expect((await storage.create({ ...rex, name: 'After' })).id).toBe(2);
    expect((await storage.list({ after: 0, limit: 10 })).map((pet) => pet.name)).toEqual(['Rex', 'After']);
  });

  it('Should answer storage_unavailable within queryTimeout when the network goes silent, then recover', async () => {
    const { proxy, url } = await throughProxy();
    const storage = later(
      await openPostgresStorage({ connectionString: url, schema: database.freshSchema(), queryTimeout: 1000, connectionTimeout: 800 }),
    );
    await storage.create(rex);
    // The create's NOTIFY to other instances' waiting pulls goes out just after it, on a
    // connection of its own: let it finish, so the frozen network catches the next create's
    // statement in flight rather than that notification.
    await new Promise((resolve) => setTimeout(resolve, 300));

    proxy.freeze();
    const create = await settle(() => storage.create({ ...rex, name: 'Unconfirmed' }));
    expect(create.error?.code).toBe('storage_unavailable');
    // Sent, then silence: the commit may or may not have happened, and the message says so.
    expect(create.error?.message).toMatch(/^The database did not confirm that the animal was stored\. .*Idempotency-Key/);
    expect(create.milliseconds).toBeLessThan(6_000);
    await expectUnavailable(storage, 6_000);
    expect((await storage.checkHealth()).ok).toBe(false);

    await proxy.restore();
    await expect(storage.list({ after: 0, limit: 10 })).resolves.toEqual([{ id: 1, ...rex }]);
    expect((await storage.create({ ...rex, name: 'After' })).id).toBe(2);
  });

  it('Should bound the wait for a connection when the pool is exhausted, on its own pool and on a given one', async () => {
    const schema = database.freshSchema();
    // Its own pool of one connection, kept busy by a create waiting for a lock held elsewhere.
    const own = later(await openPostgresStorage({ connectionString: database.url(), schema, poolSize: 1, connectionTimeout: 500 }));
    const locker = later(new pg.Client({ connectionString: database.url() }));
    await locker.connect();
    await locker.query(`BEGIN; SELECT * FROM ${schema}.pet_ids FOR UPDATE`);
    const waiting = settle(() => own.create(rex));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const list = await settle(async () => own.list({ after: 0, limit: 5 }));
    expect(list.error?.code).toBe('storage_unavailable');
    expect(list.milliseconds).toBeLessThan(5_000);
    await locker.query('COMMIT');
    expect((await waiting).value).toMatchObject({ id: 1 });

    // A given pool whose only connection the application holds: bounded by queryTimeout alone.
    const pool = later(new pg.Pool({ connectionString: database.url(), max: 1 }));
    const given = later(await openPostgresStorage({ pool, schema, queryTimeout: 700 }));
    const held = await pool.connect();
    const read = await settle(async () => given.list({ after: 0, limit: 5 }));
    expect(read.error?.code).toBe('storage_unavailable');
    expect(read.milliseconds).toBeLessThan(5_000);
    held.release();
    expect(await given.list({ after: 0, limit: 5 })).toEqual([{ id: 1, ...rex }]);
  });

  it('Should cancel a statement that outlasts statementTimeout, store nothing of it, and go on', async () => {
    const schema = database.freshSchema();
    const storage = later(await openPostgresStorage({ connectionString: database.url(), schema, statementTimeout: 500 }));
    const locker = later(new pg.Client({ connectionString: database.url() }));
    await locker.connect();
    await locker.query(`BEGIN; SELECT * FROM ${schema}.pet_ids FOR UPDATE`);
    const slow = await settle(() => storage.create({ ...rex, name: 'Too slow' }));
    expect(slow.error?.code).toBe('storage_unavailable');
    expect(slow.error?.message).toBe('The database could not store the animal, so it was not stored. Try again later.');
    expect(slow.milliseconds).toBeLessThan(5_000);
    await locker.query('ROLLBACK');
    expect(await storage.create(rex)).toEqual({ id: 1, ...rex });
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([{ id: 1, ...rex }]);
  });

  it('Should report a read-only database as not healthy and refuse creates there, until it takes writes again', async () => {
    const url = await database.freshDatabase();
    const name = new URL(url).pathname.slice(1);
    const storage = later(await openPostgresStorage({ connectionString: url }));
    await storage.create(rex);
    const admin = database.admin();
    const reconnectAll = () =>
      admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);

    await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await reconnectAll();
    // The first call after the cut may find a dead connection; the pool replaces it.
    await settle(() => storage.checkHealth());
    expect(await storage.checkHealth()).toEqual({
      ok: false,
      reason: 'The database takes no writes: default_transaction_read_only is on.',
    });
    const refused = await settle(() => storage.create({ ...rex, name: 'Refused' }));
    expect(refused.error?.code).toBe('storage_unavailable');
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([{ id: 1, ...rex }]);

    await admin.query(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    await reconnectAll();
    await settle(() => storage.checkHealth());
    expect(await storage.checkHealth()).toEqual({ ok: true });
    expect((await storage.create({ ...rex, name: 'Writable' })).id).toBe(2);
  });

  it('Should survive the server stopping and work again once it has started, without being reopened', { timeout: 60_000 }, async () => {
    // Its own throwaway server, which this test stops and starts (even with ANIMAL_STORE_TEST_DATABASE_URL).
    const cluster = await startPostgresCluster();
    cleanups.push(() => cluster.destroy());
    const storage: PostgresStorage = later(await openPostgresStorage({ connectionString: cluster.url, connectionTimeout: 1000 }));
    await Promise.all([storage.create(rex), storage.create({ ...rex, name: 'Tom' })]);

    await cluster.stop();
    await expectUnavailable(storage, 8_000);
    expect((await storage.checkHealth()).ok).toBe(false);

    await cluster.start();
    await settle(async () => storage.list({ after: 0, limit: 1 }));
    expect(await storage.checkHealth()).toEqual({ ok: true });
    expect((await storage.create({ ...rex, name: 'Back' })).id).toBe(3);
    expect((await storage.list({ after: 0, limit: 10 })).map((pet) => pet.name)).toEqual(['Rex', 'Tom', 'Back']);
  });
});
