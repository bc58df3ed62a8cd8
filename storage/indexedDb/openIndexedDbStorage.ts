/**
 * @module A storage in the browser's IndexedDB: animals, Idempotency-Keys and sync state
 * kept durably on the device, for a kiosk in a service worker and for test apps. No Node import.
 */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage, StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { createArrivals } from '../../core/sync/createArrivals.js';
import type { SyncStorage } from '../../core/sync/SyncStorage.js';
import { IdempotencyKeys } from '../IdempotencyKeys.js';
import { KeySweep, type KeySweepOptions } from '../KeySweep.js';
import { PetIndex } from '../PetIndex.js';
import { LeaseUse } from '../sync/LeaseUse.js';
import {
  addKioskBlock,
  addLease,
  checkPush,
  copySyncState,
  countUnpushed,
  findUnpushed,
  joinedKiosk,
  markKioskPushed,
  type SyncState,
  takeId,
  takePulled,
} from '../sync/syncState.js';
import { holdDatabaseLock } from './holdDatabaseLock.js';
import { ALL_STORES, createLayout, KEYS, LAYOUT_VERSION, META, PETS } from './IndexedDbLayout.js';
import { committed, requestResult } from './idbRequests.js';

/** How to open an IndexedDB storage. */
export interface IndexedDbStorageOptions {
  /** The database's name; `animal-store` by default. One storage per name at a time. */
  name?: string;
  /** The animals a new (never written) database starts with, ascending ids; `reset` goes back to them. */
  seed?: readonly Pet[];
  /** The IndexedDB factory; `globalThis.indexedDB` by default (tests pass fake-indexeddb's). */
  indexedDB?: IDBFactory;
  /** How expired Idempotency-Keys are forgotten in memory (tests shorten it). */
  keySweep?: KeySweepOptions;
}

/** An IndexedDB storage, which can also go back to its seed (between tests, say). */
export interface IndexedDbStorage extends PetStorage {
  /** Replaces everything (animals, keys, sync state) with `pets` (the seed by default), durably. */
  reset(pets?: readonly Pet[]): Promise<void>;
  sync: SyncStorage;
}

/** What one write changes: appended animals and keys, and the new sync state and id counter. */
interface Change {
  pets?: Pet[];
  keys?: StoredIdempotencyKey[];
  sync?: SyncState;
  nextId?: number;
}

/** A browser's refusal of a write, as the service's 503, keeping the browser's error as its cause. */
const unavailable = (error: unknown): AnimalStoreError => {
  if (error instanceof AnimalStoreError) return error;
  const name = error instanceof DOMException ? error.name : '';
  const why =
    name === 'QuotaExceededError'
      ? "the browser's storage quota for this site is used up"
      : `the browser's IndexedDB refused the write (${error instanceof Error ? error.message || error.name : String(error)})`;
  return new AnimalStoreError('storage_unavailable', `The animal store could not write: ${why}. Nothing was stored.`, { cause: error });
};

const opened = (factory: IDBFactory, name: string): Promise<IDBDatabase> => {
  const request = factory.open(name, LAYOUT_VERSION);
  request.onupgradeneeded = () => createLayout(request.result);
  return requestResult(request);
};

/**
 * Opens (creating on first use) a catalogue in IndexedDB. Every animal is read into memory
 * once, so gets and pages answer from memory at once, as the memory storage does; every
 * write is one IndexedDB transaction with `durability: 'strict'` (Chrome's default became
 * "relaxed" in 121, where a commit is not yet on disk), and reaches memory only once it has
 * committed, so nothing a failed write tried is ever seen. Writes run one after another, in
 * the order made. One storage per database is open at a time in a browser (an exclusive Web
 * Lock, held until `close`): another opener waits for it, up to 10 s. A factory of the
 * caller's own (fake-indexeddb's, in Node) holds databases no other worker or tab sees, so
 * no lock is taken for it: Node 24 has Web Locks, and two such factories' databases of one
 * name are two catalogues.
 */
