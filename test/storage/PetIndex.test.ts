import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Pet } from '../../core/schemas/Pet.js';
import { PET_STATUSES } from '../../core/schemas/PetStatus.js';
import { PetColumns } from '../../storage/PetColumns.js';
import { PetIndex } from '../../storage/PetIndex.js';

const built = new Map<number, PetIndex>();

/** Every id the indexes read from their columns, counted (reset by `countingIndex`). */
const reads = { count: 0 };
const readId = PetColumns.prototype.idAt;
beforeAll(() => {
  vi.spyOn(PetColumns.prototype, 'idAt').mockImplementation(function (this: PetColumns, position: number) {
    reads.count++;
    return readId.call(this, position);
  });
});
afterAll(() => {
  vi.restoreAllMocks();
});

/**
 * An index of `size` animals (built once per size), and the count of ids read since.
 * Finding where a page starts reads ids; making the page's animals does not, so `reads` is
 * the search's cost, and a page's length is the copy's.
 */
const countingIndex = (size: number) => {
  let index = built.get(size);
  if (!index) {
    const pets = Array.from({ length: size }, (_, offset): Pet => {
      const id = offset + 1;
      return { id, name: `Animal ${id}`, categoryId: 1, status: PET_STATUSES[offset % 3]! };
    });
    index = new PetIndex(pets);
    built.set(size, index);
  }
  reads.count = 0;
  return { index, reads };
};

/** Id reads of one list call, from the middle of the catalogue. */
const readsOfOnePage = (size: number, status: Pet['status'] | undefined, limit: number) => {
  const { index, reads } = countingIndex(size);
  const page = index.list({ after: Math.floor(size / 2), limit, status });
  expect(page).toHaveLength(limit);
  return reads.count;
};

describe('PetIndex list cost', () => {
  for (const status of [undefined, 'sold'] as const) {
    it(`Should find a page in about log2 n reads, not the catalogue, at 1k and 100k animals (${status ?? 'no'} status filter)`, () => {
      const small = readsOfOnePage(1_000, status, 20);
      const large = readsOfOnePage(100_000, status, 20);
      // A page is one binary search (log2 n reads) plus `limit` elements copied. 100x more
      // animals may add log2(100) ≈ 7 reads to the search, never anything like 100x.
      expect(small).toBeGreaterThanOrEqual(Math.floor(Math.log2(1_000 / 3)));
      expect(large - small).toBeLessThanOrEqual(8);
      expect(large).toBeLessThanOrEqual(Math.ceil(Math.log2(100_000)) + 2);
    });
  }

  it('Should read no more to find a page of 100 than a page of 20', () => {
    const twenty = readsOfOnePage(100_000, 'sold', 20);
    const hundred = readsOfOnePage(100_000, 'sold', 100);
    expect(hundred).toBe(twenty);
  });

  it('Should find an animal by id in a logarithmic number of reads', () => {
    const { index, reads } = countingIndex(100_000);
    expect(index.get(77_777)?.id).toBe(77_777);
    expect(index.get(100_001)).toBeUndefined();
    expect(reads.count).toBeLessThanOrEqual(2 * (Math.ceil(Math.log2(100_000)) + 2) + 1);
  });
});

describe('PetIndex built from a list', () => {
  const petsArbitrary = fc.array(fc.record({ id: fc.integer({ min: 1, max: 60 }), status: fc.constantFrom(...PET_STATUSES) }), {
    maxLength: 40,
  });

  it('Should answer every page and lookup as an index the same animals were added to one by one, ascending or not', () => {
    fc.assert(
      fc.property(petsArbitrary, fc.boolean(), (drawn, ascending) => {
        const unique = [...new Map(drawn.map((pet) => [pet.id, pet])).values()];
        if (ascending) unique.sort((a, b) => a.id - b.id);
        const pets = unique.map(({ id, status }): Pet => ({ id, name: `Animal ${id}`, categoryId: 1, status }));
        const built = new PetIndex(pets);
        const added = new PetIndex();
        for (const pet of pets) added.add({ ...pet });
        expect(built.size).toBe(added.size);
        expect(built.lastId).toBe(added.lastId);
        for (const status of [undefined, ...PET_STATUSES]) {
          for (const after of [0, ...pets.map((pet) => pet.id)]) {
            const ids = (index: PetIndex) => index.list({ after, limit: 7, status }).map((pet) => pet.id);
            expect(ids(built)).toEqual(ids(added));
          }
        }
        for (let id = 0; id <= 61; id++) expect(built.get(id)?.id).toBe(added.get(id)?.id);
      }),
    );
  });
});
