import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../core/schemas/Pet.js';
import { PET_STATUSES } from '../../core/schemas/PetStatus.js';
import { PetColumns } from '../../storage/PetColumns.js';

/** An animal whose fields all depend on `at`, with names of differing lengths and scripts. */
const animal = (at: number, name = `Animal ${at}`): Pet => ({
  id: at * 7 + 1,
  name,
  categoryId: Number.MAX_SAFE_INTEGER - at,
  status: PET_STATUSES[at % 3]!,
});

/** What the columns hold, read back every way they are read. */
const readBack = (columns: PetColumns) => ({
  byAt: Array.from({ length: columns.length }, (_, at) => columns.at(at)),
  byIteration: [...columns],
  bySlice: columns.slice(),
  ids: Array.from({ length: columns.length }, (_, at) => columns.idAt(at)),
});

const expectToHold = (columns: PetColumns, pets: Pet[]) => {
  const { byAt, byIteration, bySlice, ids } = readBack(columns);
  expect(columns.length).toBe(pets.length);
  expect(byAt).toEqual(pets);
  expect(byIteration).toEqual(pets);
  expect(bySlice).toEqual(pets);
  expect(ids).toEqual(pets.map((pet) => pet.id));
};

describe('PetColumns', () => {
  it('Should give back every animal pushed, its name exact, across the blocks names are joined in', () => {
    const names = ['Rex', '犬のポチ', '🐕 Rex', 'a'.repeat(200), 'Käthe', ' x'];
    const pets = Array.from({ length: 3_000 }, (_, at) => animal(at, `${names[at % names.length]}${at}`));
    const columns = PetColumns.from(pets);
    expectToHold(columns, pets);
    expect(columns.at(-1)).toEqual(pets.at(-1));
    expect(columns.at(3_000)).toBeUndefined();
    expect(columns.slice(1_020, 1_030)).toEqual(pets.slice(1_020, 1_030));
  });

  it('Should hold what an array does through any pushes, truncations and copies', () => {
    const step = fc.oneof(
      fc.record({ push: fc.integer({ min: 0, max: 1_500 }) }),
      fc.record({ truncate: fc.integer({ min: 0, max: 4_000 }) }),
      fc.record({ copy: fc.constant(true) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 8 }), (steps) => {
        let columns = new PetColumns();
        let model: Pet[] = [];
        let made = 0;
        for (const taken of steps) {
          if ('push' in taken) {
            for (let count = 0; count < taken.push; count++) {
              const pet = animal(made++);
              columns.push(pet);
              model.push(pet);
            }
          } else if ('truncate' in taken) {
            columns.truncate(taken.truncate);
            model = model.slice(0, taken.truncate);
          } else {
            const copy = columns.copy();
            // The original goes on changing; the copy must not see it.
            columns.push(animal(made++));
            expectToHold(copy, model);
            columns = copy;
          }
        }
        expectToHold(columns, model);
      }),
      { numRuns: 60 },
    );
  });

  it('Should refuse an animal whose status is not one of the three, holding nothing of it', () => {
    const columns = PetColumns.from([animal(0)]);
    expect(() => columns.push({ ...animal(1), status: 'lost' as Pet['status'] })).toThrow(/status must be one of/);
    expectToHold(columns, [animal(0)]);
  });
});
