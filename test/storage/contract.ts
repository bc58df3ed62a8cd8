/** @module The storage contract: one suite every PetStorage must pass. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdempotencyKey, PetStorage } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';

/** Makes a fresh, empty storage for one test. */
export type StorageFactory = () => Promise<PetStorage>;

const rex: NewPet = { name: 'Rex', categoryId: 3, status: 'available' };

/** Creates animals one after another (so ids follow the order given). */
const createAll = async (storage: PetStorage, pets: NewPet[]) => {
  const created = [];
  for (const pet of pets) created.push(await storage.create(pet));
  return created;
};

/** Ten animals cycling through the statuses: ids 1–10, sold are 3, 6, 9. */
const tenPets = (): NewPet[] =>
  Array.from({ length: 10 }, (_, offset) => ({
    name: `Animal ${offset + 1}`,
    categoryId: offset + 1,
    status: (['available', 'pending', 'sold'] as const)[offset % 3]!,
  }));

const HOUR = 3_600_000;

/** An Idempotency-Key of the API key `scope`, arriving at `createdAt`, living a day. */
const keyOf = (key: string, { scope = 'a1b2c3d4e5f6', fingerprint = 'payload-1', createdAt = 1_700_000_000_000 } = {}): IdempotencyKey => ({
  scope,
  key,
  fingerprint,
  createdAt,
  expiresAt: createdAt + 24 * HOUR,
});

