/** @module Sync on PostgreSQL: a hub (leases, pushes) and a kiosk (blocks, progress) that any number of instances share. */
import type { Pet } from '../../core/schemas/Pet.js';
import { type IdBlock, type KioskState, MAX_UNUSED_LEASES, SyncJoinError, type SyncStorage } from '../../core/sync/SyncStorage.js';
import { PetIndex } from '../PetIndex.js';
import { tooManyUnusedLeases } from '../sync/LeaseUse.js';
import {
  checkKioskBlock,
  checkPush,
  inBlocks,
  joinedKiosk,
  kioskRefusal,
  leaseStart,
  sameHub,
  skipPulledOwnIds,
} from '../sync/syncState.js';
import type { PostgresConnection } from './connectPostgres.js';
import type { PostgresArrivals } from './createPostgresArrivals.js';
import { inTransaction } from './inTransaction.js';
import type { PostgresPoolClient } from './PostgresPool.js';
import { syncStatements } from './syncStatements.js';
import { toPet } from './toPet.js';
import { toStorageError } from './toStorageError.js';

/** Animals read per statement while looking for the kiosk's own ones among pulled ones. */
const SCAN_CHUNK = 1000;

/** The animals as the insert statement reads them (fields only, whatever else the objects hold). */
const petsJson = (pets: readonly Pet[]) =>
  JSON.stringify(pets.map(({ id, name, categoryId, status }) => ({ id, name, categoryId, status })));

/**
 * The sync capability of a PostgreSQL storage. Every write takes the `pet_ids` row lock
 * first, as creates do, so ids, leases and arrivals are given one at a time across every
 * instance on the schema, and arrival order is the order animals become visible. Each step
 * is one transaction: it happens whole or not at all, whatever fails.
 *
 * - Hub: `lease` moves the id counter on and records the lease in one statement, so creates
 *   (which take ids from the same counter) never take a leased id. `store` checks the whole
 *   batch first (the rules are `checkPush`'s, shared with the other storages); two instances
 *   given the same push at once store it once, since the second waits for the lock and then
 *   finds the animals held with the same fields.
 * - Kiosk: its state is the `sync_kiosk` row and its blocks; `create_pets` takes its ids
 *   from the blocks when that row exists (see syncMigration.ts).
 */
