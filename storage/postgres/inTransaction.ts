/** @module One transaction on a connection of its own: the storage's one way to BEGIN, COMMIT and ROLLBACK. */
import type { PostgresPool, PostgresPoolClient } from './PostgresPool.js';

/**
 * Runs `use` in a transaction on a connection taken from `pool`; commits when it resolves,
 * rolls back when it throws. A connection that failed goes back marked broken, so the pool
 * drops it rather than handing it out again.
 */
export const inTransaction = async <T>(
  pool: Pick<PostgresPool, 'connect'>,
  begin: string,
  use: (client: PostgresPoolClient) => Promise<T>,
): Promise<T> => {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await use(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(error instanceof Error ? error : true);
    throw error;
  }
};
