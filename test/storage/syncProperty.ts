/**
 * @module Two properties every storage with `sync` must keep:
 * - whatever random sequence of creates, leases, pushes and pulls, from any key, at a hub or
 *   at a kiosk (also from a hub that misbehaves: blocks and pulled animals it should never
 *   send), no storage ever holds two animals with one id, and every refusal is an Error a
 *   client can be answered with;
 * - with a hub that behaves, every animal a kiosk makes reaches the hub once, whatever the
 *   size of its pushes and wherever it is reopened, and the kiosk keeps only the blocks it
 *   still needs.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isAnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { SyncJoinError } from '../../core/sync/SyncStorage.js';
import { idsLeft } from '../../storage/sync/syncState.js';

/** Opens fresh storages of one kind; `reopen` closes one and opens it again, when it is durable. */
export interface SyncPropertyFactory {
  create(): Promise<PetStorage>;
  reopen?(storage: PetStorage): Promise<PetStorage>;
}

/** One thing done to the hub or the kiosk. */
type Step =
  | { kind: 'create'; at: 'hub' | 'kiosk' }
  | { kind: 'lease'; at: 'hub' | 'kiosk'; scope: number }
  | { kind: 'push'; at: 'hub' | 'kiosk'; scope: number; ids: number[]; name: string }
  | { kind: 'round' }
  | { kind: 'block'; first: number; size: number }
  | { kind: 'pulled'; ids: number[] };

const SCOPES = ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)];
/** The kiosk's own key at the hub. */
const KIOSK_SCOPE = SCOPES[0]!;
/** Small blocks and a small id range, so random ids often land in leased, held and pulled ones. */
const LEASE_SIZE = 20;
const id = fc.integer({ min: 1, max: 240 });
const at = fc.constantFrom('hub' as const, 'kiosk' as const);
const scope = fc.nat(SCOPES.length - 1);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lease' as const), at, scope }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      at,
      scope,
      ids: fc.array(id, { minLength: 1, maxLength: 4 }),
      name: fc.constantFrom('Rex', 'Animal'),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('round' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('block' as const), first: id, size: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pulled' as const), ids: fc.array(id, { minLength: 1, maxLength: 4 }) }) },
);

const rex = { name: 'Rex', categoryId: 1, status: 'available' } as const;
const petOf = (petId: number, name: string): Pet => ({ id: petId, name: `${name} ${petId}`, categoryId: 1, status: 'available' });

const listAll = async (storage: PetStorage): Promise<Pet[]> => {
  const all: Pet[] = [];
  for (let after = 0; ; ) {
    const page = await storage.list({ after, limit: 100 });
    if (page.length === 0) return all;
    all.push(...page);
    after = page.at(-1)!.id;
  }
};

/** Throws unless the storage lists each id once, and `get` finds each animal listed. */
const expectDistinctIds = async (storage: PetStorage, what: string) => {
  const pets = await listAll(storage);
  const ids = pets.map((pet) => pet.id);
  expect(new Set(ids).size, `${what} holds an id twice: ${ids.join(',')}`).toBe(ids.length);
  for (const pet of pets) expect(await storage.get(pet.id), `${what}: get(${pet.id})`).toEqual(pet);
};

/** Runs a step; a refusal must be an Error a client gets an answer from (or a refused join), never anything else. */
const attempt = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (error) {
    if (!(isAnimalStoreError(error) || error instanceof SyncJoinError)) throw error;
    expect(error.message.length).toBeGreaterThan(0);
  }
};

/** One round of a well-behaved replicator: lease when low, push what waits, pull from the checkpoint. */
const round = async (hub: PetStorage, kiosk: PetStorage) => {
  const kioskSync = kiosk.sync!;
  const state = await kioskSync.kiosk();
  if (state !== undefined && state.nextId === 0)
    await attempt(async () => kioskSync.addBlock(await hub.sync!.lease(KIOSK_SCOPE, LEASE_SIZE)));
  await attempt(async () => {
    const { pets, through } = await kioskSync.unpushed(50);
    if (pets.length > 0) await hub.sync!.store(KIOSK_SCOPE, pets);
    await kioskSync.markPushed(through);
  });
  await attempt(async () => {
    const checkpoint = (await kioskSync.kiosk())?.checkpoint ?? 0;
    const pets = await hub.list({ after: checkpoint, limit: 100 });
    await kioskSync.insertPulled(pets, pets.at(-1)?.id ?? checkpoint);
  });
};

/** Registers both properties for one kind of storage. */
export const describeSyncProperties = (name: string, factory: SyncPropertyFactory, numRuns: number): void => {
  itKeepsOneAnimalPerId(name, factory, numRuns);
  itPushesEveryAnimalOnce(name, factory, numRuns);
};

