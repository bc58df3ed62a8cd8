/** Property tests: the limit, paging and validation invariants hold for any input. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PET_STATUSES, type Pet } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { errorOf, makeService } from './helpers.js';
import { describePagingProperties } from './pagingProperties.js';

const status = fc.constantFrom(...PET_STATUSES);

/**
 * A name the decisions allow, written without valibot from their words: 1 to 200 characters
 * of well-formed Unicode, no control characters or bidi overrides, not only white space, at
 * least one visible character.
 */
const isValidName = (name: string): boolean =>
  [...name].length >= 1 &&
  [...name].length <= 200 &&
  !/\p{Cs}/u.test(name) &&
  !/\p{Cc}/u.test(name) &&
  !/[\u202A-\u202E\u2066-\u2069]/u.test(name) &&
  /\S/.test(name) &&
  /[\p{L}\p{N}\p{P}\p{S}]/u.test(name);

/** An oracle for NewPet written without valibot, from the decisions file's words. */
const isValidNewPet = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const body = value as Record<string, unknown>;
  if (Object.keys(body).some((key) => !['name', 'categoryId', 'status'].includes(key))) return false;
  const { name, categoryId, status: given } = body;
  return (
    typeof name === 'string' &&
    isValidName(name) &&
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
        name: fc.oneof(
          fc.string({ maxLength: 210 }),
          fc.string({ maxLength: 20, unit: 'binary' }),
          fc.constantFrom('x'.repeat(201), ' ', '\u200B', 'Rex\u202E', 'Rex\n', '\uD800x'),
          fc.integer(),
          fc.constant(null),
        ),
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
    const { call } = makeService();
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
    const { post, listAll } = makeService();
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
    const { post, call } = makeService();
    const newPet = fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 200, unit: 'grapheme' }).filter(isValidName),
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

  it('for any sequence of creates with repeated keys and payloads: one animal per distinct key (plus one per keyless create), replays byte-identical, reuse refused', async () => {
    const payloads = [
      { name: 'Rex', categoryId: 1 },
      { name: 'Tom', categoryId: 2, status: 'sold' },
    ];
    const request = fc.record({ key: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), payload: fc.constantFrom(0, 1) });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 25 }), async (requests) => {
        const { post, listAll } = makeService();
        const first = new Map<string, { payload: number; answer: string; location: string | null }>();
        let keyless = 0;
        for (const { key, payload } of requests) {
          const response = await post(payloads[payload], key === undefined ? {} : { headers: { 'idempotency-key': `"${key}"` } });
          const answer = await response.text();
          if (key === undefined) {
            expect(response.status).toBe(201);
            keyless++;
            continue;
          }
          const earlier = first.get(key);
          if (earlier === undefined) {
            expect(response.status).toBe(201);
            first.set(key, { payload, answer, location: response.headers.get('location') });
          } else if (earlier.payload === payload) {
            expect(response.status).toBe(201);
            expect(answer).toBe(earlier.answer);
            expect(response.headers.get('location')).toBe(earlier.location);
            expect(response.headers.get('idempotent-replayed')).toBe('true');
          } else {
            expect(response.status).toBe(422);
          }
        }
        expect(await listAll()).toHaveLength(keyless + first.size);
      }),
      { numRuns: 100 },
    );
  });
});
