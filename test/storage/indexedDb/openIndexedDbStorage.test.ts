/**
 * @module The IndexedDB storage on fake-indexeddb (the browser's own is tested in Chromium by
 * test/adapters/browser/*.system.test.ts): the storage and sync contracts, reopening, the seed,
 * and a refused write storing nothing.
 */
import { IDBFactory, IDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnimalStoreError } from '../../../core/AnimalStoreError.js';
import type { PetStorage } from '../../../core/PetStorage.js';
import { type IndexedDbStorage, openIndexedDbStorage } from '../../../storage/indexedDb/openIndexedDbStorage.js';
import { describeStorageContract } from '../contract.js';
import { describeSyncContract, type SyncStorageFactory } from '../syncContract.js';
import { describeSyncProperties, type SyncPropertyFactory } from '../syncProperty.js';

/** The factory each storage was opened on, so `reopen` finds the same database. */
const factories = new WeakMap<PetStorage, IDBFactory>();

/** Opens the storage of `indexedDB`'s database, remembering the factory for `reopen`. */
const openOn = async (indexedDB: IDBFactory): Promise<IndexedDbStorage> => {
  const storage = await openIndexedDbStorage({ indexedDB });
  factories.set(storage, indexedDB);
  return storage;
};

/** Fresh storages, each on a factory of its own; `reopen` closes one and opens its database again. */
const storages = {
  create: () => openOn(new IDBFactory()),
  async reopen(storage: PetStorage) {
    await storage.close();
    return openOn(factories.get(storage)!);
  },
} satisfies SyncStorageFactory & SyncPropertyFactory;

describeStorageContract('IndexedDB storage', storages.create);

describeSyncContract('IndexedDB storage', storages);

const rex = { name: 'Rex', categoryId: 3, status: 'available' as const };

/**
 * Web Locks as browsers and Node 24 have them, for Node 20: one holder of a name at a time,
 * the others granted it in turn once the holder's callback settles, or refused when their
 * signal aborts first.
 */
const exclusiveLocks = () => {
  const tails = new Map<string, Promise<unknown>>();
  return {
    request(name: string, { signal }: { signal?: AbortSignal }, callback: () => Promise<unknown>) {
      const before = tails.get(name) ?? Promise.resolve();
      let aborted = false;
      const granted = new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => {
          aborted = true;
          reject(signal.reason);
        });
        void before.then(() => resolve());
      });
      const held = granted.then(() => (aborted ? undefined : callback()));
      tails.set(
        name,
        before.then(() => held).catch(() => {}),
      );
      return held;
    },
  };
};

describe('IndexedDB storage where Web Locks exist', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("Should open storages on factories of their own side by side: their databases are no other worker's", async () => {
    vi.stubGlobal('navigator', { locks: exclusiveLocks() });
    const first = await openIndexedDbStorage({ indexedDB: new IDBFactory() });
    const second = await openIndexedDbStorage({ indexedDB: new IDBFactory() });
    expect((await first.create(rex)).id).toBe(1);
    expect((await second.create(rex)).id).toBe(1);
    await Promise.all([first.close(), second.close()]);
  });

  it("Should let one storage at a time hold the environment's own database, the next opening once it closes", async () => {
    vi.stubGlobal('navigator', { locks: exclusiveLocks() });
    vi.stubGlobal('indexedDB', new IDBFactory());
    const first = await openIndexedDbStorage();
    await first.create(rex);
    let secondOpened = false;
    const second = openIndexedDbStorage().then((storage) => {
      secondOpened = true;
      return storage;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(secondOpened).toBe(false);
    await first.close();
    const reopened = await second;
    expect(await reopened.list({ after: 0, limit: 10 })).toEqual([{ id: 1, ...rex }]);
    await reopened.close();
  });
});

describe('IndexedDB storage syncing, whatever it is sent', () => {
  describeSyncProperties('IndexedDB storage', storages, 60);
});

const seed = [
  { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' as const },
  { id: 5, name: 'Mochi', categoryId: 2, status: 'sold' as const },
];

describe('IndexedDB storage', () => {
  const opened: PetStorage[] = [];
  const open = async (options: Parameters<typeof openIndexedDbStorage>[0]) => {
    const storage = await openIndexedDbStorage(options);
    opened.push(storage);
    return storage;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((storage) => storage.close()));
  });

  it('Should keep every created animal and Idempotency-Key across a reopen, in arrival order', async () => {
    const indexedDB = new IDBFactory();
    const first = await openIndexedDbStorage({ indexedDB });
    await first.create({ name: 'Rex', categoryId: 3, status: 'available' });
    const key = { scope: 'scope-1', key: 'k-1', fingerprint: 'f', createdAt: Date.now(), expiresAt: Date.now() + 60_000 };
    const keyed = await first.createIdempotent({ name: 'Tom', categoryId: 4, status: 'sold' }, key);
    await first.close();
    const again = await open({ indexedDB });
    expect(await again.list({ after: 0, limit: 10 })).toEqual([
      { id: 1, name: 'Rex', categoryId: 3, status: 'available' },
      { id: 2, name: 'Tom', categoryId: 4, status: 'sold' },
    ]);
    const replay = await again.createIdempotent({ name: 'Tom', categoryId: 4, status: 'sold' }, key);
    expect(replay).toMatchObject({ replayed: true, pet: keyed.pet });
    expect((await again.create({ name: 'Next', categoryId: 1, status: 'pending' })).id).toBe(3);
  });

  it('Should start a new database from the seed, continue after its highest id, and reset back to it', async () => {
    const indexedDB = new IDBFactory();
    const storage = await open({ indexedDB, seed });
    expect((await storage.create({ name: 'Rex', categoryId: 3, status: 'available' })).id).toBe(6);
    const reopened = await openIndexedDbStorage({ indexedDB, seed: [] });
    // The seed is for a new database only: a reopened one keeps what it holds.
    expect((await reopened.list({ after: 0, limit: 10 })).map(({ id }) => id)).toEqual([1, 5, 6]);
    await reopened.close();
    await (storage as IndexedDbStorage).reset();
    expect(await storage.list({ after: 0, limit: 10 })).toEqual(seed);
    expect((await storage.create({ name: 'Again', categoryId: 3, status: 'available' })).id).toBe(6);
  });

  it('Should answer a write the browser refuses (quota used up) with storage_unavailable, and keep nothing of it', async () => {
    const indexedDB = new IDBFactory();
    const storage = await open({ indexedDB });
    await storage.create({ name: 'Kept', categoryId: 1, status: 'available' });
    // fake-indexeddb has no quota: its stores refuse this one write as a browser over quota does.
    const add = IDBObjectStore.prototype.add;
    IDBObjectStore.prototype.add = function refuse() {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
    try {
      const refused = storage.create({ name: 'Lost', categoryId: 1, status: 'available' });
      await expect(refused).rejects.toBeInstanceOf(AnimalStoreError);
      await expect(refused).rejects.toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/quota/) });
    } finally {
      IDBObjectStore.prototype.add = add;
    }
    expect((await storage.list({ after: 0, limit: 10 })).map(({ name }) => name)).toEqual(['Kept']);
    expect((await storage.create({ name: 'After', categoryId: 1, status: 'available' })).id).toBe(2);
    await storage.close();
    const again = await open({ indexedDB });
    expect((await again.list({ after: 0, limit: 10 })).map(({ name }) => name)).toEqual(['Kept', 'After']);
  });
});