const itKeepsOneAnimalPerId = (name: string, factory: SyncPropertyFactory, numRuns: number): void => {
  it(`${name}: no random sequence of creates, leases, pushes and pulls, from any key, at a hub or a kiosk, ever stores two animals with one id`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        let hub = await factory.create();
        let kiosk = await factory.create();
        try {
          await kiosk.sync!.join('http://hub.example/v1');
          for (const next of steps) {
            const node = 'at' in next && next.at === 'hub' ? hub : kiosk;
            if (next.kind === 'create') await attempt(() => node.create(rex));
            else if (next.kind === 'lease') await attempt(() => node.sync!.lease(SCOPES[next.scope]!, LEASE_SIZE));
            else if (next.kind === 'push') {
              await attempt(() =>
                node.sync!.store(
                  SCOPES[next.scope]!,
                  next.ids.map((pushed) => petOf(pushed, next.name)),
                ),
              );
            } else if (next.kind === 'round') await round(hub, kiosk);
            else if (next.kind === 'block')
              await attempt(() => kiosk.sync!.addBlock({ first: next.first, last: next.first + next.size - 1 }));
            else {
              await attempt(() =>
                kiosk.sync!.insertPulled(
                  next.ids.map((pulled) => petOf(pulled, 'Pulled')),
                  next.ids.at(-1)!,
                ),
              );
            }
            await expectDistinctIds(hub, 'the hub');
            await expectDistinctIds(kiosk, 'the kiosk');
          }
          const { reopen } = factory;
          if (reopen) {
            const before = [await listAll(hub), await listAll(kiosk)];
            hub = await reopen(hub);
            kiosk = await reopen(kiosk);
            expect([await listAll(hub), await listAll(kiosk)]).toEqual(before);
            // And both still work: a create, and a round.
            await attempt(() => kiosk.create(rex));
            await round(hub, kiosk);
            await expectDistinctIds(hub, 'the reopened hub');
            await expectDistinctIds(kiosk, 'the reopened kiosk');
          }
        } finally {
          await hub.close();
          await kiosk.close();
        }
      }),
      { numRuns },
    );
  }, 120_000);
};

/** One thing done in a fleet whose hub behaves. */
type FleetStep =
  | { kind: 'create'; at: 'hub' | 'kiosk'; count: number }
  | { kind: 'push'; limit: number }
  | { kind: 'lease' }
  | { kind: 'pull' }
  | { kind: 'reopen' };

const fleetStep: fc.Arbitrary<FleetStep> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('create' as const), at, count: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('push' as const), limit: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lease' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pull' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
);
/** Blocks of 3 ids, so a run leases, spends and drops many. */
const SMALL_LEASE = 3;

/** Pushes up to `limit` of the kiosk's waiting animals to the hub, and records it, as a replicator does. */
const push = async (hub: PetStorage, kiosk: PetStorage, limit: number) => {
  const { pets, through } = await kiosk.sync!.unpushed(limit);
  if (pets.length > 0) await hub.sync!.store(KIOSK_SCOPE, pets);
  await kiosk.sync!.markPushed(through);
};

/** Leases a block for the kiosk while it has fewer ids left than a block, as a replicator does; a hub may refuse (429) until the kiosk pushes. */
const lease = async (hub: PetStorage, kiosk: PetStorage) => {
  const state = await kiosk.sync!.kiosk();
  if (state === undefined || idsLeft(state) >= SMALL_LEASE) return;
  try {
    await kiosk.sync!.addBlock(await hub.sync!.lease(KIOSK_SCOPE, SMALL_LEASE));
  } catch (error) {
    expect(error).toMatchObject({ code: 'rate_limited' });
  }
};

const pull = async (hub: PetStorage, kiosk: PetStorage) => {
  const checkpoint = (await kiosk.sync!.kiosk())?.checkpoint ?? 0;
  const pets = await hub.list({ after: checkpoint, limit: 100 });
  await kiosk.sync!.insertPulled(pets, pets.at(-1)?.id ?? checkpoint);
};

const itPushesEveryAnimalOnce = (name: string, factory: SyncPropertyFactory, numRuns: number): void => {
  it(`${name}: a kiosk of a hub that behaves gets every animal it makes to the hub once, and keeps only the blocks it needs`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fleetStep, { minLength: 5, maxLength: 40 }), async (steps) => {
        let hub = await factory.create();
        let kiosk = await factory.create();
        const made: Pet[] = [];
        try {
          await kiosk.sync!.join('http://hub.example/v1');
          for (const next of steps) {
            if (next.kind === 'create') {
              for (let count = 0; count < next.count; count++) {
                if (next.at === 'hub') await hub.create(rex);
                else if (((await kiosk.sync!.kiosk())?.nextId ?? 0) !== 0) made.push(await kiosk.create(rex));
              }
            } else if (next.kind === 'push') await push(hub, kiosk, next.limit);
            else if (next.kind === 'lease') await lease(hub, kiosk);
            else if (next.kind === 'pull') await pull(hub, kiosk);
            else if (factory.reopen) kiosk = await factory.reopen(kiosk);
          }
          if (factory.reopen) hub = await factory.reopen(hub);
          while ((await kiosk.sync!.waiting()) > 0) await push(hub, kiosk, 5);
          await pull(hub, kiosk);

          for (const pet of made) expect(await hub.get(pet.id), `the hub holds the kiosk's ${pet.id}`).toEqual(pet);
          await expectDistinctIds(hub, 'the hub');
          await expectDistinctIds(kiosk, 'the kiosk');
          const state = (await kiosk.sync!.kiosk())!;
          // Everything is pushed: only blocks with ids not given yet are needed, and the last one.
          const spent = state.blocks.slice(0, -1).filter(({ last }) => state.nextId === 0 || last < state.nextId);
          expect(spent, `next id ${state.nextId}`).toEqual([]);
          expect(await kiosk.sync!.unpushed(10)).toMatchObject({ pets: [] });
          if (state.nextId !== 0) {
            const next = await kiosk.create(rex);
            expect(await hub.get(next.id)).toBeUndefined();
            expect(next.id).toBeGreaterThan(Math.max(0, ...made.map(({ id }) => id)));
          }
        } finally {
          await hub.close();
          await kiosk.close();
        }
      }),
      { numRuns },
    );
  }, 120_000);
};
