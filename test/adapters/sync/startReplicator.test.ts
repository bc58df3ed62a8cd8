import { describe, expect, it } from 'vitest';
import { startReplicator } from '../../../adapters/sync/startReplicator.js';
import { AnimalStoreError } from '../../../core/AnimalStoreError.js';
import { createPetService } from '../../../core/createPetService.js';
import { createSyncClient } from '../../../core/sync/createSyncClient.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';

const HUB_KEY = 'hub-key-for-tests-0001';
const rex = { name: 'Rex', categoryId: 1, status: 'available' } as const;

/** A hub service in process, reached through a fetch that can be switched off as a cut would. */
const makeHub = (keys = [HUB_KEY]) => {
  const storage = createMemoryStorage();
  const service = createPetService({ storage, keys, logger: { warn() {}, error() {} } });
  /** `leasesHeld`, while set: leases wait for it, as a slow hub's answer does. */
  const link: { up: boolean; calls: number; leasesHeld?: Promise<void> } = { up: true, calls: 0 };
  const fetchHub = (async (input: RequestInfo | URL, init?: RequestInit) => {
    link.calls++;
    if (!link.up) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    if (link.leasesHeld && String(input).endsWith('/sync/leases')) await link.leasesHeld;
    return service(new Request(input, init));
  }) as typeof fetch;
  return { storage, link, fetchHub };
};

