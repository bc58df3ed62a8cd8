/** @module Makes the storage's own pool from a connection string, loading the `pg` driver only then. */
import { createHash } from 'node:crypto';
import type { PostgresPool } from './PostgresPool.js';
import { PostgresStorageError } from './PostgresStorageError.js';

/** How the storage's own pool connects and how long it waits. */
export interface OwnedPoolSettings {
  /** The most connections the pool opens. */
  poolSize: number;
  /** Milliseconds to open a connection, or to wait for a free one, before giving up. */
  connectionTimeout: number;
  /** Milliseconds the server may spend on one statement before cancelling it (`statement_timeout`); 0 for the server's default. */
  statementTimeout: number;
  /** Milliseconds to wait for the answer to a query before dropping the connection (`query_timeout`); 0 for no limit. */
  queryTimeout: number;
}

/**
 * Makes a `pg.Pool` for `connectionString`. `pg` is an optional peer dependency, so it is
 * imported here, on first use, and only by those who give a connection string; users of the
 * other storages never load it. Without it, throws a PostgresStorageError saying what to install.
 */
export const createPool = async (connectionString: string, settings: OwnedPoolSettings): Promise<PostgresPool> => {
  let pg: typeof import('pg').default;
  try {
    // The default export is pg's module.exports both with its ESM wrapper (8.13 on) and without.
    pg = (await import('pg')).default;
  } catch (error) {
    throw new PostgresStorageError(
      `The PostgreSQL storage needs the pg driver, which is not installed: run npm install pg (${(error as Error).message.split('\n')[0]}).`,
      { cause: error },
    );
  }
  const pool = new pg.Pool({
    connectionString,
    application_name: 'animal-store',
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectionTimeout,
    statement_timeout: settings.statementTimeout,
    query_timeout: settings.queryTimeout,
    // A session left in a transaction (a copy whose process froze) must not hold locks for long.
    idle_in_transaction_session_timeout: 60_000,
    // Notices a peer that vanished (a crashed host, a cut network) on connections at rest.
    keepAlive: true,
    // Creates rely on READ COMMITTED (each statement of create_pets sees the creates committed
    // before it), whatever the server's default isolation is.
    options: '-c default_transaction_isolation=read\\ committed',
  });
  // A connection at rest that the server closes (restart, failover) is dropped by the pool,
  // which connects anew on the next query. Without a listener the event would end the process.
  pool.on('error', () => {});
  // A statement with parameters runs as a named prepared statement: each connection parses
  // and plans it once, which halves the cost of a page on the server. (Only on this pool,
  // which is known to be pg's; a pool given by the user gets plain statements.)
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `animal-store-${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    query: (text, values) => (values && values.length > 0 ? pool.query({ name: nameOf(text), text, values }) : pool.query(text)),
    connect: () => pool.connect(),
    end: () => pool.end(),
  };
};
