import { describe, expect, it } from 'vitest';
import { walkPages } from '../../../core/catalogue/createCatalogue.js';
import type { Pet } from '../../../core/index.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';
import { errorOf, KEY, makeService, OTHER_KEY } from '../helpers.js';

const json = (body: unknown, key = KEY) => ({
  method: 'POST',
  key,
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const lease = async (call: ReturnType<typeof makeService>['call'], key = KEY) => {
  const response = await call('/v1/sync/leases', { method: 'POST', key });
  expect(response.status).toBe(201);
  return (await response.json()) as { first: number; last: number };
};

const pull = async (call: ReturnType<typeof makeService>['call'], query: string) => {
  const response = await call(`/v1/sync/pull${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { pets: Pet[]; checkpoint: number };
};

describe('sync endpoints on a hub', () => {
  it('Should lease blocks of 1,000 ids that the hub’s own creates then skip', async () => {
    const { call, seed } = makeService();
    const [first] = await seed([{ name: 'Rex', categoryId: 1 }]);
    const block = await lease(call);
    expect(block).toEqual({ first: first!.id + 1, last: first!.id + 1000 });
    const [after] = await seed([{ name: 'Tom', categoryId: 1 }]);
    expect(after!.id).toBe(block.last + 1);
  });

  it('Should store a push once, answer a repeated push as present, and serve it in the feed after the hub’s own animals', async () => {
    const { call, seed, listAll } = makeService();
    const block = await lease(call);
    const [own] = await seed([{ name: 'Rex', categoryId: 1 }]);
    const pushed: Pet = { id: block.first, name: 'Kiosk cat', categoryId: 2, status: 'available' };
    for (const expected of [
      { stored: 1, present: 0 },
      { stored: 0, present: 1 },
    ]) {
      const response = await call('/v1/sync/push', json({ pets: [pushed] }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(expected);
    }
    expect(await listAll()).toEqual([own, pushed]);
    expect(await pull(call, '')).toEqual({ pets: [own, pushed], checkpoint: pushed.id });
    expect(await pull(call, `?checkpoint=${own!.id}&limit=1`)).toEqual({ pets: [pushed], checkpoint: pushed.id });
    // Caught up: no animals, the same checkpoint.
    expect(await pull(call, `?checkpoint=${pushed.id}`)).toEqual({ pets: [], checkpoint: pushed.id });
  });

  it('Should refuse, with an Error body and nothing stored, a push of ids leased to another key or never leased', async () => {
    const { call, listAll } = makeService();
    const mine = await lease(call);
    const theirs = await lease(call, OTHER_KEY);
    for (const id of [theirs.first, theirs.last + 1, 999_999]) {
      const response = await call(
        '/v1/sync/push',
        json({
          pets: [
            { id: mine.first, name: 'A', categoryId: 1, status: 'sold' },
            { id, name: 'B', categoryId: 1, status: 'sold' },
          ],
        }),
      );
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe('forbidden');
    }
    expect(await listAll()).toEqual([]);
  });

  it('Should refuse a push that would change a stored animal with 409 sync_conflict', async () => {
    const { call } = makeService();
    const block = await lease(call);
    await call('/v1/sync/push', json({ pets: [{ id: block.first, name: 'A', categoryId: 1, status: 'sold' }] }));
    const response = await call('/v1/sync/push', json({ pets: [{ id: block.first, name: 'B', categoryId: 1, status: 'sold' }] }));
    expect(response.status).toBe(409);
    expect((await errorOf(response)).code).toBe('sync_conflict');
  });

  it.each([
    ['an empty batch', { pets: [] }, 'pets'],
    [
      'a batch over 1,000 animals',
      { pets: Array.from({ length: 1001 }, (_, at) => ({ id: at + 1, name: 'A', categoryId: 1, status: 'sold' })) },
      'pets',
    ],
    ['a malformed id', { pets: [{ id: 1.5, name: 'A', categoryId: 1, status: 'sold' }] }, 'pets.0.id'],
    ['an id of zero', { pets: [{ id: 0, name: 'A', categoryId: 1, status: 'sold' }] }, 'pets.0.id'],
    ['an unknown field in an animal', { pets: [{ id: 5, name: 'A', categoryId: 1, status: 'sold', owner: 'x' }] }, 'pets.0.owner'],
    ['an unknown top-level field', { pets: [{ id: 5, name: 'A', categoryId: 1, status: 'sold' }], more: true }, 'more'],
  ])('Should refuse a push with %s as a 400 naming the place', async (_what, body, path) => {
    const { call } = makeService();
    await lease(call);
    const response = await call('/v1/sync/push', json(body));
    if (response.status === 413) return expect((await errorOf(response)).code).toBe('payload_too_large');
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('validation_failed');
    expect(error.details?.map((detail) => detail.path)).toContain(path);
  });

  it.each([
    ['a checkpoint that is not a number', '?checkpoint=abc', 'checkpoint'],
    ['a negative checkpoint', '?checkpoint=-1', 'checkpoint'],
    ['a limit over 5,000', '?limit=5001', 'limit'],
    ['an unknown parameter', '?since=3', 'since'],
    ['a checkpoint given twice', '?checkpoint=1&checkpoint=2', 'checkpoint'],
  ])('Should refuse a pull with %s as a 400 naming it', async (_what, query, path) => {
    const { call } = makeService();
    const response = await call(`/v1/sync/pull${query}`);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.map((detail) => detail.path)).toContain(path);
  });

  it('Should refuse a lease request with fields', async () => {
    const { call } = makeService();
    const response = await call('/v1/sync/leases', json({ size: 10 }));
    expect(response.status).toBe(400);
    expect((await errorOf(response)).details?.[0]?.path).toBe('size');
  });

  it('Should keep every sync endpoint behind the bearer check', async () => {
    const { call } = makeService();
    for (const [path, method] of [
      ['/v1/sync/leases', 'POST'],
      ['/v1/sync/push', 'POST'],
      ['/v1/sync/pull', 'GET'],
      ['/v1/sync/status', 'GET'],
    ] as const) {
      const response = await call(path, { method, key: null });
      expect(response.status).toBe(401);
    }
  });

  it('Should answer 404 for the status on a server that syncs with no hub', async () => {
    const { call } = makeService();
    const response = await call('/v1/sync/status');
    expect(response.status).toBe(404);
  });
});

describe('sync endpoints on a kiosk', () => {
  it('Should refuse a lease and a push from any of its keys with 409 sync_conflict, storing nothing, and keep creating from its own block', async () => {
    const storage = createMemoryStorage();
    await storage.sync.join('http://hub.example/v1');
    await storage.sync.addBlock({ first: 2, last: 1001 });
    await storage.sync.insertPulled([{ id: 1, name: 'From the hub', categoryId: 1, status: 'sold' }], 1);
    const { call, seed, listAll } = makeService({ storage });
    const [own] = await seed([{ name: 'Rex', categoryId: 1 }]);
    for (const key of [KEY, OTHER_KEY]) {
      const leased = await call('/v1/sync/leases', { method: 'POST', key });
      expect(leased.status).toBe(409);
      expect(await errorOf(leased)).toMatchObject({ code: 'sync_conflict', message: expect.stringMatching(/kiosk/) });
      const pushed = await call('/v1/sync/push', json({ pets: [{ id: 3, name: 'Intruder', categoryId: 1, status: 'sold' }] }, key));
      expect(pushed.status).toBe(409);
      expect((await errorOf(pushed)).code).toBe('sync_conflict');
    }
    const [next] = await seed([{ name: 'Tom', categoryId: 1 }]);
    expect(next!.id).toBe(3);
    expect((await listAll()).map(({ id }) => id)).toEqual([1, own!.id, 3]);
  });
});

describe('listing a catalogue that syncs', () => {
  it('Should page in arrival order, never missing or repeating an animal that arrives below the highest id', async () => {
    const { call, seed, service } = makeService();
    const block = await lease(call);
    await seed([
      { name: 'A', categoryId: 1 },
      { name: 'B', categoryId: 1 },
    ]);
    const first = await service.catalogue.listPets({ limit: 1 });
    await call('/v1/sync/push', json({ pets: [{ id: block.first, name: 'K', categoryId: 1, status: 'available' }] }));
    const [late] = await seed([{ name: 'C', categoryId: 1 }]);
    const rest = [];
    for await (const page of walkPages(service.catalogue.listPets, first.next)) rest.push(...page);
    expect([...first.pets, ...rest].map(({ name }) => name)).toEqual(['A', 'B', 'K', 'C']);
    expect(rest.at(-1)).toEqual(late);
  });
});
