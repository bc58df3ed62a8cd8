/** @module The in-process catalogue, as the package root exports it: no HTTP, same types and errors. */
import { describe, expect, it } from 'vitest';
import { AnimalStoreError, createCatalogue, createMemoryStorage, createPetService, isAnimalStoreError } from '../../adapters/index.js';

/** Expects a promise to fail with an AnimalStoreError and answers it. */
const failureOf = async (promise: Promise<unknown>): Promise<AnimalStoreError> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(isAnimalStoreError(error)).toBe(true);
  return error as AnimalStoreError;
};

describe('createCatalogue from the package root', () => {
  it('creates, lists page by page and gets animals', async () => {
    const catalogue = createCatalogue({ storage: createMemoryStorage() });
    for (const name of ['A', 'B', 'C']) await catalogue.createPet({ name, categoryId: 1, status: name === 'B' ? 'sold' : undefined });
    const first = await catalogue.listPets({ limit: 2 });
    expect(first.pets.map((pet) => pet.name)).toEqual(['A', 'B']);
    const second = await catalogue.listPets({ limit: 2, cursor: first.next!.cursor });
    expect(second).toEqual({ pets: [{ id: 3, name: 'C', categoryId: 1, status: 'available' }] });
    const pages: string[][] = [];
    for await (const page of catalogue.pages({ limit: 1, status: 'available' })) pages.push(page.map((pet) => pet.name));
    expect(pages).toEqual([['A'], ['C']]);
    expect(await catalogue.getPet(2)).toEqual({ id: 2, name: 'B', categoryId: 1, status: 'sold' });
  });

  it('fails with the same codes as HTTP, as a typed error with details', async () => {
    const catalogue = createCatalogue({ storage: createMemoryStorage() });
    const invalid = await failureOf(catalogue.createPet({ name: ' ', categoryId: 1.5 }));
    expect(invalid).toBeInstanceOf(AnimalStoreError);
    expect(invalid).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(invalid.details?.map((detail) => detail.path)).toEqual(['name', 'categoryId']);
    expect(await failureOf(catalogue.getPet(9))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await failureOf(catalogue.listPets({ limit: 0 }))).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'limit', message: expect.any(String) }],
    });
    expect(await failureOf(catalogue.listPets({ cursor: 'made-up' }))).toMatchObject({ code: 'validation_failed' });
  });

  it('is the same catalogue the HTTP handler serves', async () => {
    const service = createPetService({ storage: createMemoryStorage(), keys: ['test-key-0123456789'] });
    await service.catalogue.createPet({ name: 'Rex', categoryId: 1 });
    const response = await service(new Request('http://in.process/v1/pets', { headers: { authorization: 'Bearer test-key-0123456789' } }));
    expect(await response.json()).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
  });
});
