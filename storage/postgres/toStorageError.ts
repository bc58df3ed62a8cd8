/** @module Turns a failed database call into the storage port's `storage_unavailable`. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { QueryTimeoutError } from './boundQuery.js';

/** Errors that come before anything is sent: the statement certainly did not run. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', 'EACCES']);

/**
 * Whether a failed statement certainly changed nothing. A statement the server refused or
 * cancelled (an error with an SQLSTATE: a timeout, a read-only server, a full disk) was
 * rolled back; so was one that was never sent (no connection). When the connection broke
 * or went silent after the statement was sent, its commit may or may not have happened.
 */
export const certainlyNotDone = (error: unknown): boolean => {
  if (error instanceof QueryTimeoutError) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return true;
  if (typeof code === 'string' && NEVER_SENT.has(code)) return true;
  // pg-pool's wait for a free connection, and pg's connection attempt, timing out.
  return typeof message === 'string' && /timeout exceeded when trying to connect|due to connection timeout/i.test(message);
};

/** What the failing call was doing, for its message. */
export type StorageAction = 'create' | 'read';

/**
 * A database failure as the port reports it: `storage_unavailable` (503, and the client may
 * retry), with the failure kept as `cause` for the operator's log and never shown to the
 * client. A create whose outcome is unknown says so, and points to the Idempotency-Key.
 */
export const toStorageError = (error: unknown, action: StorageAction): AnimalStoreError => {
  if (error instanceof AnimalStoreError) return error;
  const message =
    action === 'read'
      ? 'The animals could not be read from the database. Try again later.'
      : certainlyNotDone(error)
        ? 'The database could not store the animal, so it was not stored. Try again later.'
        : 'The database did not confirm that the animal was stored. Try again later, with the same Idempotency-Key to be sure it is created once.';
  return new AnimalStoreError('storage_unavailable', message, { cause: error });
};
