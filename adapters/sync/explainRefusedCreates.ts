/** @module A kiosk's storage whose creates, refused for want of leased ids, say why the hub gives none. */
import { AnimalStoreError, isAnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage } from '../../core/PetStorage.js';
import { NO_IDS } from '../../storage/sync/syncState.js';

/**
 * The same storage, but a create refused because the kiosk has no leased id left carries
 * `reason()` first, when there is one (the hub refusing the kiosk's sync key): a client, and
 * the operator reading its answer, learn what to fix instead of only "try again". Everything
 * else is the storage's own (reads, sync, health, close).
 */
export const explainRefusedCreates = (storage: PetStorage, reason: () => string | undefined): PetStorage => {
  const explain = (error: unknown): never => {
    const why = reason();
    if (why !== undefined && isAnimalStoreError(error) && error.code === 'storage_unavailable' && error.message === NO_IDS) {
      throw new AnimalStoreError('storage_unavailable', `${why} ${NO_IDS}`, { headers: error.headers, cause: error });
    }
    throw error;
  };
  // The storage's other members, getters and all, through the prototype.
  const explained: PetStorage = Object.create(storage);
  explained.create = (pet) => storage.create(pet).catch(explain);
  explained.createIdempotent = (pet, key) => storage.createIdempotent(pet, key).catch(explain);
  return explained;
};
