/** @module The helpers for test apps: seeding, reset, and injected latency and failures. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestCatalogue, loadSeedFile } from '../../../adapters/testing.js';
import { createClient } from '../../../core/client.js';
import { isAnimalStoreError } from '../../../core/index.js';
import { tempFolder } from '../../support/tempFolder.js';

const SEED = [
  { name: 'Rex', categoryId: 1 },
  { name: 'Tom', categoryId: 2, status: 'sold' as const },
];

/** Expects a promise to reject and answers the reason. */
const rejectionOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (reason: unknown) => reason,
  );

describe('createTestCatalogue', () => {
  it('starts from new animals given ids 1, 2, … in order, over HTTP and in-process alike', async () => {
    const pets = createTestCatalogue({ seed: SEED });
    expect((await pets.catalogue.listPets()).pets).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 2, name: 'Tom', categoryId: 2, status: 'sold' },
    ]);
    const response = await pets.fetch('/v1/pets?status=sold', { headers: { authorization: `Bearer ${pets.apiKey}` } });
    expect(await response.json()).toEqual([{ id: 2, name: 'Tom', categoryId: 2, status: 'sold' }]);
  });

  it('drives the typed client without a socket', async () => {
    const pets = createTestCatalogue({ seed: SEED, keys: ['app-key'] });
    const client = createClient({ baseUrl: pets.baseUrl, apiKey: pets.apiKey, fetch: pets.fetch });
    expect(pets.apiKey).toBe('app-key');
    expect((await client.createPet({ name: 'Kit', categoryId: 3 })).id).toBe(3);
  });

  it('returns to the seed on reset, ids included', async () => {
    const pets = createTestCatalogue({ seed: SEED });
    await pets.catalogue.createPet({ name: 'Kit', categoryId: 3 });
    pets.reset();
    expect((await pets.catalogue.listPets()).pets.map((pet) => pet.name)).toEqual(['Rex', 'Tom']);
    expect((await pets.catalogue.createPet({ name: 'Kit', categoryId: 3 })).id).toBe(3);
  });

  it('keeps the ids of seeded animals that have them', async () => {
    const pets = createTestCatalogue({ seed: [{ id: 5, name: 'Rex', categoryId: 1, status: 'available' }] });
    expect((await pets.catalogue.getPet(5)).name).toBe('Rex');
    expect((await pets.catalogue.createPet({ name: 'Kit', categoryId: 1 })).id).toBe(6);
  });

  it('refuses an invalid seed, naming the entry and the field', () => {
    expect(() =>
      createTestCatalogue({
        seed: [
          { name: 'Rex', categoryId: 1 },
          { name: 'Tom', categoryId: -1 },
        ],
      }),
    ).toThrow(/The seed at \[1\] is not valid: categoryId must be a positive integer/);
    expect(() => createTestCatalogue({ seed: [{ name: 'Rex', categoryId: 1, colour: 'red' } as never] })).toThrow(
      /colour is not a known field/,
    );
    expect(() =>
      createTestCatalogue({
        seed: [
          { id: 1, name: 'Rex', categoryId: 1 },
          { name: 'Tom', categoryId: 1 },
        ] as never,
      }),
    ).toThrow(/every animal an id, or none/);
  });
});

