import { describe, expect, it } from 'vitest';
import { nodeSha256 } from '../../adapters/node/serve.js';
import type { Pet } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { errorOf, KEY, makeService, ORIGIN } from './helpers.js';

const statuses = ['available', 'pending', 'sold'] as const;
const catalogue = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ name: `Pet ${i + 1}`, categoryId: 1 + (i % 4), status: statuses[i % 3] }));

/** Follows a Link rel="next" header, if any, to a path the test client can call. */
const nextOf = (response: Response): string | undefined => {
  const link = response.headers.get('link');
  const match = link && /^<([^>]+)>; rel="next"$/.exec(link);
  return match ? match[1] : undefined;
};

describe('GET /v1/pets', () => {
  it('lists nothing from an empty catalogue, with no next link', async () => {
    const { call } = makeService();
    const response = await call('/v1/pets');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    expect(response.headers.get('link')).toBeNull();
  });

  it('lists 20 animals by default, in ascending id order, with a next link', async () => {
    const { call, seed } = makeService();
    await seed(catalogue(25));
    const response = await call('/v1/pets');
    const pets = (await response.json()) as Pet[];
    expect(pets.map((pet) => pet.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(nextOf(response)).toMatch(/^\/v1\/pets\?limit=20&cursor=[A-Za-z0-9_.-]+$/);
  });

  it('filters by status and keeps the status in the next link', async () => {
    const { call, seed } = makeService();
    await seed(catalogue(12));
    const response = await call('/v1/pets?status=sold&limit=2');
    const pets = (await response.json()) as Pet[];
    expect(pets).toEqual([
      { id: 3, name: 'Pet 3', categoryId: 3, status: 'sold' },
      { id: 6, name: 'Pet 6', categoryId: 2, status: 'sold' },
    ]);
    const next = nextOf(response)!;
    expect(next).toMatch(/^\/v1\/pets\?limit=2&status=sold&cursor=/);
    const second = (await (await call(next)).json()) as Pet[];
    expect(second.map((pet) => pet.id)).toEqual([9, 12]);
  });

  it('walks every page exactly once and ends with no next link', async () => {
    const { call, seed } = makeService();
    await seed(catalogue(23));
    const seen: number[] = [];
    let path: string | undefined = '/v1/pets?limit=5';
    let pages = 0;
    while (path) {
      const response = await call(path);
      seen.push(...((await response.json()) as Pet[]).map((pet) => pet.id));
      path = nextOf(response);
      pages++;
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
  });

  it('gives no next link when the last page is exactly full', async () => {
    const { call, seed } = makeService();
    await seed(catalogue(10));
    const first = await call('/v1/pets?limit=5');
    const last = await call(nextOf(first)!);
    expect(((await last.json()) as Pet[]).length).toBe(5);
    expect(nextOf(last)).toBeUndefined();
  });

  it('keeps pages stable while animals are created between them', async () => {
    const { call, seed, post } = makeService();
    await seed(catalogue(6));
    const first = await call('/v1/pets?limit=4');
    expect(((await first.json()) as Pet[]).map((pet) => pet.id)).toEqual([1, 2, 3, 4]);
    await post({ name: 'Late', categoryId: 1 });
    const second = await call(nextOf(first)!);
    expect(((await second.json()) as Pet[]).map((pet) => pet.id)).toEqual([5, 6, 7]);
  });

  it.each(['0', '101', '-1', '1.5', '1e2', '', 'ten', ' 5', '+5', '0x10', '99999999999999999999999'])(
    'refuses limit=%j with 400 naming limit, never clamping it',
    async (limit) => {
      const { call } = makeService();
      const response = await call(`/v1/pets?limit=${encodeURIComponent(limit)}`);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe('validation_failed');
      expect(error.details).toEqual([expect.objectContaining({ path: 'limit' })]);
      expect(error.message).toMatch(/1 to 100/);
    },
  );

  it('accepts limit 1 and 100, and leading zeros', async () => {
    const { call, seed } = makeService();
    await seed(catalogue(3));
    expect(((await (await call('/v1/pets?limit=1')).json()) as Pet[]).length).toBe(1);
    expect(((await (await call('/v1/pets?limit=100')).json()) as Pet[]).length).toBe(3);
    expect(((await (await call('/v1/pets?limit=002')).json()) as Pet[]).length).toBe(2);
  });

  it.each(['Sold', 'lost', '', 'available,sold'])('refuses status=%j with 400 naming status', async (status) => {
    const { call } = makeService();
    const error = await errorOf(await call(`/v1/pets?status=${encodeURIComponent(status)}`));
    expect(error.status).toBe(400);
    expect(error.details).toEqual([expect.objectContaining({ path: 'status' })]);
  });

  it('refuses a parameter given twice, and an unknown parameter', async () => {
    const { call } = makeService();
    const twice = await errorOf(await call('/v1/pets?limit=5&limit=6'));
    expect(twice).toMatchObject({ status: 400, details: [{ path: 'limit' }] });
    const unknown = await errorOf(await call('/v1/pets?stauts=sold'));
    expect(unknown).toMatchObject({ status: 400, details: [{ path: 'stauts' }] });
  });

  it.each(['abc', 'MToyOg', 'MToyOg.AAAAAAAAAAAAAAAA', '', 'x'.repeat(500), 'MToyOg.Opt3aHJ1615Ro5Hy.x'])(
    'refuses a cursor the service did not make (%j) with 400 naming cursor',
    async (cursor) => {
      const { call, seed } = makeService();
      await seed(catalogue(3));
      const error = await errorOf(await call(`/v1/pets?cursor=${encodeURIComponent(cursor)}`));
      expect(error.status).toBe(400);
      expect(error.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
    },
  );

  it('refuses a real cursor edited by hand, or reused with another status filter', async () => {
    const { call, seed } = makeService();
    await seed(catalogue(9));
    const first = await call('/v1/pets?limit=2&status=sold');
    const cursor = new URL(nextOf(first)!, 'http://x').searchParams.get('cursor')!;
    const edited = cursor[0] === 'A' ? `B${cursor.slice(1)}` : `A${cursor.slice(1)}`;
    expect((await call(`/v1/pets?cursor=${edited}&status=sold`)).status).toBe(400);
    const otherFilter = await errorOf(await call(`/v1/pets?cursor=${cursor}&status=available`));
    expect(otherFilter).toMatchObject({ status: 400, details: [{ path: 'cursor' }] });
    expect((await call(`/v1/pets?cursor=${cursor}`)).status).toBe(400);
    expect((await call(`/v1/pets?cursor=${cursor}&status=sold`)).status).toBe(200);
  });

  it('accepts a cursor from another service instance with the same secret (restarts)', async () => {
    const a = makeService();
    await a.seed(catalogue(5));
    const next = nextOf(await a.call('/v1/pets?limit=2'))!;
    const b = makeService({ storage: a.storage });
    expect(((await (await b.call(next)).json()) as Pet[]).map((pet) => pet.id)).toEqual([3, 4]);
  });

  it('shows a change that a storage makes to the animals it hands over, the same page asked again', async () => {
    // A storage of its own that keeps mutable animals and changes one in place.
    const pets: Pet[] = [
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 2, name: 'Luna', categoryId: 1, status: 'available' },
    ];
    const storage = createMemoryStorage();
    storage.list = async ({ after, limit }) => pets.filter((pet) => pet.id > after).slice(0, limit);
    const { call } = makeService({ storage });
    const before = await call('/v1/pets?limit=1');
    expect(await before.json()).toEqual([pets[0]]);
    pets[0]!.name = 'Rex the Second';
    const after = await call('/v1/pets?limit=1');
    expect(await after.json()).toEqual([{ id: 1, name: 'Rex the Second', categoryId: 1, status: 'available' }]);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });
});

describe('list pages answered at once', () => {
  const pets: Pet[] = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, name: `Pet ${i + 1}`, categoryId: 1, status: statuses[i % 3]! }));
  const request = (path: string, key: string | null = KEY) =>
    new Request(`${ORIGIN}${path}`, key === null ? {} : { headers: { authorization: `Bearer ${key}` } });
  /** The parts of an answer a client sees. */
  const seen = async (response: Response) => ({
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  });

  it('answers pages from memory without a promise, exactly as the service answers, cursors and errors included', async () => {
    // Web Crypto, the default hash, always answers later; Node's native one at once.
    const { service } = makeService({ storage: createMemoryStorage(pets), sha256: nodeSha256 });
    const first = await service(request('/v1/pets?limit=7'));
    const next = nextOf(first)!;
    const paths = ['/v1/pets?limit=7', next, '/v1/pets?status=sold&limit=3', '/v1/pets?limit=0', '/v1/pets?cursor=forged.seal'];
    for (const path of paths) {
      const answered = service.handle(request(path));
      expect(answered, path).toBeInstanceOf(Response);
      expect(await seen(answered as Response), path).toEqual(await seen(await service(request(path))));
    }
  });

  it('answers with a promise, and the same pages, when the storage answers with one', async () => {
    const memory = createMemoryStorage(pets);
    const { service } = makeService({ storage: { ...memory, list: async (page) => memory.list(page) }, sha256: nodeSha256 });
    await service(request('/v1/pets'));
    const answered = service.handle(request('/v1/pets?limit=2'));
    expect(answered).toBeInstanceOf(Promise);
    expect(((await (await answered).json()) as Pet[]).map(({ id }) => id)).toEqual([1, 2]);
  });

  it('keeps pages that start with the same animal apart: each limit, and a page that gained a next one, its own body and tag', async () => {
    const memory = createMemoryStorage(pets.slice(0, 5));
    const { service } = makeService({ storage: memory, sha256: nodeSha256 });
    const ask = async (path: string) => {
      const response = await service(request(path));
      return { ids: ((await response.json()) as Pet[]).map(({ id }) => id), etag: response.headers.get('etag'), next: nextOf(response) };
    };
    for (let round = 0; round < 3; round++) {
      // Six pages, all starting at animal 1, asked in turn: more than the four one first animal keeps.
      for (const limit of [1, 2, 3, 4, 5, 6]) {
        const page = await ask(`/v1/pets?limit=${limit}`);
        expect(page.ids).toEqual([1, 2, 3, 4, 5].slice(0, limit));
        expect(page.next === undefined).toBe(limit >= 5);
      }
    }
    const tags = new Set<string | null>();
    for (const limit of [1, 2, 3, 4, 5]) tags.add((await ask(`/v1/pets?limit=${limit}`)).etag);
    expect(tags.size).toBe(5);
    // The whole catalogue on one page; one more animal makes it a page with a next link.
    const before = await ask('/v1/pets?limit=5');
    await memory.create({ name: 'Pet 6', categoryId: 1, status: 'available' });
    const after = await ask('/v1/pets?limit=5');
    expect(after.ids).toEqual(before.ids);
    expect(after.next).toBeDefined();
    expect(after.etag).not.toBe(before.etag);
  });
});
