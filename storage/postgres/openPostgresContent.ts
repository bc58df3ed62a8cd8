/** @module A PostgreSQL schema seen whole, for `copyPets` and for seeding: read in one snapshot, written in one transaction. */
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import type { PetContentStore } from '../PetContent.js';
import { TargetNotEmptyError } from '../PetContent.js';
import { connectPostgres, describeConnectionString, type PostgresOptions } from './connectPostgres.js';
import { epochMilliseconds } from './epochMilliseconds.js';
import { inTransaction } from './inTransaction.js';
import { toPet } from './toPet.js';

/** Animals per statement when reading or writing: large enough to be few, small enough to stay well within a statement timeout. */
const CHUNK = 10_000;

/** Milliseconds since the epoch, from a timestamptz. */
const millisecondsColumn = (column: string) => `${epochMilliseconds(column)} AS ${column}`;

/**
 * The schema the options name (created or migrated like the storage's), to copy from or
 * into. Reading is one REPEATABLE READ transaction, so the animals, keys and next id are
 * those of one moment while servers go on creating. Writing is one transaction that first
 * takes the `pet_ids` lock, so creates on running servers wait for it (and fail with 503 if
 * it outlasts their statement timeout); animals go in by 10,000 per statement, so a million
 * take seconds. Give timeouts to match: `statementTimeout` bounds each statement. Sync
 * state is not content: written animals arrive in id order, and a replaced schema loses its
 * leases and kiosk state with its animals.
 */
export const openPostgresContent = async (options: PostgresOptions): Promise<PetContentStore> => {
  const db = await connectPostgres(options);
  const s = db.quoted;
  const where = 'connectionString' in options ? describeConnectionString(options.connectionString) : 'the given database';
  const location = `${where} (schema ${db.schema})`;

  return {
    location,
    read: (use) =>
      inTransaction(db.pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
        const { rows: counter } = await client.query(`SELECT next_id FROM ${s}.pet_ids`);
        const { rows: keys } = await client.query(
          `SELECT scope, key, fingerprint, pet_id, ${millisecondsColumn('created_at')}, ${millisecondsColumn('expires_at')}
           FROM ${s}.idempotency_keys ORDER BY pet_id, scope, key`,
        );
        async function* pets(): AsyncGenerator<readonly Pet[]> {
          for (let after = 0; ; ) {
            const { rows } = await client.query(`SELECT id, name, category_id, status FROM ${s}.pets WHERE id > $1 ORDER BY id LIMIT $2`, [
              after,
              CHUNK,
            ]);
            if (rows.length === 0) return;
            const chunk = rows.map(toPet);
            yield chunk;
            after = chunk.at(-1)!.id;
          }
        }
        return use({
          nextId: Number(counter[0]!.next_id),
          pets: pets(),
          // Ordered by animal: the order keys were stored in, as a data file keeps them.
          idempotencyKeys: keys.map(
            (row): StoredIdempotencyKey => ({
              scope: row.scope as string,
              key: row.key as string,
              fingerprint: row.fingerprint as string,
              petId: Number(row.pet_id),
              createdAt: Number(row.created_at),
              expiresAt: Number(row.expires_at),
            }),
          ),
        });
      }),
    write: async (content, { replace }) => {
      await inTransaction(db.pool, 'BEGIN', async (client) => {
        const { rows: counter } = await client.query(`SELECT next_id FROM ${s}.pet_ids FOR UPDATE`);
        const heldNextId = Number(counter[0]!.next_id);
        const { rows: held } = await client.query(
          `SELECT (SELECT count(*) FROM ${s}.pets) AS pets, EXISTS (SELECT FROM ${s}.idempotency_keys) AS keys,
             EXISTS (SELECT FROM ${s}.sync_kiosk) AS kiosk`,
        );
        const heldPets = Number(held[0]!.pets);
        if (!replace && (heldPets > 0 || heldNextId > 1 || held[0]!.keys === true || held[0]!.kiosk === true)) {
          throw new TargetNotEmptyError(location, { pets: heldPets, nextId: heldNextId });
        }
        // The sync state (leases given, a kiosk's progress) belongs to the catalogue replaced.
        await client.query(`DELETE FROM ${s}.sync_leases; DELETE FROM ${s}.sync_kiosk_blocks; DELETE FROM ${s}.sync_kiosk`);
        // TRUNCATE swaps the tables' files, tens of milliseconds whatever their size; DELETE costs per row.
        if (heldPets > CHUNK) await client.query(`TRUNCATE ${s}.idempotency_keys, ${s}.pets`);
        else await client.query(`DELETE FROM ${s}.idempotency_keys; DELETE FROM ${s}.pets`);
        let lastId = 0;
        for await (const chunk of content.pets) {
          if (chunk.length === 0) continue;
          // Ascending ids are the port's promise; check it here rather than trust the source.
          for (const pet of chunk) {
            if (pet.id <= lastId) throw new RangeError(`The animals to copy are not in ascending id order (${pet.id} after ${lastId}).`);
            lastId = pet.id;
          }
          await client.query(
            // Copied animals arrive in id order, as in a catalogue that never synced.
            `INSERT INTO ${s}.pets (id, name, category_id, status, arrival)
             SELECT id, name, "categoryId", status, id FROM json_to_recordset($1::json) AS t(id bigint, name text, "categoryId" bigint, status text)`,
            [JSON.stringify(chunk)],
          );
        }
        if (content.nextId <= lastId) throw new RangeError(`The next id ${content.nextId} is not above the highest id ${lastId}.`);
        for (let start = 0; start < content.idempotencyKeys.length; start += CHUNK) {
          await client.query(
            `INSERT INTO ${s}.idempotency_keys (scope, key, fingerprint, pet_id, created_at, expires_at)
             SELECT scope, key, fingerprint, "petId", to_timestamp("createdAt"::numeric / 1000), to_timestamp("expiresAt"::numeric / 1000)
             FROM json_to_recordset($1::json) AS t(scope text, key text, fingerprint text, "petId" bigint, "createdAt" bigint, "expiresAt" bigint)
             -- A key whose animal was removed (by hand, from a data file) stands for nothing.
             WHERE EXISTS (SELECT FROM ${s}.pets AS p WHERE p.id = t."petId")`,
            [JSON.stringify(content.idempotencyKeys.slice(start, start + CHUNK))],
          );
        }
        await client.query(`UPDATE ${s}.pet_ids SET next_id = $1`, [content.nextId]);
      });
      // Statistics now, not when autovacuum next looks: without them the planner guesses the
      // rows of a status, reads every animal of it through the wrong index, and a page of
      // sold animals costs the database several times what it should until then.
      await db.pool.query(`ANALYZE ${s}.pets, ${s}.idempotency_keys`);
    },
    close: () => db.close(),
  };
};