describe('injected faults', () => {
  it('fails a chosen operation with a chosen code, over HTTP and in-process', async () => {
    const pets = createTestCatalogue({ seed: SEED });
    pets.inject({ operation: 'listPets', error: 'storage_unavailable' });
    const response = await pets.fetch('/v1/pets', { headers: { authorization: `Bearer ${pets.apiKey}` } });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('storage_unavailable');
    const error = await rejectionOf(pets.catalogue.listPets());
    expect(isAnimalStoreError(error) && error.code).toBe('storage_unavailable');
    // Other operations are untouched.
    expect((await pets.catalogue.getPet(1)).name).toBe('Rex');
  });

  it('stores nothing when createPet is failed', async () => {
    const pets = createTestCatalogue({ seed: SEED });
    pets.inject({ operation: 'createPet', error: 'internal_error', times: 1 });
    const error = await rejectionOf(pets.catalogue.createPet({ name: 'Kit', categoryId: 3 }));
    expect(isAnimalStoreError(error) && error.status).toBe(500);
    expect((await pets.catalogue.listPets()).pets).toHaveLength(2);
    // `times: 1` spent, the next create goes through.
    expect((await pets.catalogue.createPet({ name: 'Kit', categoryId: 3 })).id).toBe(3);
  });

  it('does not log injected failures as errors', async () => {
    const logged: unknown[] = [];
    const pets = createTestCatalogue({ seed: SEED, logger: { warn: () => {}, error: (_message, error) => logged.push(error) } });
    pets.inject({ operation: 'getPet', error: 'internal_error' });
    const response = await pets.fetch('/v1/pets/1', { headers: { authorization: `Bearer ${pets.apiKey}` } });
    expect(response.status).toBe(500);
    expect(logged).toEqual([]);
  });

  it("prints nothing into the test's output when a fault is spent; the warning goes to a logger given for it", async () => {
    /** A create over HTTP, as an app under test sends it: its failures and recoveries pass the service's log. */
    const create = (pets: ReturnType<typeof createTestCatalogue>) =>
      pets.fetch('/v1/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${pets.apiKey}`, 'content-type': 'application/json' },
        body: '{"name":"Kit","categoryId":3}',
      });
    const printed = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'error'), vi.spyOn(console, 'log'), vi.spyOn(console, 'info')];
    try {
      const pets = createTestCatalogue({ seed: SEED });
      pets.inject({ operation: 'createPet', error: 'storage_unavailable', times: 1 });
      expect((await create(pets)).status).toBe(503);
      expect((await create(pets)).status).toBe(201);
      // The deprecated getPet's first use warns in a service; not here.
      expect((await pets.fetch('/v1/pets/1', { headers: { authorization: `Bearer ${pets.apiKey}` } })).status).toBe(200);
      for (const spy of printed) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of printed) spy.mockRestore();
    }
    const warnings: string[] = [];
    const logged = createTestCatalogue({ seed: SEED, logger: { warn: (message) => warnings.push(message) } });
    logged.inject({ operation: 'createPet', error: 'storage_unavailable', times: 1 });
    expect((await create(logged)).status).toBe(503);
    expect((await create(logged)).status).toBe(201);
    expect(warnings).toContain('storage works again');
  });

  it('delays a chosen operation by the injected latency', async () => {
    vi.useFakeTimers();
    try {
      const pets = createTestCatalogue({ seed: SEED });
      pets.inject({ operation: 'getPet', latency: 5_000 });
      let settled = false;
      const pending = pets.catalogue.getPet(1).then((pet) => {
        settled = true;
        return pet;
      });
      await vi.advanceTimersByTimeAsync(4_999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await pending).name).toBe('Rex');
    } finally {
      vi.useRealTimers();
    }
  });

  it('clears faults on clearFaults, and restores the initial ones on reset', async () => {
    const pets = createTestCatalogue({ seed: SEED, faults: [{ operation: 'listPets', error: 'storage_unavailable' }] });
    await rejectionOf(pets.catalogue.listPets());
    pets.clearFaults();
    expect((await pets.catalogue.listPets()).pets).toHaveLength(2);
    pets.reset();
    await rejectionOf(pets.catalogue.listPets());
  });

  it('refuses a fault that cannot happen', () => {
    const pets = createTestCatalogue();
    expect(() => pets.inject({ operation: 'getPet', error: 'not_found', times: 0 })).toThrow(RangeError);
    expect(() => pets.inject({ operation: 'getPet', latency: -1 })).toThrow(RangeError);
    expect(() => pets.inject({ operation: 'getPet', error: 'storage_unavailable', retryAfterSeconds: 1.5 })).toThrow(RangeError);
  });

  it('asks clients to retry an injected 503 at once, unless the fault says how long to wait', async () => {
    const pets = createTestCatalogue({ seed: SEED });
    pets.inject({ operation: 'listPets', error: 'storage_unavailable', times: 1 });
    const immediate = await pets.fetch('/v1/pets', { headers: { authorization: `Bearer ${pets.apiKey}` } });
    expect([immediate.status, immediate.headers.get('retry-after')]).toEqual([503, '0']);
    pets.inject({ operation: 'listPets', error: 'storage_unavailable', retryAfterSeconds: 7, times: 1 });
    const later = await pets.fetch('/v1/pets', { headers: { authorization: `Bearer ${pets.apiKey}` } });
    expect([later.status, later.headers.get('retry-after')]).toEqual([503, '7']);
  });
});

describe('loadSeedFile', () => {
  let directory: string;
  beforeAll(() => {
    directory = tempFolder({ until: 'file' });
  });

  const fileWith = async (name: string, content: string) => {
    const file = join(directory, name);
    await writeFile(file, content);
    return file;
  };

  it("reads a data file in the store's own format", async () => {
    const file = await fileWith(
      'store.json',
      JSON.stringify({
        format: 1,
        nextId: 8,
        pets: [
          { id: 3, name: 'Rex', categoryId: 1, status: 'pending' },
          { id: 7, name: 'Tom', categoryId: 1, status: 'sold' },
        ],
      }),
    );
    const pets = createTestCatalogue({ seed: await loadSeedFile(file) });
    expect((await pets.catalogue.listPets()).pets.map((pet) => pet.id)).toEqual([3, 7]);
  });

  it('reads a plain array of new animals', async () => {
    const file = await fileWith('array.json', JSON.stringify(SEED));
    expect((await loadSeedFile(file)).map((pet) => pet.id)).toEqual([1, 2]);
  });

  it('names the file and the first problem of a file that is wrong', async () => {
    const wrongShape = await fileWith(
      'wrong.json',
      JSON.stringify({ format: 1, nextId: 2, pets: [{ id: 1, name: 'Rex', categoryId: 'one', status: 'available' }] }),
    );
    await expect(loadSeedFile(wrongShape)).rejects.toThrow(/wrong\.json is not valid: pets\[0\]\.categoryId/);
    const notJson = await fileWith('broken.json', '{"format": 1,');
    await expect(loadSeedFile(notJson)).rejects.toThrow(/broken\.json is not valid JSON/);
    await expect(loadSeedFile(join(directory, 'missing.json'))).rejects.toThrow(/Cannot read the seed file .*missing\.json/);
  });
});
