/**
 * @module The fast-check properties of limit, status and paging, for the service over any
 * storage: the memory storage runs them in test/core/properties.test.ts, PostgreSQL in
 * test/storage/postgres/properties.system.test.ts.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { PET_STATUSES, type Pet, type PetStatus, type PetStorage } from '../../core/index.js';
import { makeService } from './helpers.js';

const status = fc.constantFrom(...PET_STATUSES);
const statusFilter = fc.option(status, { nil: undefined });

/** A catalogue of 0–250 animals with ids 1…n, as a storage would hold it. */
const catalogue = fc
  .array(
    fc.record({
      name: fc.string({ minLength: 1, maxLength: 8 }).filter((n) => /\S/.test(n)),
      categoryId: fc.integer({ min: 1, max: 9 }),
      status,
    }),
    {
      maxLength: 250,
    },
  )
  .map((pets) => pets.map((pet, i): Pet => ({ id: i + 1, ...pet })));

const nextOf = (response: Response): string | undefined => /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

const query = (limit: number, filter: PetStatus | undefined) => `/v1/pets?limit=${limit}${filter ? `&status=${filter}` : ''}`;

/**
 * Registers the paging properties. `storageWith(pets)` answers a storage holding exactly
 * `pets` (ids 1…n) whose next id is n + 1, fresh for each run.
 */
export const describePagingProperties = (storageWith: (pets: Pet[]) => Promise<PetStorage>): void => {
  it('a page holds min(limit, matching) animals, all matching, in ascending id order', async () => {
    await fc.assert(
      fc.asyncProperty(catalogue, fc.integer({ min: 1, max: 100 }), statusFilter, async (pets, limit, filter) => {
        const { call } = makeService({ storage: await storageWith(pets) });
        const response = await call(query(limit, filter));
        expect(response.status).toBe(200);
        const page = (await response.json()) as Pet[];
        const matching = pets.filter((pet) => filter === undefined || pet.status === filter);
        expect(page).toEqual(matching.slice(0, limit));
        expect(nextOf(response) !== undefined).toBe(matching.length > limit);
      }),
      { numRuns: 150 },
    );
  });

  it('walking next links yields every matching animal exactly once, even with creates between pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        catalogue,
        fc.integer({ min: 1, max: 100 }),
        statusFilter,
        fc.array(status, { maxLength: 5 }),
        async (pets, limit, filter, createdBetween) => {
          const { call, post } = makeService({ storage: await storageWith(pets) });
          const seen: Pet[] = [];
          let path: string | undefined = query(limit, filter);
          const pending = [...createdBetween];
          for (let pages = 0; path !== undefined; pages++) {
            expect(pages).toBeLessThanOrEqual(pets.length + createdBetween.length + 1);
            const response: Response = await call(path);
            seen.push(...((await response.json()) as Pet[]));
            path = nextOf(response);
            const created = pending.shift();
            if (created) expect((await post({ name: 'Late', categoryId: 1, status: created })).status).toBe(201);
          }
          const ids = seen.map((pet) => pet.id);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids).toEqual([...ids].sort((a, b) => a - b));
          const expected = pets.filter((pet) => filter === undefined || pet.status === filter);
          // Everything that existed at the start is seen once; later animals may or may not be.
          expect(seen.slice(0, expected.length)).toEqual(expected);
          expect(seen.slice(expected.length).every((pet) => pet.id > pets.length && pet.name === 'Late')).toBe(true);
          expect(seen.every((pet) => filter === undefined || pet.status === filter)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
};