export const openIndexedDbStorage = async ({
  name = 'animal-store',
  seed = [],
  indexedDB = globalThis.indexedDB,
  keySweep,
}: IndexedDbStorageOptions = {}): Promise<IndexedDbStorage> => {
  if (indexedDB === undefined)
    throw new TypeError('This runtime has no IndexedDB: an IndexedDB storage runs in a browser or a service worker.');
  const release = indexedDB === globalThis.indexedDB ? await holdDatabaseLock(name) : () => {};
  const db = await opened(indexedDB, name).catch((error: unknown) => {
    release();
    throw unavailable(error);
  });
  let index = new PetIndex();
  let keys = new IdempotencyKeys();
  let sync: SyncState = { leases: [] };
  let nextId = 1;
  const leaseUse = new LeaseUse();
  const arrivals = createArrivals();
  const sweep = new KeySweep(
    (now, atMost) => keys.sweep(now, atMost),
    keySweep,
    () => keys.size === 0,
  );

  /** Reads the database into memory, dropping keys that have expired (from the database too). */
  const load = async () => {
    const transaction = db.transaction(ALL_STORES, 'readwrite');
    const done = committed(transaction);
    const [pets, metaSync, metaNextId] = await Promise.all([
      requestResult(transaction.objectStore(PETS).getAll() as IDBRequest<Pet[]>),
      requestResult(transaction.objectStore(META).get('sync') as IDBRequest<SyncState | undefined>),
      requestResult(transaction.objectStore(META).get('nextId') as IDBRequest<number | undefined>),
    ]);
    const live: StoredIdempotencyKey[] = [];
    const now = Date.now();
    await new Promise<void>((resolve, reject) => {
      const request = transaction.objectStore(KEYS).openCursor();
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const cursor = request.result;
        if (!cursor) return resolve();
        const key = cursor.value as StoredIdempotencyKey;
        if (key.expiresAt <= now) cursor.delete();
        else live.push(key);
        cursor.continue();
      };
    });
    await done;
    index = new PetIndex(pets);
    keys = new IdempotencyKeys(live);
    sync = metaSync ?? { leases: [] };
    nextId = Math.max(metaNextId ?? 1, index.lastId + 1);
    return metaSync !== undefined || pets.length > 0;
  };

  /** Makes `change` durable in one strict transaction, then shows it in memory. */
  const commit = async (change: Change) => {
    const transaction = db.transaction(ALL_STORES, 'readwrite', { durability: 'strict' });
    const done = committed(transaction);
    try {
      for (const pet of change.pets ?? []) transaction.objectStore(PETS).add(pet);
      for (const key of change.keys ?? []) transaction.objectStore(KEYS).add(key);
      if (change.sync) transaction.objectStore(META).put(change.sync, 'sync');
      if (change.nextId !== undefined) transaction.objectStore(META).put(change.nextId, 'nextId');
    } catch (error) {
      transaction.abort();
      await done.catch(() => {});
      throw unavailable(error);
    }
    await done.catch((error: unknown) => {
      throw unavailable(error);
    });
    for (const pet of change.pets ?? []) index.add(pet);
    for (const key of change.keys ?? []) keys.add(key);
    if (change.sync) sync = change.sync;
    if (change.nextId !== undefined) nextId = change.nextId;
    if ((change.pets?.length ?? 0) > 0) arrivals.notify();
  };

  /** Writes one at a time, in the order asked: each plans from what the ones before made. */
  let tail: Promise<unknown> = Promise.resolve();
  const serially = <T>(write: () => Promise<T>): Promise<T> => {
    const result = tail.then(write, write);
    tail = result.catch(() => {});
    return result;
  };

  /** Plans and commits one local create. */
  const create = async ({ name, categoryId, status }: NewPet, key?: StoredIdempotencyKey) => {
    const kiosk = sync.kiosk ? copySyncState(sync) : undefined;
    const id = takeId(kiosk?.kiosk, nextId, index);
    const pet: Pet = { id, name, categoryId, status };
    const stored = key && { ...key, petId: id };
    await commit({ pets: [pet], keys: stored ? [stored] : [], ...(kiosk ? { sync: kiosk } : {}), nextId: Math.max(nextId, id + 1) });
    return { pet: index.get(id)!, stored };
  };

  /** Replaces everything with `pets`, in one transaction. */
  const replaceAll = async (pets: readonly Pet[]) => {
    const transaction = db.transaction(ALL_STORES, 'readwrite', { durability: 'strict' });
    const done = committed(transaction);
    for (const store of ALL_STORES) transaction.objectStore(store).clear();
    for (const { id, name, categoryId, status } of pets) transaction.objectStore(PETS).add({ id, name, categoryId, status });
    transaction.objectStore(META).put({ leases: [] }, 'sync');
    await done.catch((error: unknown) => {
      throw unavailable(error);
    });
    await load();
  };

  try {
    if (!(await load()) && seed.length > 0) await replaceAll(seed);
  } catch (error) {
    db.close();
    release();
    throw unavailable(error);
  }

  return {
    create: (newPet) => serially(async () => (await create(newPet)).pet),
    createIdempotent: (newPet, key) =>
      serially(async () => {
        sweep.saw(key.createdAt);
        const found = keys.find(key);
        if (found) return { pet: index.get(found.petId)!, stored: found, replayed: true };
        const { pet, stored } = await create(newPet, { ...key, petId: 0 });
        return { pet, stored: stored!, replayed: false };
      }),
    get: (id) => index.get(id),
    list: (page) => index.list(page),
    sync: {
      lease: (scope, size) =>
        serially(async () => {
          const next = copySyncState(sync);
          const block = addLease(next, leaseUse, index, nextId, scope, size);
          await commit({ sync: next, nextId: block.last + 1 });
          return block;
        }),
      store: (scope, pushed) =>
        serially(async () => {
          const fresh = checkPush(sync, scope, index, pushed);
          const highest = fresh.reduce((high, pet) => Math.max(high, pet.id), index.lastId);
          if (fresh.length > 0) await commit({ pets: fresh, nextId: Math.max(nextId, highest + 1) });
          return { stored: fresh.length, present: pushed.length - fresh.length };
        }),
      onArrival: (listener) => arrivals.subscribe(listener),
      leasesOf: async (scope) => leaseUse.count(sync.leases, index, scope),
      kiosk: async () => sync.kiosk && structuredClone(sync.kiosk),
      join: (hub) =>
        serially(async () => {
          const next = copySyncState(sync);
          next.kiosk = joinedKiosk(next.kiosk, hub, index.size, 'The IndexedDB catalogue', sync.leases.length);
          if (sync.kiosk === undefined || next.kiosk.hub !== sync.kiosk.hub) await commit({ sync: next });
          return structuredClone(next.kiosk);
        }),
      addBlock: (block) =>
        serially(async () => {
          if (!sync.kiosk) return;
          const next = copySyncState(sync);
          if (addKioskBlock(next.kiosk!, block, index)) await commit({ sync: next });
        }),
      unpushed: async (limit) => findUnpushed(sync.kiosk, index, limit),
      waiting: async () => countUnpushed(sync.kiosk, index),
      markPushed: (through) =>
        serially(async () => {
          if (!sync.kiosk) return;
          const next = copySyncState(sync);
          if (markKioskPushed(next.kiosk, index, through)) await commit({ sync: next });
        }),
      insertPulled: (pulled, checkpoint) =>
        serially(async () => {
          const next = copySyncState(sync);
          const pets = takePulled(next.kiosk, index, pulled, checkpoint);
          await commit({ pets, sync: next });
          return pets.length;
        }),
    },
    reset: (pets = seed) => serially(() => replaceAll(pets)),
    async close() {
      sweep.stop();
      await tail;
      db.close();
      release();
    },
  };
};
