import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Pet } from '../../../core/schemas/Pet.js';
import { IdempotencyKeyInFile, timeFromFile, timeToFile } from '../../../storage/jsonFile/format/PetFileData.js';
import { quickIsKey, quickIsPet } from '../../../storage/jsonFile/format/quickChecks.js';
import { keyToFile } from './keyToFile.js';

/** Values near the edges of every rule of the Pet schema, plus anything at all. */
const almostPets = fc.record(
  {
    id: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER + 1), fc.string()),
    name: fc.oneof(
      fc.string({ maxLength: 5 }),
      fc.string({ minLength: 195, maxLength: 205 }),
      fc.string({ unit: 'grapheme', minLength: 99, maxLength: 202 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.string({ unit: 'binary-ascii', maxLength: 6 }),
      fc.constantFrom('', ' ', '\t\n', '\u00a0', '\u2003x', 'Rex', 'a\nb', 'Rex\u202e', '\u200b', 'a\ud800', '\u0085x', 'x\u007f'),
      fc.integer(),
    ),
    categoryId: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.constant(2 ** 53), fc.constant('1')),
    status: fc.oneof(fc.constantFrom('available', 'pending', 'sold', 'Sold', ''), fc.integer()),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('the quick check of stored animals', () => {
  it('Should accept only what the Pet schema accepts', () => {
    fc.assert(
      fc.property(fc.oneof(almostPets, fc.anything()), (value) => {
        if (quickIsPet(value)) expect(v.is(Pet, value)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('Should pass on names the schema refuses for what they hold, not only for their length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }), (name) => {
        const pet = { id: 1, name, categoryId: 1, status: 'available' };
        if (quickIsPet(pet)) expect(v.is(Pet, pet)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    for (const name of ['Rex\nthe second', 'Rex\u202e', '\u200b', 'a\ud800', 'x\u007f', '\u0085x']) {
      expect(quickIsPet({ id: 1, name, categoryId: 1, status: 'available' })).toBe(false);
    }
  });

  it('Should accept the ordinary animals a data file is made of', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.integer({ min: 1 }),
          name: fc.oneof(
            fc.string({ minLength: 1, maxLength: 200 }).filter((name) => /\S/.test(name)),
            fc.constantFrom('Käthe', '犬のポチ', '🐕 Rex', 'Ωmega', 'José María'),
          ),
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

const written = keyToFile({
  scope: 'a1b2c3',
  key: 'order-0042',
  fingerprint: 'Qm9X_-',
  petId: 3,
  createdAt: 1_764_000_000_000,
  expiresAt: 1_764_086_400_000,
});

describe('the quick check of stored Idempotency-Keys', () => {
  it('Should accept every key as the server writes it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.integer({ min: 1, max: 2 ** 40 }), (at, petId) => {
        const key = keyToFile({ scope: 'ff00', key: `k ${at}~`, fingerprint: 'abc', petId, createdAt: at, expiresAt: at + 1 });
        expect(quickIsKey(key)).toBe(true);
      }),
    );
  });

  it('Should accept nothing the schema rejects', () => {
    const field = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.constant(undefined), fc.boolean());
    const mutated = fc
      .record({ name: fc.constantFrom('scope', 'key', 'fingerprint', 'petId', 'createdAt', 'expiresAt', 'extra'), value: field })
      .map(({ name, value }) => ({ ...written, [name]: value }));
    const dates = fc.string().map((text) => ({ ...written, createdAt: `2026-11-2${text}` }));
    fc.assert(
      fc.property(fc.oneof(mutated, dates), (candidate) => {
        if (quickIsKey(candidate)) expect(v.is(IdempotencyKeyInFile, candidate)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
    expect(quickIsKey(written)).toBe(true);
    expect(quickIsKey({ ...written, createdAt: '2026-13-01T00:00:00.000Z' })).toBe(false);
  });

  it('Should read every date as Date.parse does, written by the server or not', () => {
    // From the year 0 to 9999: Date.UTC alone would read the years 0 to 99 as 1900 to 1999.
    const written = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }).map((at) => new Date(at).toISOString());
    const other = fc.constantFrom('2026-11-27T12:00:00Z', '2026-11-27T12:00:00.5+01:00', '2026-02-31T00:00:00.000Z', '2026-11-27');
    fc.assert(
      fc.property(fc.oneof(written, other), (text) => {
        expect(timeFromFile(text)).toBe(Date.parse(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('Should write every time as toISOString does, one after another in a second or not', () => {
    const time = fc.oneof(
      fc.integer({ min: -8_640_000_000_000_000, max: 8_639_999_999_999_999 }),
      fc.integer({ min: 1_764_000_000_000, max: 1_764_000_003_000 }),
    );
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const at of times) {
          expect(timeToFile(at, 0)).toBe(new Date(at).toISOString());
          expect(timeToFile(at + 1, 1)).toBe(new Date(at + 1).toISOString());
        }
        expect(() => timeToFile(8_640_000_000_000_001)).toThrow(RangeError);
      }),
      { numRuns: 500 },
    );
  });
});