/** Registers the storage contract for one implementation. */
export const describeStorageContract = (name: string, createStorage: StorageFactory): void => {
  describe(`${name} (storage contract)`, () => {
    let storage: PetStorage;
    beforeEach(async () => {
      storage = await createStorage();
    });
    afterEach(async () => {
      await storage.close();
    });

    it('Should assign ids 1, 2, 3 in creation order and return the stored animal', async () => {
      const created = await createAll(storage, [rex, { name: 'Tom', categoryId: 9, status: 'sold' }, rex]);
      expect(created).toEqual([
        { id: 1, ...rex },
        { id: 2, name: 'Tom', categoryId: 9, status: 'sold' },
        { id: 3, ...rex },
      ]);
    });

    it('Should give concurrent creates distinct ids in the order they were made', async () => {
      const created = await Promise.all(tenPets().map((pet) => storage.create(pet)));
      expect(created.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(created.map((pet) => pet.name)).toEqual(tenPets().map((pet) => pet.name));
    });

    it('Should get an animal by id, and undefined for an id that names none', async () => {
      await createAll(storage, tenPets());
      expect(await storage.get(4)).toEqual({ id: 4, name: 'Animal 4', categoryId: 4, status: 'available' });
      expect(await storage.get(1)).toMatchObject({ id: 1 });
      expect(await storage.get(10)).toMatchObject({ id: 10 });
      for (const missing of [0, -1, 11, 1_000_000, Number.MAX_SAFE_INTEGER]) expect(await storage.get(missing)).toBeUndefined();
    });

    it('Should list in ascending id order, at most limit animals, after the given id', async () => {
      await createAll(storage, tenPets());
      expect((await storage.list({ after: 0, limit: 3 })).map((pet) => pet.id)).toEqual([1, 2, 3]);
      expect((await storage.list({ after: 3, limit: 3 })).map((pet) => pet.id)).toEqual([4, 5, 6]);
      expect((await storage.list({ after: 8, limit: 5 })).map((pet) => pet.id)).toEqual([9, 10]);
      expect(await storage.list({ after: 10, limit: 5 })).toEqual([]);
      expect((await storage.list({ after: 0, limit: 100 })).map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('Should list only animals of the given status, still in id order and after the given id', async () => {
      await createAll(storage, tenPets());
      expect((await storage.list({ after: 0, limit: 20, status: 'sold' })).map((pet) => pet.id)).toEqual([3, 6, 9]);
      expect((await storage.list({ after: 3, limit: 1, status: 'sold' })).map((pet) => pet.id)).toEqual([6]);
      expect((await storage.list({ after: 5, limit: 20, status: 'available' })).map((pet) => pet.id)).toEqual([7, 10]);
      expect((await storage.list({ after: 0, limit: 20, status: 'pending' })).every((pet) => pet.status === 'pending')).toBe(true);
    });

    it('Should list nothing from an empty storage', async () => {
      expect(await storage.list({ after: 0, limit: 20 })).toEqual([]);
      expect(await storage.list({ after: 0, limit: 20, status: 'sold' })).toEqual([]);
      expect(await storage.get(1)).toBeUndefined();
    });

    it('Should return frozen animals, so no caller can change what others see', async () => {
      const created = await storage.create(rex);
      const [listed] = await storage.list({ after: 0, limit: 1 });
      const got = await storage.get(created.id);
      for (const pet of [created, listed, got]) expect(Object.isFrozen(pet)).toBe(true);
      expect(() => {
        (created as { name: string }).name = 'Changed';
      }).toThrow(TypeError);
      expect((await storage.get(created.id))?.name).toBe('Rex');
    });

    it('Should hand out a fresh array per list, so changing it changes nothing stored', async () => {
      await createAll(storage, tenPets());
      const page = await storage.list({ after: 0, limit: 5 });
      page.length = 0;
      expect(await storage.list({ after: 0, limit: 5 })).toHaveLength(5);
    });

    it('Should keep the name exactly as sent', async () => {
      const name = '  Bébé 🐱 «Minou»  ';
      const created = await storage.create({ name, categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' });
      expect(await storage.get(created.id)).toEqual({ id: 1, name, categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' });
    });

    it('Should finish pending creates when closed', async () => {
      const pending = Promise.all(tenPets().map((pet) => storage.create(pet)));
      await storage.close();
      expect(await pending).toHaveLength(10);
    });

    it('Should create once per idempotency key and answer a repeat with the first animal and its key', async () => {
      const first = await storage.createIdempotent(rex, keyOf('k-1'));
      expect(first).toEqual({ pet: { id: 1, ...rex }, stored: { ...keyOf('k-1'), petId: 1 }, replayed: false });
      const repeat = await storage.createIdempotent(
        { ...rex, name: 'Other' },
        keyOf('k-1', { fingerprint: 'payload-2', createdAt: 1_700_000_000_000 + HOUR }),
      );
      expect(repeat).toEqual({ pet: { id: 1, ...rex }, stored: { ...keyOf('k-1'), petId: 1 }, replayed: true });
      expect(await storage.list({ after: 0, limit: 10 })).toEqual([{ id: 1, ...rex }]);
      expect((await storage.create(rex)).id).toBe(2);
    });

    it('Should keep the keys of different API keys apart', async () => {
      const mine = await storage.createIdempotent(rex, keyOf('same', { scope: 'aaaaaaaaaaaa' }));
      const theirs = await storage.createIdempotent(rex, keyOf('same', { scope: 'bbbbbbbbbbbb' }));
      expect([mine.pet.id, theirs.pet.id, mine.replayed, theirs.replayed]).toEqual([1, 2, false, false]);
    });

    it('Should treat a key as new once it has expired', async () => {
      await storage.createIdempotent(rex, keyOf('k-1'));
      const later = await storage.createIdempotent(rex, keyOf('k-1', { createdAt: 1_700_000_000_000 + 24 * HOUR }));
      expect(later).toMatchObject({ pet: { id: 2 }, replayed: false });
      const again = await storage.createIdempotent(rex, keyOf('k-1', { createdAt: 1_700_000_000_000 + 25 * HOUR }));
      expect(again).toMatchObject({ pet: { id: 2 }, replayed: true });
    });

    it('Should create once when requests with the same key arrive together', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => storage.createIdempotent(rex, keyOf('together'))));
      expect(new Set(results.map((result) => result.pet.id))).toEqual(new Set([1]));
      expect(results.filter((result) => !result.replayed)).toHaveLength(1);
      expect(await storage.list({ after: 0, limit: 10 })).toHaveLength(1);
    });

    it('Should give plain and keyed creates arriving together distinct ids in order', async () => {
      const created = await Promise.all(
        tenPets().map((pet, offset) =>
          offset % 2 === 0 ? storage.create(pet) : storage.createIdempotent(pet, keyOf(`k-${offset}`)).then((result) => result.pet),
        ),
      );
      expect(created.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });
  });
};
