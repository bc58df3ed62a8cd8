/** @module The few methods of a PostgreSQL pool or client that the storage calls, typed structurally. */

/** What a query answers with: its rows, as the driver parsed them. */
export interface PostgresQueryResult {
  rows: Record<string, unknown>[];
}

/** Anything that runs a parameterised query: a pool, a pooled client, a single client. */
export interface PostgresQueryable {
  /** Runs one statement with `$1, $2, …` bound to `values`. */
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
}

/** A connection lent by a pool, to run a transaction on. */
export interface PostgresPoolClient extends PostgresQueryable {
  /** Gives the connection back; with an error, the pool drops it instead of reusing it. */
  release(error?: Error | boolean): void;
}

/**
 * A pool of connections, shaped like `pg.Pool` (and like Kysely's `PostgresPool`): the
 * storage runs single statements with `query` and takes a connection with `connect` only to
 * migrate the schema or copy a whole catalogue. It never depends on the driver's classes, so
 * any pool of this shape will do.
 */
export interface PostgresPool extends PostgresQueryable {
  /** Lends a connection until `release`. */
  connect(): Promise<PostgresPoolClient>;
  /** Closes every connection; called only on pools the storage made itself. */
  end(): Promise<void>;
}
