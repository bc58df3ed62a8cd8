/** @module The error opening a PostgreSQL storage fails with. */

/**
 * Opening a PostgreSQL storage failed: the driver is not installed, the database cannot be
 * reached, or its schema is newer than this version of animal-store. The message is one
 * sentence saying what and what to do, fit to print as it is (it never holds a password).
 */
export class PostgresStorageError extends Error {
  override readonly name = 'PostgresStorageError';
}
