/**
 * @module The PostgreSQL database of a test file: ANIMAL_STORE_TEST_DATABASE_URL when set,
 * else a throwaway cluster started before the file's tests and removed after them. Each test
 * takes a fresh schema or a fresh database of its own, so tests never see each other's animals.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type PostgresCluster, startPostgresCluster } from './postgresCluster.js';

/** The database a test file uses. */
export interface TestDatabase {
  /** The connection string of the database the tests run in. */
  url(): string;
  /** A pool on that database for the test's own queries (checks, locks, counts). */
  admin(): pg.Pool;
  /** A name for a schema nobody has used yet (the storage creates it). */
  freshSchema(): string;
  /** Creates a new, empty database and returns its connection string. */
  freshDatabase(): Promise<string>;
  /** The throwaway cluster, when the tests started one (not with ANIMAL_STORE_TEST_DATABASE_URL). */
  cluster(): PostgresCluster | undefined;
}

/** A name unique across test files and runs: a prefix, a counter and a few random letters. */
let counter = 0;
const uniqueName = (prefix: string) => `${prefix}_${++counter}_${randomBytes(4).toString('hex')}`;

/** The connection string of another database on the same server. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
};

/**
 * Registers, for the calling test file, a database to test against: the one
 * ANIMAL_STORE_TEST_DATABASE_URL names, or a throwaway cluster (see postgresCluster.ts).
 * Either way a server that cannot be reached fails the file's tests with what to do.
 */
export const useTestDatabase = (): TestDatabase => {
  let cluster: PostgresCluster | undefined;
  let url: string | undefined;
  let admin: pg.Pool | undefined;
  beforeAll(async () => {
    const given = process.env.ANIMAL_STORE_TEST_DATABASE_URL;
    if (given) url = given;
    else {
      cluster = await startPostgresCluster();
      url = cluster.url;
    }
    admin = new pg.Pool({ connectionString: url, max: 4 });
    admin.on('error', () => {});
    try {
      await admin.query('SELECT 1');
    } catch (error) {
      throw new Error(`The test database ${url} cannot be reached: ${(error as Error).message}`, { cause: error });
    }
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await cluster?.destroy();
  }, 30_000);

  const ready = () => {
    if (url === undefined || admin === undefined)
      throw new Error('The test database is not started: call useTestDatabase() at the top of the file.');
    return { url, admin };
  };
  return {
    url: () => ready().url,
    admin: () => ready().admin,
    freshSchema: () => uniqueName('test'),
    async freshDatabase() {
      const name = uniqueName('test');
      await ready().admin.query(`CREATE DATABASE ${name}`);
      return withDatabase(ready().url, name);
    },
    cluster: () => cluster,
  };
};
