/**
 * @module Live pulls and bounded leases on a PostgreSQL hub of two instances (two storages
 * on one database, each with its own service): a create or push at one instance wakes a
 * pull waiting at the other (LISTEN/NOTIFY), and a key's fifth unused block is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPetService, type Pet } from '../../core/index.js';
import { openPostgresStorage } from '../../storage/postgres/openPostgresStorage.js';
import { useTestDatabase } from '../support/testDatabase.js';

const database = useTestDatabase();
const KEY = 'hub-key-for-live-pulls';
const KIOSK = 'kiosk-key-live-pulls';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const instance = async (url: string) => {
  const storage = await openPostgresStorage({ connectionString: url });
  closers.push(() => storage.close());
  const service = createPetService({ storage, keys: [KEY, { key: KIOSK, scopes: ['sync'], name: 'kiosk-1' }] });
  const call = (path: string, key = KEY, init: RequestInit = {}) =>
    service(
      new Request(`http://hub.test/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      }),
    );
  return { service, call };
};

describe('a PostgreSQL hub of two instances', () => {
  it('Should answer a pull waiting at one instance when an animal is created, or pushed, at the other', { timeout: 60_000 }, async () => {
    const url = await database.freshDatabase();
    const [one, two] = [await instance(url), await instance(url)];
    const created = one.call('/sync/pull?wait=30', KIOSK);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rex = (await (
      await two.call('/pets', KEY, { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 1 }) })
    ).json()) as Pet;
    expect(await (await created).json()).toEqual({ pets: [rex], checkpoint: rex.id });

    const block = (await (await one.call('/sync/leases', KIOSK, { method: 'POST' })).json()) as { first: number };
    const pushedWait = two.call(`/sync/pull?checkpoint=${rex.id}&wait=30`, KIOSK);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pet = { id: block.first, name: 'Kiosk cat', categoryId: 2, status: 'available' };
    expect((await one.call('/sync/push', KIOSK, { method: 'POST', body: JSON.stringify({ pets: [pet] }) })).status).toBe(200);
    expect(await (await pushedWait).json()).toEqual({ pets: [pet], checkpoint: pet.id });
  });

  it('Should refuse a key’s fifth unused block with 429 at either instance, and show its blocks in the fleet view', {
    timeout: 60_000,
  }, async () => {
    const url = await database.freshDatabase();
    const [one, two] = [await instance(url), await instance(url)];
    for (const hub of [one, two, one, two]) expect((await hub.call('/sync/leases', KIOSK, { method: 'POST' })).status).toBe(201);
    for (const hub of [one, two]) {
      const refused = await hub.call('/sync/leases', KIOSK, { method: 'POST' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    }
    const { kiosks } = (await (await two.call('/sync/kiosks')).json()) as {
      kiosks: Array<{ name: string; blocks: number; unusedBlocks: number }>;
    };
    expect(kiosks.find(({ name }) => name === 'kiosk-1')).toMatchObject({ blocks: 4, unusedBlocks: 4 });
  });
});
