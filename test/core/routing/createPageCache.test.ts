/** @module The page cache: pages asked for again are kept; a walk through more pages than it holds is not. */
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/index.js';
import { createPageCache } from '../../../core/routing/createPageCache.js';
import { createPetTexts } from '../../../core/routing/createPetTexts.js';

const animals = Array.from({ length: 2_000 }, (_, index) =>
  Object.freeze({ id: index + 1, name: `Pet ${index + 1}`, categoryId: 1, status: 'available' as const }),
);
/** The `number`th page of 5 animals, as a storage holding frozen animals hands it over (a new array each time). */
const pageOf = (number: number): Pet[] => animals.slice(number * 5, number * 5 + 5);

/** A page cache whose tagger counts the pages it had to hash. */
const countingCache = () => {
  let hashed = 0;
  const cache = createPageCache((text, link) => {
    hashed++;
    return `"${text.length}:${link ?? ''}"`;
  }, createPetTexts());
  return { cache, hashed: () => hashed };
};

describe('the list page cache', () => {
  it('keeps a page asked for again, and answers it from then on without hashing it', () => {
    const { cache, hashed } = countingCache();
    const first = cache(pageOf(0), '<next>');
    expect(cache(pageOf(0), '<next>')).toEqual(first);
    expect(hashed()).toBe(2);
    const kept = cache(pageOf(0), '<next>');
    expect(cache(pageOf(0), '<next>')).toBe(kept);
    expect(kept).toMatchObject(first);
    expect(hashed()).toBe(2);
  });

  it('keeps apart pages that start with the same animal under another Link', () => {
    const { cache } = countingCache();
    for (let round = 0; round < 3; round++) {
      expect(cache(pageOf(0), '<a>')).toMatchObject({ etag: expect.stringContaining('<a>') });
      expect(cache(pageOf(0), undefined)).toMatchObject({ etag: expect.not.stringContaining('<a>') });
    }
  });

  it('keeps nothing of a walk through more pages than it holds, asked for round and round', () => {
    const { cache, hashed } = countingCache();
    const pages = 300;
    for (let round = 0; round < 3; round++) for (let number = 0; number < pages; number++) cache(pageOf(number), '<next>');
    expect(hashed()).toBe(3 * pages);
  });

  it('keeps the pages of a walk shorter than what it holds, from the walk after next', () => {
    const { cache, hashed } = countingCache();
    const pages = 100;
    for (let round = 0; round < 4; round++) for (let number = 0; number < pages; number++) cache(pageOf(number), '<next>');
    expect(hashed()).toBe(2 * pages);
  });

  it('keeps no page of animals that are not frozen, which may change', () => {
    const { cache, hashed } = countingCache();
    const live: Pet[] = [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }];
    for (let round = 0; round < 4; round++) cache(live, undefined);
    expect(hashed()).toBe(4);
  });
});
