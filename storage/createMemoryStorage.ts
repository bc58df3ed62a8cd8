/** @module A storage that keeps animals in memory only: for tests, kiosks and fetch runtimes. */
import type { PetStorage } from '../core/PetStorage.js';
import type { NewPet } from '../core/schemas/NewPet.js';
import type { Pet } from '../core/schemas/Pet.js';
import { IdempotencyKeys } from './IdempotencyKeys.js';
import { PetIndex } from './PetIndex.js';

/** A memory storage, which can also be emptied (between tests, say). */
export interface MemoryStorage extends PetStorage {
  /** Forgets every animal and Idempotency-Key; ids start again at 1. */
  clear(): void;
}

/**
 * Creates a storage held in memory: fast, and gone when the process ends. `pets` seeds it
 * (ascending ids, already valid); new animals continue after the highest seeded id.
 */
export const createMemoryStorage = (pets: Iterable<Pet> = []): MemoryStorage => {
  let index = new PetIndex(pets);
  let keys = new IdempotencyKeys();
  const create = ({ name, categoryId, status }: NewPet): Pet => {
    const pet: Pet = { id: index.lastId + 1, name, categoryId, status };
    index.add(pet);
    return pet;
  };
  return {
    async create(newPet) {
      return create(newPet);
    },
    async createIdempotent(newPet, key) {
      const found = keys.find(key);
      if (found) return { pet: index.get(found.petId)!, stored: found, replayed: true };
      const pet = create(newPet);
      const stored = { ...key, petId: pet.id };
      keys.add(stored);
      return { pet, stored, replayed: false };
    },
    get(id) {
      return index.get(id);
    },
    async list(page) {
      return index.list(page);
    },
    clear() {
      index = new PetIndex();
      keys = new IdempotencyKeys();
    },
    async close() {},
  };
};
