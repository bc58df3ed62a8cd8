/** @module Connects to PostgreSQL as the options say (own pool, given pool or client) and migrates the schema. */

import { reasonOf } from '../reasonOf.js';
import { boundQuery } from './boundQuery.js';
import { createPool } from './createPool.js';
import { migrate } from './migrate.js';
import type { PostgresPool, PostgresQueryable, PostgresQueryResult } from './PostgresPool.js';
import { PostgresStorageError } from './PostgresStorageError.js';
import { DEFAULT_SCHEMA, quoteSchema } from './schemaName.js';

/** Where the animals are: exactly one of a connection string, a pool or a client. */
export type PostgresConnectionOptions =
  | {
      /**
       * A connection string such as `postgres://user:password@host:5432/database`. The
       * storage makes its own `pg.Pool` from it (so `pg` must be installed) and ends it on
       * `close()`.
       */
      connectionString: string;
      /** The most connections the storage's pool opens; 10 by default. */
      poolSize?: number;
      /** Milliseconds to open a connection or wait for a free one; 5,000 by default. */
      connectionTimeout?: number;
      /** Milliseconds the server may spend on one statement (`statement_timeout`); 5,000 by default. */
      statementTimeout?: number;
    }
  | {
      /**
       * A pool of yours, such as a `pg.Pool`: anything with `query(text, values)`,
       * `connect()` and `end()`. The storage never ends it. Give it an `error` listener, as
       * pg asks of every pool, and set its timeouts (`connectionTimeoutMillis`,
       * `statement_timeout`); `queryTimeout` bounds each call anyway.
       */
      pool: PostgresPool;
    }
  | {
      /**
       * A single connection of yours, such as a connected `pg.Client`: anything with
       * `query(text, values)`. The storage never ends it. It runs one statement at a time
       * and does not reconnect after the server drops it, so prefer a pool; while the storage
       * opens (and migrates), nothing else may use it.
       */
      client: PostgresQueryable;
    };

/** Options every PostgreSQL connection takes. */
export interface PostgresCommonOptions {
  /** The schema that holds the tables; `animal_store` by default. Lowercase letters, digits and `_`. */
  schema?: string;
  /**
   * Milliseconds any call may wait for the database, a free connection included, before it
   * fails with `storage_unavailable`; 10,000 by default.
   */
  queryTimeout?: number;
}

/** How to reach the database, and how long to wait for it. */
export type PostgresOptions = PostgresConnectionOptions & PostgresCommonOptions;

/** An open connection to the storage's schema. */
export interface PostgresConnection {
  /** The schema's name, as given. */
  schema: string;
  /** The schema's name, quoted for SQL. */
  quoted: string;
  /** The pool (or a client dressed as one), for transactions. */
  pool: PostgresPool;
  /** Runs one statement, bounded by `queryTimeout` (or the `milliseconds` given). */
  query(text: string, values?: unknown[], milliseconds?: number): Promise<PostgresQueryResult>;
  /** Ends the pool if the storage made it; leaves a given pool or client alone. */
  close(): Promise<void>;
}

/** How long to wait, when the options do not say. */
export const DEFAULT_TIMEOUTS = { connectionTimeout: 5_000, statementTimeout: 5_000, queryTimeout: 10_000 } as const;

/** A single client, shaped as a pool whose connection is always that client. */
const poolOfClient = (client: PostgresQueryable): PostgresPool => ({
  query: (text, values) => client.query(text, values),
  connect: async () => ({ query: (text, values) => client.query(text, values), release() {} }),
  end: async () => {},
});

/** A connection string without its password, for messages and logs. */
export const describeConnectionString = (connectionString: string): string => {
  try {
    const url = new URL(connectionString);
    url.password = '';
    return url.href;
  } catch {
    return 'the given connection string';
  }
};

const isPositive = (value: number | undefined) => value === undefined || (Number.isFinite(value) && value > 0);

/**
 * Opens the connection the options describe and brings the schema to this code's version.
 * Throws a PostgresStorageError, having closed what it opened, when the database cannot be
 * reached or the schema is newer than this code.
 */
export const connectPostgres = async (options: PostgresOptions): Promise<PostgresConnection> => {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const named: Record<string, unknown> = { ...options };
  const given = ['connectionString', 'pool', 'client'].filter((name) => Boolean(named[name]));
  if (given.length !== 1) {
    throw new TypeError(
      `Give the PostgreSQL storage exactly one of connectionString, pool or client, not ${given.join(' and ') || 'none'}.`,
    );
  }
  const queryTimeout = options.queryTimeout ?? DEFAULT_TIMEOUTS.queryTimeout;
  for (const [name, value] of Object.entries({ ...named, queryTimeout })) {
    if (/Timeout$|^poolSize$/.test(name) && !isPositive(value as number | undefined)) {
      throw new TypeError(`${name} must be a positive number, not ${String(value)}.`);
    }
  }

  let pool: PostgresPool;
  let owned = false;
  let openChanges: (() => Promise<PostgresPool>) | undefined;
  let where: string;
  if ('connectionString' in options) {
    where = describeConnectionString(options.connectionString);
    pool = await createPool(options.connectionString, {
      poolSize: options.poolSize ?? 10,
      connectionTimeout: options.connectionTimeout ?? DEFAULT_TIMEOUTS.connectionTimeout,
      statementTimeout: options.statementTimeout ?? DEFAULT_TIMEOUTS.statementTimeout,
      queryTimeout,
    });
    owned = true;
    // Schema changes run on a connection of their own with no time limit (see migrate).
    const { connectionString } = options;
    const connectionTimeout = options.connectionTimeout ?? DEFAULT_TIMEOUTS.connectionTimeout;
    openChanges = () => createPool(connectionString, { poolSize: 1, connectionTimeout, statementTimeout: 0, queryTimeout: 0 });
  } else if ('pool' in options) {
    where = 'the given pool';
    pool = options.pool;
  } else {
    where = 'the given client';
    pool = poolOfClient(options.client);
  }

  try {
    await migrate(pool, schema, openChanges);
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    if (error instanceof PostgresStorageError) throw error;
    throw new PostgresStorageError(`The PostgreSQL storage cannot open ${where} (schema ${schema}): ${reasonOf(error)}.`, { cause: error });
  }

  let closed: Promise<void> | undefined;
  return {
    schema,
    quoted,
    pool,
    query: (text, values = [], milliseconds = queryTimeout) => boundQuery(pool, text, values, milliseconds),
    close: () => (closed ??= owned ? pool.end() : Promise.resolve()),
  };
};
