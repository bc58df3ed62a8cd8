/**
 * @module PostgreSQL writes list pages itself (`listText`): the answers must be byte for byte
 * those of the memory storage holding the same animals, with the same ETag and Link.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createPetService } from '../../../core/createPetService.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';
import { inChunks } from '../../../storage/PetContent.js';
import { openPostgresContent } from '../../../storage/postgres/openPostgresContent.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
const KEY = 'list-text-test-key-0123456789';
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()));
});

/** A fresh schema holding exactly `pets` (ascending ids), as `copyPets` would write it. */
const postgresHolding = async (pets: readonly Pet[]): Promise<PostgresStorage> => {
  const schema = database.freshSchema();
  const content = await openPostgresContent({ connectionString: database.url(), schema });
  try {
    await content.write({ nextId: (pets.at(-1)?.id ?? 0) + 1, pets: inChunks(pets), idempotencyKeys: [] }, { replace: false });
  } finally {
    await content.close();
  }
  const storage = await openPostgresStorage({ connectionString: database.url(), schema });
  opened.push(storage);
  return storage;
};

const frozen = (pets: Pet[]) => pets.map((pet) => Object.freeze(pet));

/** Names JSON.stringify escapes (quotes, backslashes, control characters a data file may hold) or leaves as they are. */
const NAMES = [
  'Rex',
  'Say "woof"',
  'back\\slash \\" \\u0041',
  'Ünïcödé 猫 🐕‍🦺 𝄞',
  'line\u2028para\u2029',
  'tab\there\nnew\rline',
  '\u0001\u0008\u000c\u001f\u007f',
  "</script><!-- & ' ",
  'x'.repeat(200),
];
const STATUSES = ['available', 'pending', 'sold'] as const;

