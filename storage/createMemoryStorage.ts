/** @module A storage that keeps animals in memory only: for tests, kiosks and fetch runtimes. */
import type { PetStorage } from '../core/PetStorage.js';
import type { NewPet } from '../core/schemas/NewPet.js';
import type { Pet } from '../core/schemas/Pet.js';
import type { SyncStorage } from '../core/sync/SyncStorage.js';
import { IdempotencyKeys } from './IdempotencyKeys.js';
import { PetIndex } from './PetIndex.js';
import {
  addKioskBlock,
  checkPush,
  countUnpushed,
  findUnpushed,
  joinedKiosk,
  markKioskPushed,
  type SyncState,
  takeKioskId,
} from './sync/syncState.js';

/** A memory storage, which can also be emptied (between tests, say). */
export interface MemoryStorage extends PetStorage {
  /** Forgets every animal, Idempotency-Key and sync state; ids start again at 1. */
  clear(): void;
  sync: SyncStorage;
}

/**
 * Creates a storage held in memory: fast, and gone when the process ends. `pets` seeds it
 * (ascending ids, already valid); new animals continue after the highest seeded id. It can
 * be a hub, or a kiosk that forgets everything when it stops.
 */
export const createMemoryStorage = (pets: Iterable<Pet> = []): MemoryStorage => {
  let index = new PetIndex(pets);
  let keys = new IdempotencyKeys();
  let sync: SyncState = { leases: [] };
  /** The id the next local create gets on a catalogue that is not a kiosk: above every id held or leased. */
  let nextId = index.lastId + 1;
  const create = ({ name, categoryId, status }: NewPet): Pet => {
    const id = sync.kiosk ? takeKioskId(sync.kiosk) : Math.max(nextId, index.lastId + 1);
    const pet: Pet = { id, name, categoryId, status };
    index.add(pet);
    nextId = Math.max(nextId, id + 1);
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
    sync: {
      async lease(scope, size) {
        const first = Math.max(nextId, index.lastId + 1);
        const lease = { scope, first, last: first + size - 1 };
        sync.leases.push(lease);
        nextId = lease.last + 1;
        return { first: lease.first, last: lease.last };
      },
      async store(scope, pushed) {
        const fresh = checkPush(sync.leases, scope, index, pushed);
        for (const pet of fresh) index.add(pet);
        nextId = Math.max(nextId, index.lastId + 1);
        return { stored: fresh.length, present: pushed.length - fresh.length };
      },
      async kiosk() {
        return sync.kiosk && structuredClone(sync.kiosk);
      },
      async join(hub) {
        sync.kiosk = joinedKiosk(sync.kiosk, hub, index.size, 'The memory storage');
        return structuredClone(sync.kiosk);
      },
      async addBlock(block) {
        if (sync.kiosk) addKioskBlock(sync.kiosk, block);
      },
      async unpushed(limit) {
        return sync.kiosk ? findUnpushed(sync.kiosk, index, limit) : { pets: [], through: 0 };
      },
      async waiting() {
        return sync.kiosk ? countUnpushed(sync.kiosk, index) : 0;
      },
      async markPushed(through) {
        if (sync.kiosk) markKioskPushed(sync.kiosk, index, through);
      },
      async insertPulled(pulled, checkpoint) {
        let fresh = 0;
        for (const { id, name, categoryId, status } of pulled) {
          if (index.has(id)) continue;
          index.add({ id, name, categoryId, status });
          fresh++;
        }
        if (sync.kiosk) sync.kiosk.checkpoint = checkpoint;
        return fresh;
      },
    },
    clear() {
      index = new PetIndex();
      keys = new IdempotencyKeys();
      sync = { leases: [] };
      nextId = 1;
    },
    async close() {},
  };
};
