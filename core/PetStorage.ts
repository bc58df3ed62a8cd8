/** @module The storage port: what the core needs from any place that keeps animals. */
import type { NewPet } from './schemas/NewPet.js';
import type { Pet } from './schemas/Pet.js';
import type { PetStatus } from './schemas/PetStatus.js';

/** Which slice of the catalogue to list: the next `limit` animals after id `after`. */
export interface PetPageRequest {
  /** List animals with an id greater than this (0 for the first page). */
  after: number;
  /** The most animals to return. */
  limit: number;
  /** Only animals with this status, when given. */
  status?: PetStatus | undefined;
}

/**
 * Keeps the animals. Implementations must list in ascending id order, in time proportional
 * to `limit` (not to the catalogue), and must resolve `create` only once the animal is as
 * durable as the storage promises. A miss is `undefined`, not an exception. Returned
 * animals are frozen: callers may share them but never change them.
 */
export interface PetStorage {
  /** Stores a validated NewPet, assigning the next id; resolves with the stored animal. */
  create(pet: NewPet): Promise<Pet>;
  /** The animal with this id, or `undefined`. */
  get(id: number): Promise<Pet | undefined>;
  /** Up to `limit` animals after `after`, in ascending id order, optionally of one status. */
  list(page: PetPageRequest): Promise<Pet[]>;
  /** Finishes pending writes and releases what the storage holds (files, locks). */
  close(): Promise<void>;
}