const startKiosk = async (
  hub: ReturnType<typeof makeHub>,
  storage = createMemoryStorage(),
  { warnings = [] as string[], now = Date.now } = {},
) => {
  const replicator = await startReplicator({
    storage,
    hub: 'http://hub.test/v1',
    key: HUB_KEY,
    intervalSeconds: 3600,
    client: createSyncClient({ hub: 'http://hub.test/v1', key: HUB_KEY, fetch: hub.fetchHub }),
    log: { warn: (message) => warnings.push(message) },
    now,
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

  it('Should answer a create that comes before the first lease once the lease is kept, keyed or not, instead of refusing it', async () => {
    const hub = makeHub();
    let answerLeases = () => {};
    hub.link.leasesHeld = new Promise((resolve) => {
      answerLeases = resolve;
    });
    const replicator = await startReplicator({
      storage: createMemoryStorage(),
      hub: 'http://hub.test/v1',
      key: HUB_KEY,
      intervalSeconds: 3600,
      client: createSyncClient({ hub: 'http://hub.test/v1', key: HUB_KEY, fetch: hub.fetchHub }),
    });
    const key = { scope: 'caller', key: 'first-create', fingerprint: 'f', createdAt: Date.now(), expiresAt: Date.now() + 60_000 };
    const created = Promise.all([replicator.storage.create(rex), replicator.storage.createIdempotent(rex, key)]);
    // Both are waiting for the lease the first round asked for.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await replicator.status()).toMatchObject({ idsLeft: 0 });
    answerLeases();
    const [plain, keyed] = await created;
    expect([plain.id, keyed.pet.id]).toEqual([1, 2]);
    expect(keyed.replayed).toBe(false);
    expect(await replicator.storage.createIdempotent(rex, key)).toMatchObject({ pet: keyed.pet, replayed: true });
    await replicator.stop();
  });

  it('Should refuse a create with no ids left at once after a round failed to reach the hub, leaving the hub to the rounds', async () => {
    const hub = makeHub();
    hub.link.up = false;
    const { replicator } = await startKiosk(hub);
    const callsBefore = hub.link.calls;
    for (let attempt = 0; attempt < 20; attempt++) {
      const refused = await replicator.storage.create(rex).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/has not reached its hub/) });
    }
    // Clients retrying a refused create do not press an unreachable hub: the rounds try again.
    expect(hub.link.calls).toBe(callsBefore);
    hub.link.up = true;
    await replicator.syncNow();
    expect((await replicator.storage.create(rex)).id).toBe(1);
    await replicator.stop();
  });

  it('Should make a create that used the last leased id wait for the next block, asking the hub for it', async () => {
    const hub = makeHub();
    const { storage, replicator } = await startKiosk(hub);
    // The lease the rounds ask for ahead of need waits until the kiosk has used every id it holds.
    let answerLeases = () => {};
    hub.link.leasesHeld = new Promise((resolve) => {
      answerLeases = resolve;
    });
    let left = (await replicator.status()).idsLeft;
    while (left-- > 0) await storage.create(rex);
    expect(await storage.create(rex).catch((error: unknown) => error)).toMatchObject({ code: 'storage_unavailable' });
    const created = replicator.storage.create(rex);
    await new Promise((resolve) => setTimeout(resolve, 100));
    answerLeases();
    expect((await created).id).toBe(1001);
    await replicator.stop();
  });

  it('Should push a local create and bring a hub’s animal down at once, with rounds an hour apart (live pulls)', async () => {
    const hub = makeHub();
    const { storage, replicator } = await startKiosk(hub);
    const until = async (condition: () => Promise<boolean>) => {
      for (const started = Date.now(); !(await condition()); await new Promise((resolve) => setTimeout(resolve, 10))) {
        if (Date.now() - started > 5_000) throw new Error('not within 5 s');
      }
    };
    const local = await storage.create(rex);
    await until(async () => (await hub.storage.get(local.id)) !== undefined);
    const atHub = await hub.storage.create({ ...rex, name: 'Hubby' });
    await until(async () => (await storage.get(atHub.id)) !== undefined);
    expect(await replicator.status()).toMatchObject({ reachable: true, waiting: 0 });
    await replicator.stop();
  });

  it('Should leave live pulls off with waitSeconds 0, syncing by rounds alone', async () => {
    const hub = makeHub();
    const storage = createMemoryStorage();
    const replicator = await startReplicator({
      storage,
      hub: 'http://hub.test/v1',
      key: HUB_KEY,
      intervalSeconds: 3600,
      waitSeconds: 0,
      client: createSyncClient({ hub: 'http://hub.test/v1', key: HUB_KEY, fetch: hub.fetchHub }),
    });
    await replicator.syncNow();
    const atHub = await hub.storage.create({ ...rex, name: 'Hubby' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await storage.get(atHub.id)).toBeUndefined();
    await replicator.syncNow();
    expect(await storage.get(atHub.id)).toEqual(atHub);
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
    // One create a second, as a shop's kiosk makes them.
    let clock = 0;
    const { storage, replicator } = await startKiosk(hub, undefined, { now: () => clock });
    for (let count = 0; count < 501; count++) {
      clock += 1000;
      await storage.create(rex);
    }
    await replicator.syncNow();
    const kiosk = await storage.sync.kiosk();
    expect(kiosk?.blocks).toHaveLength(2);
    expect((await replicator.status()).idsLeft).toBe(1499);
    await replicator.stop();
  });

  it('Should lease ahead of a flood of creates so none is refused, holding at most three blocks', async () => {
    const hub = makeHub();
    const warnings: string[] = [];
    let clock = 0;
    const { storage, replicator } = await startKiosk(hub, undefined, { warnings, now: () => clock });
    // 8,000 creates a second, a round every 100 ms: half a block left at a round lasts 60 ms.
    let refused = 0;
    const held: number[] = [];
    for (let round = 0; round < 20; round++) {
      for (let count = 0; count < 800; count++) {
        try {
          await storage.create(rex);
        } catch (error) {
          if (!(error instanceof AnimalStoreError) || error.code !== 'storage_unavailable') throw error;
          refused++;
        }
      }
      clock += 100;
      await replicator.syncNow();
      held.push((await replicator.status()).idsLeft);
    }
    expect(refused).toBe(0);
    // Two fresh blocks and the one in use: under the hub's bound of 4 blocks nothing was pushed from.
    expect(Math.max(...held)).toBeLessThanOrEqual(3000);
    expect(Math.max(...held.slice(5))).toBeGreaterThan(1500);
    expect(await replicator.status()).toMatchObject({ reachable: true, waiting: 0, problem: null });
    expect(warnings).toEqual([]);
    // Once the flood stops, the kiosk leases at half a block again.
    clock += 60_000;
    await replicator.syncNow();
    const leased = (await storage.sync.kiosk())?.blocks.at(-1);
    for (let count = 0; count < 10; count++) await replicator.syncNow();
    expect((await storage.sync.kiosk())?.blocks.at(-1)).toEqual(leased);
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

  it('Should say, in its status, its log (once) and refused creates, that the hub refuses its key, never showing the key', async () => {
    const hub = makeHub(['another-key-the-hub-takes']);
    const warnings: string[] = [];
    const { replicator } = await startKiosk(hub, createMemoryStorage(), { warnings });
    await replicator.syncNow();
    await replicator.syncNow();
    const { problem, reachable, lastPush, lastPull } = await replicator.status();
    expect({ reachable, lastPush, lastPull }).toEqual({ reachable: false, lastPush: null, lastPull: null });
    expect(problem).toMatch(/the hub http:\/\/hub\.test\/v1 refuses this kiosk's sync key: it answered 401/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/refuses this kiosk's sync key/);
    const refused = await replicator.storage.create(rex).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/^The hub refuses this kiosk's sync key \(it answered 401\)/),
    });
    expect(JSON.stringify([problem, warnings, (refused as Error).message])).not.toContain(HUB_KEY);
    await replicator.stop();
  });

  it('Should move lastPush only when the hub answered a push, and lastPull only when it answered a pull', async () => {
    const hub = makeHub();
    let clock = 1_000_000;
    const { storage, replicator } = await startKiosk(hub, createMemoryStorage(), { now: () => clock });
    const first = await replicator.status();
    // The first round pushed nothing: no push was answered yet, a pull was.
    expect(first).toMatchObject({ lastPush: null, lastPull: new Date(1_000_000).toISOString() });
    await storage.create(rex);
    clock += 1000;
    await replicator.syncNow();
    expect(await replicator.status()).toMatchObject({
      lastPush: new Date(1_001_000).toISOString(),
      lastPull: new Date(1_001_000).toISOString(),
    });
    hub.link.up = false;
    clock += 1000;
    await replicator.syncNow();
    await storage.create(rex);
    clock += 1000;
    await replicator.syncNow();
    expect(await replicator.status()).toMatchObject({
      reachable: false,
      waiting: 1,
      lastPush: new Date(1_001_000).toISOString(),
      lastPull: new Date(1_001_000).toISOString(),
    });
    await replicator.stop();
  });
});
