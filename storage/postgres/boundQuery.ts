/** @module Bounds every call to the database in time, whatever pool it goes through. */
import type { PostgresQueryable, PostgresQueryResult } from './PostgresPool.js';

/** The database did not answer in time; the query may still be running, or may have been done. */
export class QueryTimeoutError extends Error {
  override readonly name = 'QueryTimeoutError';
}

/**
 * Runs a query, rejecting with a QueryTimeoutError when no answer came within `milliseconds`
 * (waiting for a free connection included). Pools the storage makes also drop a connection
 * that stays silent, with pg's `query_timeout`; a pool given by the user is bounded by this
 * alone: its late answer is ignored, and its connection goes back to it when the answer comes.
 */
export const boundQuery = (db: PostgresQueryable, text: string, values: unknown[], milliseconds: number): Promise<PostgresQueryResult> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new QueryTimeoutError(`the database did not answer within ${milliseconds} ms`)), milliseconds);
    db.query(text, values).then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
