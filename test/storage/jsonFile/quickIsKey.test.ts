import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { IdempotencyKeyInFile, keyToFile } from '../../../storage/jsonFile/PetFileData.js';
import { quickIsKey } from '../../../storage/jsonFile/quickIsKey.js';

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
});
