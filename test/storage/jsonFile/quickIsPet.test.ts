import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Pet } from '../../../core/schemas/Pet.js';
import { quickIsPet } from '../../../storage/jsonFile/format/quickIsPet.js';

/** Values near the edges of every rule of the Pet schema, plus anything at all. */
const almostPets = fc.record(
  {
    id: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER + 1), fc.string()),
    name: fc.oneof(
      fc.string({ maxLength: 5 }),
      fc.string({ minLength: 195, maxLength: 205 }),
      fc.string({ unit: 'grapheme', minLength: 99, maxLength: 202 }),
      fc.constantFrom('', ' ', '\t\n', '\u00a0', '\u2003x', 'Rex'),
      fc.integer(),
    ),
    categoryId: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.constant(2 ** 53), fc.constant('1')),
    status: fc.oneof(fc.constantFrom('available', 'pending', 'sold', 'Sold', ''), fc.integer()),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('quickIsPet', () => {
  it('Should accept only what the Pet schema accepts', () => {
    fc.assert(
      fc.property(fc.oneof(almostPets, fc.anything()), (value) => {
        if (quickIsPet(value)) expect(v.is(Pet, value)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('Should accept the ordinary animals a data file is made of', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.integer({ min: 1 }),
          name: fc.string({ minLength: 1, maxLength: 200 }).filter((name) => /\S/.test(name)),
          categoryId: fc.integer({ min: 1 }),
          status: fc.constantFrom('available', 'pending', 'sold'),
        }),
        (pet) => {
          expect(quickIsPet(pet)).toBe(true);
        },
      ),
    );
  });
});