export const createPostgresSync = (db: PostgresConnection, where: string, arrivals: PostgresArrivals): SyncStorage => {
  const sql = syncStatements(db.quoted);

  /** Runs `use` in one transaction holding the write lock; failures become `storage_unavailable`. */
  const write = async <T>(use: (client: PostgresPoolClient) => Promise<T>): Promise<T> => {
    try {
      return await inTransaction(db.pool, 'BEGIN', async (client) => {
        await client.query(sql.lock);
        return use(client);
      });
    } catch (error) {
      throw error instanceof SyncJoinError ? error : toStorageError(error, 'sync');
    }
  };
  const read = async (text: string, values: unknown[] = []) => {
    try {
      return (await db.query(text, values)).rows;
    } catch (error) {
      throw toStorageError(error, 'read');
    }
  };
  const readKiosk = async (query: (text: string) => Promise<Record<string, unknown>[]>): Promise<KioskState | undefined> => {
    const [row] = await query(sql.kiosk);
    if (row === undefined) return undefined;
    const blocks = (await query(sql.blocks)).map((block): IdBlock => ({ first: Number(block.first_id), last: Number(block.last_id) }));
    return {
      hub: row.hub as string,
      blocks,
      nextId: Number(row.next_id),
      pushedThrough: Number(row.pushed_through),
      checkpoint: Number(row.checkpoint),
    };
  };
  const rowsOf = (client: PostgresPoolClient) => async (text: string) => (await client.query(text)).rows;

  const countLeases = async (query: (text: string, values: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>, scope: string) => {
    const { rows } = await query(sql.leaseCount, [scope]);
    return { blocks: Number(rows[0]?.blocks ?? 0), unused: Number(rows[0]?.unused ?? 0) };
  };

  return {
    onArrival: (listener) => arrivals.onArrival(listener),
    async leasesOf(scope) {
      try {
        return await countLeases((text, values) => db.query(text, values), scope);
      } catch (error) {
        throw toStorageError(error, 'read');
      }
    },
    // Under the lock, so two instances leasing for one key at once count each other's block.
    lease: (scope, size) =>
      write(async (client) => {
        if ((await client.query(sql.kiosk)).rows.length > 0) throw kioskRefusal('lease');
        const { rows: counter } = await client.query(sql.lock);
        const { unused } = await countLeases((text, values) => client.query(text, values), scope);
        if (unused >= MAX_UNUSED_LEASES) throw tooManyUnusedLeases(unused);
        const { rows: highest } = await client.query(sql.highest);
        const first = leaseStart(Number(counter[0]!.next_id), Number(highest[0]!.highest_id), [
          { first: 0, last: Number(highest[0]!.leased_id) },
        ]);
        const { rows } = await client.query(sql.lease, [scope, first, first + size - 1]);
        return { first: Number(rows[0]!.first_id), last: Number(rows[0]!.last_id) };
      }),
    store: (scope, pets) =>
      write(async (client) => {
        if ((await client.query(sql.kiosk)).rows.length > 0) throw kioskRefusal('push');
        const ids = pets.map(({ id }) => id);
        const { rows: leases } = await client.query(sql.leasesFor, [scope, ids]);
        const { rows: held } = await client.query(sql.held, [ids]);
        const index = new PetIndex(held.map(toPet));
        // The kiosk was refused above, so the state holds only the key's leases.
        const own = leases.map((lease) => ({ scope, first: Number(lease.first_id), last: Number(lease.last_id) }));
        const fresh = checkPush({ leases: own }, scope, index, pets);
        if (fresh.length > 0) {
          await client.query(sql.insert, [petsJson(fresh)]);
          // Sent at the commit, to every instance's waiting pulls (this one's included).
          await client.query(arrivals.notify.text, arrivals.notify.values);
        }
        return { stored: fresh.length, present: pets.length - fresh.length };
      }),
    async kiosk() {
      return readKiosk((text) => read(text));
    },
    join: (hub) =>
      write(async (client) => {
        const kiosk = await readKiosk(rowsOf(client));
        // Counting is needed only to join, or to change hubs; a restart against the same hub skips it.
        const same = kiosk !== undefined && sameHub(kiosk.hub, hub);
        const held = same ? 0 : Number((await client.query(sql.count)).rows[0]!.held);
        const leases = kiosk === undefined ? Number((await client.query(sql.leases)).rows[0]!.leases) : 0;
        const joined = joinedKiosk(kiosk, hub, held, where, leases);
        if (kiosk === undefined) await client.query(sql.join, [hub]);
        else if (joined !== kiosk) await client.query(sql.rejoin, [hub]);
        return joined;
      }),
    addBlock: (block) =>
      write(async (client) => {
        const kiosk = await readKiosk(rowsOf(client));
        if (kiosk === undefined) return;
        const held = Boolean((await client.query(sql.heldIn, [block.first, block.last])).rows[0]!.held);
        if (checkKioskBlock(kiosk, block, () => held)) return;
        await client.query(sql.addBlock, [block.first, block.last]);
        if (kiosk.nextId === 0) await client.query(sql.setNextId, [block.first]);
        await client.query(sql.dropSpentBlocks);
      }),
    async unpushed(limit) {
      const kiosk = await readKiosk((text) => read(text));
      if (kiosk === undefined) return { pets: [], through: 0 };
      const pets: Pet[] = [];
      let through = kiosk.pushedThrough;
      for (;;) {
        const chunk = (await read(sql.scan, [through, SCAN_CHUNK])).map(toPet);
        for (const pet of chunk) {
          if (inBlocks(kiosk.blocks, pet.id)) pets.push(pet);
          through = pet.id;
          if (pets.length === limit) return { pets, through };
        }
        if (chunk.length < SCAN_CHUNK) return { pets, through };
      }
    },
    async waiting() {
      const [row] = await read(sql.waiting);
      return Number(row?.waiting ?? 0);
    },
    async markPushed(through) {
      await write(async (client) => {
        await client.query(sql.markPushed, [through]);
        await client.query(sql.dropSpentBlocks);
      });
    },
    insertPulled: (pets, checkpoint) =>
      write(async (client) => {
        const { rows } = pets.length === 0 ? { rows: [] } : await client.query(sql.insert, [petsJson(pets)]);
        await client.query(sql.setCheckpoint, [checkpoint]);
        const kiosk = rows.length === 0 ? undefined : await readKiosk(rowsOf(client));
        if (kiosk !== undefined) {
          const before = kiosk.nextId;
          skipPulledOwnIds(
            kiosk,
            rows.map((row) => ({ id: Number(row.id) })),
          );
          if (kiosk.nextId !== before) await client.query(sql.setNextId, [kiosk.nextId]);
        }
        if (rows.length > 0) await client.query(arrivals.notify.text, arrivals.notify.values);
        return rows.length;
      }),
  };
};
