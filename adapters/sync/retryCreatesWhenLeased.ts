/** @module A kiosk's storage whose creates, refused for want of leased ids, wait for the lease being asked for, then say why. */
import { AnimalStoreError, isAnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage } from '../../core/PetStorage.js';
import { NO_IDS } from '../../storage/sync/syncState.js';

/** What the wrapped storage asks of the replicator when a create finds no leased id left. */
export interface LeaseWait {
  /**
   * Resolves when a round kept a block, when the rounds stopped without one (the hub out of
   * reach, or refusing), or after a bound, whichever comes first; at once when no round
   * runs and none is worth asking for.
   */
  waitForLease(): Promise<void>;
  /** Why the hub gives no ids, when the kiosk knows (the hub refusing its sync key). */
  reason(): string | undefined;
}

const isOutOfIds = (error: unknown): error is AnimalStoreError =>
  isAnimalStoreError(error) && error.code === 'storage_unavailable' && error.message === NO_IDS;

/**
 * The same storage, but a create refused because the kiosk has no leased id left waits for
 * the lease a round is asking the hub for and is tried once more: a kiosk that has just
 * started, or used its ids up in a flood, answers 201 a moment later rather than 503. A
 * create refused again carries `reason()` first, when there is one, so a client and the
 * operator reading its answer learn what to fix instead of only "try again". Nothing was
 * stored by the refused attempt, so trying again with the same Idempotency-Key is safe.
 * Everything else is the storage's own (reads, sync, health, close).
 */
export const retryCreatesWhenLeased = (storage: PetStorage, { waitForLease, reason }: LeaseWait): PetStorage => {
  const explain = (error: unknown): never => {
    const why = reason();
    if (why !== undefined && isOutOfIds(error)) {
      throw new AnimalStoreError('storage_unavailable', `${why} ${error.message}`, { headers: error.headers, cause: error });
    }
    throw error;
  };
  const afterLease = <T>(error: unknown, again: () => Promise<T>): Promise<T> => {
    if (!isOutOfIds(error)) throw error;
    return waitForLease().then(again).catch(explain);
  };
  // The storage's other members, getters and all, through the prototype.
  const retried: PetStorage = Object.create(storage);
  retried.create = (pet) => storage.create(pet).catch((error: unknown) => afterLease(error, () => storage.create(pet)));
  retried.createIdempotent = (pet, key) =>
    storage.createIdempotent(pet, key).catch((error: unknown) => afterLease(error, () => storage.createIdempotent(pet, key)));
  return retried;
};
