import { describe, expect, it } from 'vitest';
import { startReplicator } from '../../../adapters/sync/createReplicator.js';
import { createPetService } from '../../../core/createPetService.js';
import { createSyncClient } from '../../../core/sync/createSyncClient.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';

const HUB_KEY = 'hub-key-for-tests-0001';
const rex = { name: 'Rex', categoryId: 1, status: 'available' } as const;

/** A hub service in process, reached through a fetch that can be switched off as a cut would. */
const makeHub = () => {
  const storage = createMemoryStorage();
  const service = createPetService({ storage, keys: [HUB_KEY], logger: { warn() {}, error() {} } });
  const link = { up: true, calls: 0 };
  const fetchHub = (async (input: RequestInfo | URL, init?: RequestInit) => {
    link.calls++;
    if (!link.up) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    return service(new Request(input, init));
  }) as typeof fetch;
  return { storage, link, fetchHub };
};

const startKiosk = async (hub: ReturnType<typeof makeHub>, storage = createMemoryStorage()) => {
  const replicator = await startReplicator({
    storage,
    hub: 'http://hub.test/v1',
    key: HUB_KEY,
    intervalSeconds: 3600,
    client: createSyncClient({ hub: 'http://hub.test/v1', key: HUB_KEY, fetch: hub.fetchHub }),
  });
  await replicator.syncNow();
  return { storage, replicator };
};

describe('the replicator', () => {
  it('Should lease a block on its first round, push local creates once, and pull the hub’s animals', async () => {
    const hub = makeHub();
    const { storage, replicator } = await startKiosk(hub);
    const local = await storage.create(rex);
    const atHub = await hub.storage.create({ ...rex, name: 'Hubby' });
    await replicator.syncNow();
    await replicator.syncNow();
    // Each catalogue lists in its own arrival order; the ids are the same everywhere.
    expect(await hub.storage.list({ after: 0, limit: 10 })).toEqual([atHub, local]);
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([local, atHub]);
    expect(await replicator.status()).toMatchObject({ reachable: true, waiting: 0, idsLeft: 999, problem: null });
    await replicator.stop();
  });

  it('Should keep creating offline once it holds ids, and report what waits until the hub is back', async () => {
    const hub = makeHub();
    const { storage, replicator } = await startKiosk(hub);
    hub.link.up = false;
    await storage.create(rex);
    await storage.create(rex);
    await replicator.syncNow();
    expect(await replicator.status()).toMatchObject({ reachable: false, waiting: 2 });
    expect((await replicator.status()).problem).toMatch(/cannot reach the hub http:\/\/hub\.test\/v1: ECONNREFUSED/);
    hub.link.up = true;
    await replicator.syncNow();
    expect(await replicator.status()).toMatchObject({ reachable: true, waiting: 0 });
    expect(await hub.storage.list({ after: 0, limit: 10 })).toHaveLength(2);
    await replicator.stop();
  });

  it('Should lease the next block well before the current one runs out', async () => {
    const hub = makeHub();
    const { storage, replicator } = await startKiosk(hub);
    for (let count = 0; count < 501; count++) await storage.create(rex);
    await replicator.syncNow();
    const kiosk = await storage.sync.kiosk();
    expect(kiosk?.blocks).toHaveLength(2);
    expect((await replicator.status()).idsLeft).toBe(1499);
    await replicator.stop();
  });

  it('Should pull a feed longer than one batch to its end in one round', async () => {
    const hub = makeHub();
    for (let count = 0; count < 2500; count++) await hub.storage.create(rex);
    const { storage, replicator } = await startKiosk(hub);
    expect((await storage.list({ after: 0, limit: 5000 })).length).toBe(2500);
    expect((await storage.sync.kiosk())?.checkpoint).toBe(2500);
    await replicator.stop();
  });
});
