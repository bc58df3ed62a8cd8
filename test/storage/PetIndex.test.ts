import { describe, expect, it } from 'vitest';
import type { Pet } from '../../core/schemas/Pet.js';
import { PET_STATUSES } from '../../core/schemas/PetStatus.js';
import { PetIndex } from '../../storage/PetIndex.js';

const built = new Map<number, { index: PetIndex; reads: { count: number } }>();

/** An index of `size` animals whose arrays count every element read (built once per size). */
const countingIndex = (size: number) => {
  const cached = built.get(size);
  if (cached) {
    cached.reads.count = 0;
    return cached;
  }
  const reads = { count: 0 };
  const createRun = () =>
    new Proxy<Pet[]>([], {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads.count++;
        return Reflect.get(target, key, receiver);
      },
    });
  const pets = Array.from(
    { length: size },
    (_, offset): Pet => ({
      id: offset + 1,
      name: `Animal ${offset + 1}`,
      categoryId: 1,
      status: PET_STATUSES[offset % 3]!,
    }),
  );
  const index = new PetIndex(pets, { createRun });
  reads.count = 0;
  built.set(size, { index, reads });
  return { index, reads };
};

/** Element reads of one list call, from the middle of the catalogue. */
const readsOfOnePage = (size: number, status: Pet['status'] | undefined, limit: number) => {
  const { index, reads } = countingIndex(size);
  const page = index.list({ after: Math.floor(size / 2), limit, status });
  expect(page).toHaveLength(limit);
  return reads.count;
};

describe('PetIndex list cost', () => {
  for (const status of [undefined, 'sold'] as const) {
    it(`Should read about limit elements, not the catalogue, at 1k and 100k animals (${status ?? 'no'} status filter)`, () => {
      const small = readsOfOnePage(1_000, status, 20);
      const large = readsOfOnePage(100_000, status, 20);
      // A page is one binary search (log2 n reads) plus `limit` reads to copy. 100x more
      // animals may add log2(100) ≈ 7 reads to the search, never anything like 100x.
      expect(small).toBeGreaterThanOrEqual(20);
      expect(large).toBeGreaterThanOrEqual(20);
      expect(large - small).toBeLessThanOrEqual(8);
      expect(large).toBeLessThanOrEqual(20 + Math.ceil(Math.log2(100_000)) + 2);
    });
  }

  it('Should grow with limit, which is what a page costs', () => {
    const twenty = readsOfOnePage(100_000, 'sold', 20);
    const hundred = readsOfOnePage(100_000, 'sold', 100);
    expect(hundred - twenty).toBe(80);
  });

  it('Should find an animal by id in a logarithmic number of reads', () => {
    const { index, reads } = countingIndex(100_000);
    expect(index.get(77_777)?.id).toBe(77_777);
    expect(index.get(100_001)).toBeUndefined();
    expect(reads.count).toBeLessThanOrEqual(2 * (Math.ceil(Math.log2(100_000)) + 2));
  });
});
