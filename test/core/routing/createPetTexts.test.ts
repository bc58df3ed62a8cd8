/** @module The kept JSON texts of animals: the same bytes as JSON.stringify, and never stale. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/index.js';
import { createPetTexts } from '../../../core/routing/createPetTexts.js';
import { isFixedPet, KeptPerPet, TEXTS_KEPT } from '../../../core/routing/KeptPerPet.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';
import { makeService } from '../helpers.js';

const pet = fc.record({
  id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  // Any text: quotes, backslashes, controls, lone surrogates and all, as JSON.stringify escapes them.
  name: fc.string({ unit: 'binary', maxLength: 40 }),
  categoryId: fc.integer({ min: 1, max: 1_000_000 }),
  status: fc.constantFrom('available' as const, 'pending' as const, 'sold' as const),
});

describe('the kept text of animals', () => {
  it('is exactly JSON.stringify of the page, frozen animals or not, asked once or again', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(pet, fc.boolean()), { maxLength: 30 }), (drawn) => {
        const { pageText, petText } = createPetTexts();
        const pets: Pet[] = drawn.map(([animal, frozen]) => (frozen ? Object.freeze(animal) : animal));
        // Only a page of fixed animals (frozen plain objects) may be kept.
        const page = { text: JSON.stringify(pets), fixed: pets.every(isFixedPet) };
        expect(pageText(pets)).toEqual(page);
        expect(pageText(pets)).toEqual(page);
        for (const animal of pets) expect(petText(animal)).toBe(JSON.stringify(animal));
      }),
    );
  });

  it('follows an animal that is not frozen when it changes', () => {
    const { pageText, petText } = createPetTexts();
    const animal: Pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
    expect(petText(animal)).toBe(JSON.stringify(animal));
    animal.name = 'Luna';
    expect(petText(animal)).toContain('"Luna"');
    expect(pageText([animal])).toEqual({ text: JSON.stringify([animal]), fixed: false });
  });

  it('keeps pages and getPet current through creates, byte for byte what the storage holds', async () => {
    const { call, seed, storage } = makeService({ storage: createMemoryStorage() });
    await seed([{ name: 'A', categoryId: 1 }]);
    const first = await call('/v1/pets?limit=2');
    expect(await first.text()).toBe(JSON.stringify(await storage.list({ after: 0, limit: 2 })));
    await seed([{ name: 'B "the second"', categoryId: 2, status: 'sold' }]);
    const second = await call('/v1/pets?limit=2');
    const text = await second.text();
    expect(text).toBe(JSON.stringify(await storage.list({ after: 0, limit: 2 })));
    expect(JSON.parse(text)).toHaveLength(2);
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(await (await call('/v1/pets/2')).text()).toBe(JSON.stringify(await storage.get(2)));
  });

  it('answers the current animal when a storage hands over objects that change', async () => {
    // A storage may hand over live objects (not frozen): nothing about them may be kept.
    const live: Pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
    const base = createMemoryStorage();
    const { call } = makeService({
      storage: { ...base, get: (id) => (id === 1 ? live : undefined), list: async () => [live] },
    });
    const before = await call('/v1/pets/1');
    expect(await before.json()).toEqual({ ...live });
    live.status = 'sold';
    const after = await call('/v1/pets/1');
    expect(await after.json()).toMatchObject({ status: 'sold' });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(await (await call('/v1/pets')).json()).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }]);
  });

  it('keeps at most TEXTS_KEPT animals, dropping the oldest, and nothing of an animal that is not frozen', () => {
    const kept = new KeptPerPet<string>();
    const animals = Array.from({ length: TEXTS_KEPT + 3 }, (_, index) =>
      Object.freeze({ id: index + 1, name: 'Rex', categoryId: 1, status: 'available' as const }),
    );
    for (const animal of animals) kept.keep(animal, 'text');
    expect(kept.size).toBe(TEXTS_KEPT);
    expect(kept.get(animals[2]!)).toBeUndefined();
    expect(kept.get(animals[3]!)).toBe('text');
    expect(kept.get(animals.at(-1)!)).toBe('text');
    kept.keep({ id: 1, name: 'Live', categoryId: 1, status: 'sold' }, 'text');
    expect(kept.size).toBe(TEXTS_KEPT);
  });

  it('belongs to its service: two services in one process share none, and it goes when its service goes', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const other = makeService();
    await other.seed([{ name: 'Other', categoryId: 1 }]);
    /** Serves an animal from a second service every way that keeps something of it, then drops that service. */
    const servedAndDropped = async () => {
      const { call, seed, storage } = makeService();
      await seed([{ name: 'Kept', categoryId: 1 }]);
      for (const path of ['/v1/pets', '/v1/pets', '/v1/pets', '/v1/pets/1', '/v1/pets/1', '/v1/pets?status=available']) {
        expect((await call(path)).status).toBe(200);
      }
      const animal = await storage.get(1);
      expect(animal?.name).toBe('Kept');
      await storage.close();
      return new WeakRef(animal!);
    };
    const dropped = await servedAndDropped();
    // The other service, still serving, holds nothing of what the dropped one kept.
    expect(await (await other.call('/v1/pets/1')).json()).toMatchObject({ name: 'Other' });
    for (let round = 0; round < 10 && dropped.deref() !== undefined; round++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    expect(dropped.deref()).toBeUndefined();
    expect((await other.call('/v1/pets')).status).toBe(200);
  });
});
