/** @module A storage that keeps animals in memory only: for tests, kiosks and fetch runtimes. */
import { AnimalStoreError } from '../core/AnimalStoreError.js';
import type { PetStorage } from '../core/PetStorage.js';
import type { NewPet } from '../core/schemas/NewPet.js';
import type { Pet } from '../core/schemas/Pet.js';
import { createArrivals } from '../core/sync/createArrivals.js';
import type { SyncStorage } from '../core/sync/SyncStorage.js';
import { IdempotencyKeys } from './IdempotencyKeys.js';
import { KeySweep, type KeySweepOptions } from './KeySweep.js';
import { PetIndex } from './PetIndex.js';
import { LeaseUse } from './sync/LeaseUse.js';
import {
  addKioskBlock,
  addLease,
  checkPush,
  countUnpushed,
  findUnpushed,
  joinedKiosk,
  markKioskPushed,
  type SyncState,
  takeId,
  takePulled,
} from './sync/syncState.js';

/** A memory storage, which can also be emptied (between tests, say). */
export interface MemoryStorage extends PetStorage {
  /** Forgets every animal, Idempotency-Key and sync state; ids start again at 1. */
  clear(): void;
  sync: SyncStorage;
}

/**
 * The most animals plus live Idempotency-Keys a memory storage holds by default: about
 * 1.2 GB of heap at the largest names, inside Node's default heap on a 64-bit machine
 * (docs/bounds.md has the figures).
 */
export const DEFAULT_MEMORY_LIMIT = 2_000_000;

/**
 * The highest limit taken: one API key's live Idempotency-Keys are found through one
 * JavaScript Map, which holds at most 2^24 (16.7 million) entries.
 */
export const MAX_MEMORY_LIMIT = 16_000_000;

/** How a memory storage is bounded. */
export interface MemoryStorageOptions {
  /**
   * The most animals plus live Idempotency-Keys it holds (`--memory-limit`): past it, creates
   * are refused with 503 `storage_unavailable` saying the store is full, instead of the
   * process running out of memory and losing everything. 2,000,000 by default, 16,000,000 at most.
   */
  limit?: number;
  /** How expired Idempotency-Keys are forgotten (tests shorten it). */
  keySweep?: KeySweepOptions;
}

/** How long a client is asked to wait when the store is full: keys expire, animals never leave. */
const FULL_RETRY_AFTER_SECONDS = 60;

const full = (limit: number) =>
  new AnimalStoreError(
    'storage_unavailable',
    `The store is full: it holds its limit of ${limit} animals and Idempotency-Keys in memory, so the animal was not stored. Try again later, once keys have expired, or ask the operator to raise --memory-limit or move to a data file or database.`,
    { headers: { 'retry-after': String(FULL_RETRY_AFTER_SECONDS) } },
  );

/**
 * Creates a storage held in memory: fast, and gone when the process ends. `pets` seeds it
 * (ascending ids, already valid); new animals continue after the highest seeded id. It holds
 * at most `limit` animals and keys, however they arrive (created, pushed by a kiosk, pulled
 * from a hub); expired keys are forgotten by a timer, a bounded number per tick, stopped by
 * `close`. It can be a hub, or a kiosk that forgets everything when it stops.
 */
export const createMemoryStorage = (
  pets: Iterable<Pet> = [],
  { limit = DEFAULT_MEMORY_LIMIT, keySweep }: MemoryStorageOptions = {},
): MemoryStorage => {
  if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_MEMORY_LIMIT)) {
    throw new TypeError(`A memory storage's limit must be a whole number from 1 to ${MAX_MEMORY_LIMIT}, not ${limit}.`);
  }
  let index = new PetIndex(pets);
  let keys = new IdempotencyKeys();
  const sweep = new KeySweep(
    (now, atMost) => keys.sweep(now, atMost),
    keySweep,
    () => keys.size === 0,
  );
  /** Refuses `entries` more animals and keys past the limit. */
  const makeRoom = (entries: number) => {
    if (index.size + keys.size + entries > limit) throw full(limit);
  };
  let sync: SyncState = { leases: [] };
  const leaseUse = new LeaseUse();
  const arrivals = createArrivals();
  /** The id the next local create gets on a catalogue that is not a kiosk: above every id held or leased. */
  let nextId = index.lastId + 1;
  const create = ({ name, categoryId, status }: NewPet, withKey: boolean): Pet => {
    // A keyed create holds two entries: the animal and its key.
    makeRoom(withKey ? 2 : 1);
    const id = takeId(sync.kiosk, nextId, index);
    const pet: Pet = { id, name, categoryId, status };
    index.add(pet);
    nextId = Math.max(nextId, id + 1);
    arrivals.notify();
    return pet;
  };
  return {
    async create(newPet) {
      return create(newPet, false);
    },
    async createIdempotent(newPet, key) {
      sweep.saw(key.createdAt);
      const found = keys.find(key);
      if (found) return { pet: index.get(found.petId)!, stored: found, replayed: true };
      const pet = create(newPet, true);
      const stored = { ...key, petId: pet.id };
      keys.add(stored);
      return { pet, stored, replayed: false };
    },
    get(id) {
      return index.get(id);
    },
    list(page) {
      return index.list(page);
    },
    sync: {
      async lease(scope, size) {
        const block = addLease(sync, leaseUse, index, nextId, scope, size);
        nextId = block.last + 1;
        return block;
      },
      async store(scope, pushed) {
        const fresh = checkPush(sync, scope, index, pushed);
        makeRoom(fresh.length);
        for (const pet of fresh) index.add(pet);
        nextId = Math.max(nextId, index.lastId + 1);
        if (fresh.length > 0) arrivals.notify();
        return { stored: fresh.length, present: pushed.length - fresh.length };
      },
      onArrival: (listener) => arrivals.subscribe(listener),
      async leasesOf(scope) {
        return leaseUse.count(sync.leases, index, scope);
      },
      async kiosk() {
        return sync.kiosk && structuredClone(sync.kiosk);
      },
      async join(hub) {
        sync.kiosk = joinedKiosk(sync.kiosk, hub, index.size, 'The memory storage', sync.leases.length);
        return structuredClone(sync.kiosk);
      },
      async addBlock(block) {
        if (sync.kiosk) addKioskBlock(sync.kiosk, block, index);
      },
      async unpushed(limit) {
        return findUnpushed(sync.kiosk, index, limit);
      },
      async waiting() {
        return countUnpushed(sync.kiosk, index);
      },
      async markPushed(through) {
        markKioskPushed(sync.kiosk, index, through);
      },
      async insertPulled(pulled, checkpoint) {
        // A copy, kept only once the animals are: a full store refuses them after the checks.
        const kiosk = sync.kiosk && structuredClone(sync.kiosk);
        const pets = takePulled(kiosk, index, pulled, checkpoint);
        makeRoom(pets.length);
        for (const pet of pets) index.add(pet);
        if (kiosk) sync.kiosk = kiosk;
        if (pets.length > 0) arrivals.notify();
        return pets.length;
      },
    },
    clear() {
      index = new PetIndex();
      keys = new IdempotencyKeys();
      sync = { leases: [] };
      nextId = 1;
    },
    async close() {
      sweep.stop();
    },
  };
};
