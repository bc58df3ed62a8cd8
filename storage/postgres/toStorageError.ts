/** @module Turns a failed database call into the storage port's `storage_unavailable`. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { NO_IDS as NO_KIOSK_IDS_MESSAGE } from '../sync/syncState.js';
import { QueryTimeoutError } from './boundQuery.js';
import { NO_KIOSK_IDS } from './syncMigration.js';

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
export type StorageAction = 'create' | 'read' | 'sync';

/** What each action's failure says to the client: when it certainly changed nothing, and when that is unknown. */
const MESSAGES: Record<Exclude<StorageAction, 'read'>, { notDone: string; unknown: string }> = {
  create: {
    notDone: 'The database could not store the animal, so it was not stored. Try again later.',
    unknown:
      'The database did not confirm that the animal was stored. Try again later, with the same Idempotency-Key to be sure it is created once.',
  },
  sync: {
    notDone: 'The database could not take this sync step, so nothing changed. Try again later.',
    unknown: 'The database did not confirm this sync step. Try again later: every sync step is safe to repeat.',
  },
};

/**
 * A database failure as the port reports it: `storage_unavailable` (503, and the client may
 * retry), with the failure kept as `cause` for the operator's log and never shown to the
 * client. A create whose outcome is unknown says so, and points to the Idempotency-Key.
 */
export const toStorageError = (error: unknown, action: StorageAction): AnimalStoreError => {
  if (error instanceof AnimalStoreError) return error;
  // A kiosk out of leased ids: nothing was stored, and the next lease from its hub cures it.
  if ((error as { code?: unknown }).code === NO_KIOSK_IDS)
    return new AnimalStoreError('storage_unavailable', NO_KIOSK_IDS_MESSAGE, { cause: error });
  const message =
    action === 'read'
      ? 'The animals could not be read from the database. Try again later.'
      : MESSAGES[action][certainlyNotDone(error) ? 'notDone' : 'unknown'];
  return new AnimalStoreError('storage_unavailable', message, { cause: error });
};
