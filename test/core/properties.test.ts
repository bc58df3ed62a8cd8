/** Property tests: the limit, paging and validation invariants hold for any input. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PET_STATUSES, type Pet } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { errorOf, makeStore } from './helpers.js';
import { describePagingProperties } from './pagingProperties.js';

const status = fc.constantFrom(...PET_STATUSES);
/** An oracle for NewPet written without valibot, from the decisions file's words. */
const isValidNewPet = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const body = value as Record<string, unknown>;
  if (Object.keys(body).some((key) => !['name', 'categoryId', 'status'].includes(key))) return false;
  const { name, categoryId, status: given } = body;
  return (
    typeof name === 'string' &&
    [...name].length >= 1 &&
    [...name].length <= 200 &&
    /\S/.test(name) &&
    typeof categoryId === 'number' &&
    Number.isSafeInteger(categoryId) &&
    categoryId >= 1 &&
    (given === undefined || (PET_STATUSES as readonly unknown[]).includes(given))
  );
};

/** Bodies near the valid ones: each field dropped or replaced with a stranger, maybe one extra key. */
const nearNewPet = fc
  .tuple(
    fc.record(
      {
        name: fc.oneof(fc.string({ maxLength: 210 }), fc.constant('x'.repeat(201)), fc.constant(' '), fc.integer(), fc.constant(null)),
        categoryId: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 53), fc.string(), fc.constant(null)),
        status: fc.oneof(status, fc.string(), fc.constant(null)),
      },
      { requiredKeys: [] },
    ),
    fc.option(fc.tuple(fc.constantFrom('id', 'stauts', '__proto__', 'constructor', 'prototype'), fc.jsonValue())),
  )
  .map(([body, extra]) => {
    // defineProperty, because assigning __proto__ would change the prototype, not add a key.
    if (extra) Object.defineProperty(body, extra[0], { value: extra[1], enumerable: true });
    return body;
  });

describe('properties', () => {
  describePagingProperties(async (pets) => createMemoryStorage(pets));

  it('any limit outside 1..100, or any non-digit string, is a 400 naming limit', async () => {
    const { call } = makeStore();
    const badLimit = fc.oneof(
      fc.integer({ max: 0 }).map(String),
      fc.integer({ min: 101 }).map(String),
      fc.string().filter((text) => !/^[0-9]+$/.test(text)),
      fc.double({ noInteger: true }).map(String),
    );
    await fc.assert(
      fc.asyncProperty(badLimit, async (limit) => {
        const response = await call(`/v1/pets?limit=${encodeURIComponent(limit)}`);
        expect(response.status).toBe(400);
        expect((await errorOf(response)).details).toEqual([expect.objectContaining({ path: 'limit' })]);
      }),
      { numRuns: 300 },
    );
  });

  it('any body that is not a valid NewPet is a 400 and stores nothing', async () => {
    const { post, listAll } = makeStore();
    const body = fc.oneof(fc.jsonValue(), nearNewPet, fc.anything());
    // Judge what the server will read: the JSON text, not the JavaScript value it came from.
    const text = body.map((value) => JSON.stringify(value) ?? 'undefined');
    await fc.assert(
      fc.asyncProperty(
        text.filter((json) => json === 'undefined' || !isValidNewPet(JSON.parse(json))),
        async (json) => {
          const response = await post(json);
          expect(response.status).toBe(400);
          expect(['validation_failed', 'invalid_json']).toContain((await errorOf(response)).code);
        },
      ),
      { numRuns: 400 },
    );
    expect(await listAll()).toEqual([]);
  });

  it('create-then-get returns what was created', async () => {
    const { post, call } = makeStore();
    const newPet = fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 200, unit: 'grapheme' }).filter((name) => /\S/.test(name) && [...name].length <= 200),
        categoryId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        status,
      },
      { requiredKeys: ['name', 'categoryId'] },
    );
    await fc.assert(
      fc.asyncProperty(newPet, async (pet) => {
        const created = await post(pet);
        expect(created.status).toBe(201);
        const body = (await created.json()) as Pet;
        expect(body).toEqual({ ...pet, status: pet.status ?? 'available', id: body.id });
        const fetched = await call(created.headers.get('location')!);
        expect(await fetched.json()).toEqual(body);
      }),
      { numRuns: 200 },
    );
  });
});
