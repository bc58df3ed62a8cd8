/** @module A PostgreSQL timestamp as milliseconds since the epoch, in SQL. */

/** The SQL expression of `timestamp` (a column or expression) in whole milliseconds since the epoch, a bigint. */
export const epochMilliseconds = (timestamp: string): string => `(extract(epoch FROM ${timestamp}) * 1000)::bigint`;
