import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePetChange, replayPetChanges } from '../../../storage/jsonFile/format/PetChange.js';
import { toPetFileContent } from '../../../storage/jsonFile/format/PetFileContent.js';
import { PET_FILE_FORMAT } from '../../../storage/jsonFile/format/PetFileData.js';
import { keyToFile } from './keyToFile.js';

const pet = fc.record({
  id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  name: fc.string({ unit: 'binary' }),
  categoryId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  status: fc.constantFrom('available' as const, 'pending' as const, 'sold' as const),
});
const key = fc.record({
  scope: fc.string({ unit: 'binary' }),
  key: fc.string({ unit: 'binary' }),
  fingerprint: fc.string(),
  petId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  createdAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  expiresAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
});
const sync = fc.option(fc.record({ kiosk: fc.record({ hub: fc.webUrl(), nextId: fc.nat() }) }), { nil: undefined });

describe('a journal line', () => {
  it('Should be what JSON.stringify writes of the change as a data file, whatever its animals, keys and sync part', () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(pet, { maxLength: 4 }), fc.array(key, { maxLength: 4 }), sync, (nextId, pets, keys, syncPart) => {
        const line = encodePetChange({ nextId, pets, keys, sync: syncPart as never });
        const expected = {
          format: PET_FILE_FORMAT,
          nextId,
          pets,
          idempotencyKeys: keys.map(keyToFile),
          ...(syncPart === undefined ? {} : { sync: syncPart }),
        };
        expect(line).toBe(JSON.stringify(expected));
        expect(line).not.toMatch(/[\n\r]/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('replaying the journal', () => {
  const animal = (id: number) => ({ id, name: `Animal ${id}`, categoryId: 1, status: 'available' as const });
  const line = (ids: number[], nextId: number) => encodePetChange({ nextId, pets: ids.map(animal), keys: [] });

  it('Should add the animals the document lacks, below its highest id too, skip those it holds, and keep ids in order', () => {
    const content = toPetFileContent({ format: 2, nextId: 6, pets: [1, 2, 5].map(animal), idempotencyKeys: [] });
    replayPetChanges(content, [line([6, 7], 8), line([3, 5], 8), line([7, 8], 9)], 'animals.json');
    expect(content.pets.slice().map(({ id }) => id)).toEqual([1, 2, 3, 5, 6, 7, 8]);
    expect(content.nextId).toBe(9);
  });

  it('Should add nothing twice when the document already holds every line (a crash between a whole write and emptying the journal)', () => {
    const content = toPetFileContent({ format: 2, nextId: 4, pets: [1, 2, 3].map(animal), idempotencyKeys: [] });
    replayPetChanges(content, [line([1], 2), line([2, 3], 4)], 'animals.json');
    expect(content.pets.slice().map(({ id }) => id)).toEqual([1, 2, 3]);
    expect(content.nextId).toBe(4);
  });
});
