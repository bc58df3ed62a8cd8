/** @module The sync contract: one suite every storage with `sync` must pass, as a hub and as a kiosk. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PetStorage } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { SyncJoinError } from '../../core/sync/SyncStorage.js';

/** Makes a fresh, empty storage for one test; `reopen` opens the same one again, when it is durable. */
export interface SyncStorageFactory {
  create(): Promise<PetStorage>;
  reopen?(storage: PetStorage): Promise<PetStorage>;
}

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const pet = (id: number, name = `Animal ${id}`): Pet => ({ id, name, categoryId: 1, status: 'pending' });
const KIOSK_A = 'a'.repeat(64);
const KIOSK_B = 'b'.repeat(64);
const HUB = 'http://127.0.0.1:9/v1';

/** Waits until `condition` holds (a notification may come a moment after the write resolves). */
const until = async (condition: () => boolean) => {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() - started > 5_000) throw new Error('not within 5 s');
  }
};

const listAll = async (storage: PetStorage, status?: Pet['status']) => {
  const all: Pet[] = [];
  for (let after = 0; ; ) {
    const page = await storage.list({ after, limit: 3, status });
    if (page.length === 0) return all;
    all.push(...page);
    after = page.at(-1)!.id;
  }
};

/** Registers the sync contract for one implementation. */
export const describeSyncContract = (name: string, factory: SyncStorageFactory): void => {
  describe(`${name} (sync contract)`, () => {
    let storage: PetStorage;
    beforeEach(async () => {
      storage = await factory.create();
    });
    afterEach(async () => {
      await storage.close();
    });
    const sync = () => storage.sync!;

    describe('as a hub', () => {
      it('leases blocks above every id, and its own creates never take a leased id', async () => {
        const first = await storage.create(rex);
        const block = await sync().lease(KIOSK_A, 1000);
        expect(block).toEqual({ first: first.id + 1, last: first.id + 1000 });
        const other = await sync().lease(KIOSK_B, 10);
        expect(other.first).toBe(block.last + 1);
        expect((await storage.create(rex)).id).toBe(other.last + 1);
      });

      it('refuses a key a fifth block from which nothing was pushed (429 rate_limited), leasing nothing, until it pushes from one', async () => {
        const blocks = [];
        for (let lease = 0; lease < 4; lease++) blocks.push(await sync().lease(KIOSK_A, 100));
        await expect(sync().lease(KIOSK_A, 100)).rejects.toMatchObject({ code: 'rate_limited', headers: { 'retry-after': '60' } });
        expect(await sync().leasesOf!(KIOSK_A)).toEqual({ blocks: 4, unused: 4 });
        // Nothing was leased: the next block, another key's, follows the fourth.
        expect((await sync().lease(KIOSK_B, 100)).first).toBe(blocks[3]!.last + 1);
        await sync().store(KIOSK_A, [pet(blocks[2]!.first + 1)]);
        expect(await sync().leasesOf!(KIOSK_A)).toEqual({ blocks: 4, unused: 3 });
        const reopened = factory.reopen ? await factory.reopen(storage) : storage;
        storage = reopened;
        expect(await sync().leasesOf!(KIOSK_A)).toEqual({ blocks: 4, unused: 3 });
        expect((await sync().lease(KIOSK_A, 100)).first).toBeGreaterThan(blocks[3]!.last);
      });

      it('tells its arrival listeners of a create and of a push, until they stop listening', async () => {
        let told = 0;
        const stop = sync().onArrival!(() => told++);
        const block = await sync().lease(KIOSK_A, 100);
        await storage.create(rex);
        await until(() => told >= 1);
        await sync().store(KIOSK_A, [pet(block.first)]);
        await until(() => told >= 2);
        stop();
        const before = told;
        await storage.create(rex);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(told).toBe(before);
      });

      it('stores a pushed animal with its id, at the end of the arrival order, and a repeated push changes nothing', async () => {
        const block = await sync().lease(KIOSK_A, 100);
        const local = await storage.create(rex);
        const pushed = pet(block.first + 5);
        expect(await sync().store(KIOSK_A, [pushed])).toEqual({ stored: 1, present: 0 });
        expect(await sync().store(KIOSK_A, [pushed])).toEqual({ stored: 0, present: 1 });
        expect(await storage.get(pushed.id)).toEqual(pushed);
        expect((await listAll(storage)).map(({ id }) => id)).toEqual([local.id, pushed.id]);
        expect((await listAll(storage, 'pending')).map(({ id }) => id)).toEqual([pushed.id]);
        // The pull feed after the hub's own animal gives the pushed one.
        expect(await storage.list({ after: local.id, limit: 10 })).toEqual([pushed]);
      });

      it('refuses a whole push holding an id not leased to that key, storing nothing', async () => {
        const mine = await sync().lease(KIOSK_A, 10);
        const theirs = await sync().lease(KIOSK_B, 10);
        await expect(sync().store(KIOSK_A, [pet(mine.first), pet(theirs.first)])).rejects.toMatchObject({ code: 'forbidden' });
        await expect(sync().store(KIOSK_A, [pet(theirs.last + 1)])).rejects.toMatchObject({ code: 'forbidden' });
        expect(await storage.get(mine.first)).toBeUndefined();
      });

      it('refuses a push that would change a stored animal', async () => {
        const block = await sync().lease(KIOSK_A, 10);
        await sync().store(KIOSK_A, [pet(block.first)]);
        await expect(sync().store(KIOSK_A, [pet(block.first + 1), pet(block.first, 'Changed')])).rejects.toMatchObject({
          code: 'sync_conflict',
        });
        expect(await storage.get(block.first + 1)).toBeUndefined();
      });
    });

    describe('as a kiosk', () => {
      it('refuses leases and pushes from any key with sync_conflict, storing nothing', async () => {
        await sync().join(HUB);
        await sync().addBlock({ first: 101, last: 200 });
        const mine = await storage.create(rex);
        await sync().insertPulled([pet(7)], 7);
        await expect(sync().lease(KIOSK_A, 1000)).rejects.toMatchObject({ code: 'sync_conflict', status: 409 });
        await expect(sync().store(KIOSK_A, [pet(8), pet(mine.id, 'Intruder')])).rejects.toMatchObject({ code: 'sync_conflict' });
        expect((await listAll(storage)).map(({ id }) => id)).toEqual([mine.id, 7]);
        expect((await storage.create(rex)).id).toBe(mine.id + 1);
        expect((await sync().kiosk())?.blocks).toEqual([{ first: 101, last: 200 }]);
      });

      it('refuses a block holding ids it holds (a hub restored from a backup), and keeps giving ids from its own', async () => {
        await sync().join(HUB);
        await sync().addBlock({ first: 101, last: 102 });
        await sync().insertPulled([pet(7)], 7);
        await expect(sync().addBlock({ first: 1, last: 1000 })).rejects.toMatchObject({ code: 'sync_conflict' });
        await sync().addBlock({ first: 101, last: 102 });
        expect((await sync().kiosk())?.blocks).toEqual([{ first: 101, last: 102 }]);
        expect((await storage.create(rex)).id).toBe(101);
      });

      it('drops a block once every id in it was given and pushed, keeping the last, and still refuses a block from below', async () => {
        await sync().join(HUB);
        for (const first of [101, 201, 301]) await sync().addBlock({ first, last: first + 1 });
        const blocks = async () => (await sync().kiosk())?.blocks.map(({ first }) => first);
        const ids = [(await storage.create(rex)).id, (await storage.create(rex)).id, (await storage.create(rex)).id];
        expect(ids).toEqual([101, 102, 201]);
        await sync().insertPulled([pet(7)], 7);
        // 101 and 102 pushed: their block is spent. 201 waits, and 202 is not given yet.
        await sync().markPushed(102);
        expect(await blocks()).toEqual([201, 301]);
        await storage.create(rex);
        await sync().markPushed(201);
        // Every id of 201 to 202 is given, but 202 waits to be pushed.
        expect(await blocks()).toEqual([201, 301]);
        expect(await sync().waiting()).toBe(1);
        expect((await sync().unpushed(10)).pets.map(({ id }) => id)).toEqual([202]);
        await sync().markPushed(202);
        expect(await blocks()).toEqual([301]);
        expect([(await storage.create(rex)).id, (await storage.create(rex)).id]).toEqual([301, 302]);
        await expect(storage.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
        await sync().markPushed(302);
        // Every block spent: the last one stays, so the kiosk knows how far its hub leased.
        expect(await sync().kiosk()).toMatchObject({ blocks: [{ first: 301, last: 302 }], nextId: 0 });
        expect(await sync().waiting()).toBe(0);
        await expect(sync().addBlock({ first: 101, last: 102 })).rejects.toMatchObject({ code: 'sync_conflict' });
        await expect(sync().addBlock({ first: 150, last: 160 })).rejects.toThrow(/ids up to 302/);
        await sync().addBlock({ first: 301, last: 302 });
        await expect(sync().join('http://127.0.0.1:10/v1')).rejects.toThrow(SyncJoinError);
        await sync().addBlock({ first: 401, last: 500 });
        expect((await storage.create(rex)).id).toBe(401);
        const held = (await listAll(storage)).map(({ id }) => id);
        expect(held).toEqual([101, 102, 201, 7, 202, 301, 302, 401]);
      });

      it('never gives again an id of its own that comes back in a pull while it does not hold it (a kiosk restored from a backup)', async () => {
        await sync().join(HUB);
        await sync().addBlock({ first: 101, last: 110 });
        await sync().addBlock({ first: 201, last: 210 });
        expect(await sync().insertPulled([pet(7), pet(104), pet(110)], 110)).toBe(3);
        const next = await storage.create(rex);
        expect(next.id).toBe(201);
        const ids = (await listAll(storage)).map(({ id }) => id);
        expect(new Set(ids).size).toBe(ids.length);
      });

      it('will not become a kiosk once it leased ids as a hub', async () => {
        await sync().lease(KIOSK_A, 10);
        await expect(sync().join(HUB)).rejects.toThrow(SyncJoinError);
        expect(await sync().kiosk()).toBeUndefined();
      });

      it('refuses creates until it holds a leased block, then gives ids from its blocks in order', async () => {
        await sync().join(HUB);
        await expect(storage.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
        await sync().addBlock({ first: 5001, last: 5002 });
        await sync().addBlock({ first: 9001, last: 9001 });
        const ids = [];
        for (let count = 0; count < 3; count++) ids.push((await storage.create(rex)).id);
        expect(ids).toEqual([5001, 5002, 9001]);
        await expect(storage.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
      });

      it('pushes its own animals in arrival order, skipping pulled ones, and counts what waits', async () => {
        await sync().join(HUB);
        await sync().addBlock({ first: 101, last: 200 });
        const mine = await storage.create(rex);
        expect(await sync().insertPulled([pet(7), pet(101)], 7)).toBe(1);
        const later = await storage.create(rex);
        expect(await sync().waiting()).toBe(2);
        const first = await sync().unpushed(1);
        expect(first).toEqual({ pets: [mine], through: mine.id });
        await sync().markPushed(first.through);
        const rest = await sync().unpushed(10);
        expect(rest).toEqual({ pets: [later], through: later.id });
        await sync().markPushed(rest.through);
        expect(await sync().waiting()).toBe(0);
        expect(await sync().unpushed(10)).toEqual({ pets: [], through: later.id });
        expect((await listAll(storage)).map(({ id }) => id)).toEqual([101, 7, 102]);
        expect((await sync().kiosk())?.checkpoint).toBe(7);
      });

      it('will not join a hub while it holds animals made without sync, naming animal-store copy', async () => {
        await storage.create(rex);
        await expect(sync().join(HUB)).rejects.toThrow(SyncJoinError);
        await expect(sync().join(HUB)).rejects.toThrow(/animal-store copy/);
      });

      it('joins one hub for ever once it leased ids, naming the way out', async () => {
        await sync().join(HUB);
        await sync().addBlock({ first: 101, last: 200 });
        await expect(sync().join(HUB)).resolves.toMatchObject({ hub: HUB });
        await expect(sync().join('http://127.0.0.1:10/v1')).rejects.toThrow(/cannot change hubs.*new, empty data file/);
        await storage.create(rex);
        await expect(sync().join('http://127.0.0.1:10/v1')).rejects.toThrow(/holds 1 animal from it.*animal-store copy/);
        expect((await sync().kiosk())?.hub).toBe(HUB);
      });

      it('takes the same hub however its URL is written: trailing slash, default port, host case', async () => {
        await sync().join('http://Hub.Example/v1');
        await sync().addBlock({ first: 101, last: 200 });
        for (const same of ['http://hub.example/v1/', 'http://HUB.example:80/v1', 'http://hub.example:80/v1//']) {
          await expect(sync().join(same)).resolves.toMatchObject({ blocks: [{ first: 101, last: 200 }] });
        }
        for (const other of ['https://hub.example/v1', 'http://hub.example:8080/v1', 'http://hub.example/V1']) {
          await expect(sync().join(other)).rejects.toThrow(SyncJoinError);
        }
      });

      it('moves to another hub while it never leased a block nor holds an animal (a mistyped URL corrected)', async () => {
        await sync().join('http://mistyped.example/v1');
        await expect(sync().join(HUB)).resolves.toEqual({ hub: HUB, blocks: [], nextId: 0, pushedThrough: 0, checkpoint: 0 });
        expect((await sync().kiosk())?.hub).toBe(HUB);
        await sync().addBlock({ first: 101, last: 200 });
        expect((await storage.create(rex)).id).toBe(101);
      });

      const { reopen } = factory;
      if (reopen)
        it('keeps its blocks, progress and pulled animals across a reopen', async () => {
          await sync().join(HUB);
          await sync().addBlock({ first: 101, last: 102 });
          const mine = await storage.create(rex);
          await sync().insertPulled([pet(7)], 7);
          await sync().markPushed(mine.id);
          storage = await reopen(storage);
          expect(await storage.sync!.kiosk()).toEqual({
            hub: HUB,
            blocks: [{ first: 101, last: 102 }],
            nextId: 102,
            pushedThrough: mine.id,
            checkpoint: 7,
          });
          expect((await listAll(storage)).map(({ id }) => id)).toEqual([101, 7]);
          expect((await storage.create(rex)).id).toBe(102);
          expect(await storage.sync!.waiting()).toBe(1);
        });
    });
  });
};
