/** @module The kept JSON texts of animals: the same bytes as JSON.stringify, and never stale. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/index.js';
import { isFixedPet, keepForPet, pageText, petText, TEXTS_KEPT } from '../../../core/routing/petText.js';
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
    const kept = new Map<Pet, string>();
    const animals = Array.from({ length: TEXTS_KEPT + 3 }, (_, index) =>
      Object.freeze({ id: index + 1, name: 'Rex', categoryId: 1, status: 'available' as const }),
    );
    for (const animal of animals) keepForPet(kept, animal, 'text');
    expect(kept.size).toBe(TEXTS_KEPT);
    expect(kept.has(animals[2]!)).toBe(false);
    expect(kept.has(animals[3]!)).toBe(true);
    expect(kept.has(animals.at(-1)!)).toBe(true);
    keepForPet(kept, { id: 1, name: 'Live', categoryId: 1, status: 'sold' }, 'text');
    expect(kept.size).toBe(TEXTS_KEPT);
  });
});