const samplePets = (): Pet[] =>
  frozen([
    ...NAMES.map((name, index) => ({ id: index + 1, name, categoryId: 1 + index * 1_000_003, status: STATUSES[index % 3]! })),
    { id: 2 ** 40, name: 'Big', categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' },
    { id: Number.MAX_SAFE_INTEGER - 1, name: 'Bigger', categoryId: 2 ** 53 - 2, status: 'available' },
    { id: Number.MAX_SAFE_INTEGER, name: 'Biggest "one"', categoryId: 7, status: 'sold' },
  ]);

/** What a client sees of an answer: status, body bytes, ETag and Link. */
const seen = async (response: Response) => ({
  status: response.status,
  body: await response.text(),
  etag: response.headers.get('etag'),
  link: response.headers.get('link'),
});

/** Walks every page of a query through a service, following Link, and answers what each page showed. */
const walk = async (service: (request: Request) => Promise<Response>, first: string) => {
  const pages: Awaited<ReturnType<typeof seen>>[] = [];
  for (let path: string | undefined = first; path !== undefined; ) {
    const page = await seen(await service(new Request(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${KEY}` } })));
    pages.push(page);
    path = page.link?.match(/^<([^>]+)>/)?.[1];
  }
  return pages;
};

const serviceOn = (storage: Parameters<typeof createPetService>[0]['storage']) =>
  createPetService({ storage, keys: [KEY], logger: { warn: () => {}, error: () => {} } }) as unknown as (
    request: Request,
  ) => Promise<Response>;

describe('PostgreSQL list pages as text', () => {
  it('Should answer every page with the bytes, ETag and Link the memory storage answers for the same animals', {
    timeout: 60_000,
  }, async () => {
    const pets = samplePets();
    const postgres = serviceOn(await postgresHolding(pets));
    const memory = serviceOn(createMemoryStorage(pets));
    for (const query of [
      'limit=1',
      'limit=2',
      'limit=5',
      'limit=100',
      'limit=12',
      'limit=13',
      'limit=1&status=sold',
      'limit=2&status=available',
      'status=pending',
    ]) {
      const fromPostgres = await walk(postgres, `/v1/pets?${query}`);
      expect(fromPostgres, query).toEqual(await walk(memory, `/v1/pets?${query}`));
      expect(fromPostgres.every((page) => page.status === 200)).toBe(true);
    }
    const halves = await walk(postgres, '/v1/pets?limit=6');
    expect(halves.map((page) => page.body)).toEqual([JSON.stringify(pets.slice(0, 6)), JSON.stringify(pets.slice(6))]);
    // An empty catalogue: `[]`, tagged as from memory.
    expect(await walk(serviceOn(await postgresHolding([])), '/v1/pets')).toEqual(await walk(serviceOn(createMemoryStorage()), '/v1/pets'));
  });

  it('Should answer 304 to a matching If-None-Match and refuse a forged cursor as from memory', { timeout: 60_000 }, async () => {
    const pets = samplePets();
    const postgres = serviceOn(await postgresHolding(pets));
    const [first] = await walk(postgres, '/v1/pets?limit=3');
    const again = await postgres(
      new Request('http://127.0.0.1/v1/pets?limit=3', { headers: { authorization: `Bearer ${KEY}`, 'if-none-match': first!.etag! } }),
    );
    expect(again.status).toBe(304);
    const forged = await seen(
      await postgres(new Request('http://127.0.0.1/v1/pets?cursor=abc', { headers: { authorization: `Bearer ${KEY}` } })),
    );
    const fromMemory = await seen(
      await serviceOn(createMemoryStorage(pets))(
        new Request('http://127.0.0.1/v1/pets?cursor=abc', { headers: { authorization: `Bearer ${KEY}` } }),
      ),
    );
    expect(forged).toEqual(fromMemory);
    expect(forged.status).toBe(400);
  });

  it('Should write any stored name exactly as JSON.stringify does', { timeout: 120_000 }, async () => {
    // Any Unicode text PostgreSQL can hold: no NUL, no lone surrogates.
    const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((text) => !text.includes('\u0000'));
    const names = fc.sample(name, { numRuns: 400, seed: 21 });
    const pets = frozen(names.map((text, index) => ({ id: index + 1, name: text, categoryId: index + 1, status: STATUSES[index % 3]! })));
    const storage = await postgresHolding(pets);
    for (let after = 0; after < pets.length; after += 100) {
      const page = await storage.listText({ after, limit: 100 });
      expect(page.text).toBe(JSON.stringify(pets.slice(after, after + 100)));
      expect(page.nextAfter).toBe(after + 100 < pets.length ? after + 100 : undefined);
    }
  });

  it('Should list as text in arrival order after a synced animal, as `list` does', { timeout: 60_000 }, async () => {
    const storage = await postgresHolding(samplePets());
    // Arrival order differs from id order once a hub takes animals in: move the smallest id last.
    await database
      .admin()
      .query(`UPDATE ${storage.schema}.pets SET arrival = (SELECT max(arrival) + 1 FROM ${storage.schema}.pets) WHERE id = 1`);
    for (const status of [undefined, 'available'] as const) {
      const listed = await storage.list({ after: 2, limit: 20, status });
      expect(listed.at(-1)?.id).toBe(1);
      expect((await storage.listText({ after: 2, limit: 20, status })).text).toBe(JSON.stringify(listed));
      expect((await storage.listText({ after: 2, limit: listed.length - 1, status })).nextAfter).toBe(listed.at(-2)?.id);
    }
  });

  it('Should answer pages asked for at once, batched into shared statements, as each asked alone', { timeout: 60_000 }, async () => {
    const pets = frozen(
      Array.from({ length: 300 }, (_, index) => ({
        id: index + 1,
        name: `${NAMES[index % NAMES.length]} ${index}`,
        categoryId: 1,
        status: STATUSES[((index * 7) % 5) % 3]!,
      })),
    );
    const storage = await postgresHolding(pets);
    const asked = Array.from({ length: 200 }, (_, index) => ({
      after: (index * 37) % 320,
      limit: 1 + (index % 100),
      status: index % 4 === 0 ? undefined : STATUSES[index % 3],
    }));
    const atOnce = await Promise.all(asked.map((page) => storage.listText(page)));
    for (const [index, page] of asked.entries()) {
      const listed = await storage.list({ ...page, limit: page.limit + 1 });
      const shown = listed.slice(0, page.limit);
      expect(atOnce[index], JSON.stringify(page)).toEqual(
        listed.length > page.limit ? { text: JSON.stringify(shown), nextAfter: shown.at(-1)!.id } : { text: JSON.stringify(shown) },
      );
    }
    // Through the service: walks side by side, as clients of a loaded server make them.
    const postgres = serviceOn(storage);
    const memory = serviceOn(createMemoryStorage(pets));
    const queries = ['limit=3', 'limit=7&status=sold', 'limit=11&status=pending', 'limit=100', 'limit=2&status=available'];
    const walks = await Promise.all(queries.map((query) => walk(postgres, `/v1/pets?${query}`)));
    for (const [index, query] of queries.entries()) expect(walks[index], query).toEqual(await walk(memory, `/v1/pets?${query}`));
  });

  it('Should tag a page anew when the same request gets a new text, as from memory', { timeout: 60_000 }, async () => {
    const pets = samplePets().slice(0, 9);
    const postgres = serviceOn(await postgresHolding(pets));
    const memory = serviceOn(createMemoryStorage(pets));
    const before = await walk(postgres, '/v1/pets?limit=100');
    expect(await walk(postgres, '/v1/pets?limit=100')).toEqual(before);
    for (const service of [postgres, memory]) {
      const created = await service(
        new Request('http://127.0.0.1/v1/pets', {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Newcomer "N"', categoryId: 3 }),
        }),
      );
      expect(created.status).toBe(201);
    }
    const after = await walk(postgres, '/v1/pets?limit=100');
    expect(after[0]!.etag).not.toBe(before[0]!.etag);
    expect(after).toEqual(await walk(memory, '/v1/pets?limit=100'));
  });
});
