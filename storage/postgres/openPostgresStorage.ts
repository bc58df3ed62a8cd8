/** @module The PostgreSQL storage: one catalogue shared by any number of instances. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { IdempotencyKey, IdempotentCreate, PetPageRequest, PetPageText, PetStorage, StorageHealth } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import type { SyncStorage } from '../../core/sync/SyncStorage.js';
import { type CommitObserver, GroupCommit } from '../GroupCommit.js';
import { KeySweep, type KeySweepOptions } from '../KeySweep.js';
import { reasonOf } from '../reasonOf.js';
import { QueryTimeoutError } from './boundQuery.js';
import { connectPostgres, DEFAULT_TIMEOUTS, describeConnectionString, type PostgresOptions } from './connectPostgres.js';
import { createPostgresArrivals } from './createPostgresArrivals.js';
import { createPostgresSync } from './createPostgresSync.js';
import { petStatements } from './petStatements.js';
import { ReadBatch } from './ReadBatch.js';
import { toPet } from './toPet.js';
import { toStorageError } from './toStorageError.js';

/** How to open a PostgreSQL storage: where the database is, the schema, and timeouts. */
export type PostgresStorageOptions = PostgresOptions & {
  /** Told of every transaction of creates: how many it held and how long it took (for metrics). */
  onCommit?: CommitObserver;
  /** How often expired Idempotency-Keys are deleted, and how many at most each time; every second, 5,000 by default. */
  keySweep?: KeySweepOptions;
};

/** A delete of expired keys a second, of 5,000 at most: far above any rate of keyed creates one instance sustains. */
const POSTGRES_KEY_SWEEP: KeySweepOptions = { everyMilliseconds: 1_000, atMost: 5_000 };

/** A storage kept in PostgreSQL. */
export interface PostgresStorage extends PetStorage {
  /** The schema that holds its tables. */
  readonly schema: string;
  /** A list page as JSON text, built by PostgreSQL: the service hands it over without parsing rows. */
  listText(page: PetPageRequest): Promise<PetPageText>;
  /** Whether the database answers and takes writes (not a standby, not read-only). */
  checkHealth(): Promise<StorageHealth>;
  /** A hub or a kiosk on this schema, shared by every instance on it (see createPostgresSync.ts). */
  sync: SyncStorage;
}

/** A create waiting for its batch: the animal and, for a keyed create, its Idempotency-Key. */
interface Entry {
  newPet: NewPet;
  key?: IdempotencyKey | undefined;
}

/** An entry as `create_pets` reads it. */
const entryJson = ({ newPet: { name, categoryId, status }, key }: Entry) =>
  key === undefined
    ? { name, categoryId, status }
    : {
        name,
        categoryId,
        status,
        scope: key.scope,
        key: key.key,
        fingerprint: key.fingerprint,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
      };

/**
 * How many list statements run at once; pages asked for meanwhile wait and go together in
 * the next (see ReadBatch). One, as creates commit one batch at a time: idle, a page goes at
 * once; under load each statement carries every page asked for during the one before, which
 * makes the round trips, not the pages, what costs, and leaves the other connections free
 * for creates and reads of single animals. Two in flight measured more CPU per page, not less.
 */
const PAGE_STATEMENTS_IN_FLIGHT = 1;

/** How long a health check may take: an orchestrator's probe must not hang on a silent database. */
const HEALTH_TIMEOUT = 2_000;

/**
 * Opens a PostgreSQL storage, creating or migrating its schema (see migrations.ts), and
 * loading nothing: start-up and memory are the same at ten animals or ten million.
 *
 * - Creates arriving together share one statement (`create_pets`) and so one transaction
 *   and one commit (group commit); each resolves only after that commit, with PostgreSQL's
 *   durability (`fsync` and `synchronous_commit` on, the server's defaults).
 * - Animals become visible in arrival order (the order lists follow) across every instance
 *   on the schema: each create, and each sync write, holds the lock on the `pet_ids` row
 *   until it commits. Without sync, arrival order is ascending id order.
 * - An Idempotency-Key is checked and stored in the same transaction as its animal, unique
 *   per scope and key, so two instances given the same key at once create one animal.
 * - Any failure of the database (down, unreachable, read-only, too slow) rejects with
 *   `storage_unavailable` and changes nothing (a commit whose answer was lost excepted:
 *   see `toStorageError`). The storage keeps no state of its own, so it works again as
 *   soon as the database does.
 */
export const openPostgresStorage = async (options: PostgresStorageOptions): Promise<PostgresStorage> => {
  const db = await connectPostgres(options);
  const sql = petStatements(db.quoted);
  const arrivals = createPostgresArrivals(db);

  /** One batch, one statement: entries with a key seen earlier in the batch answer as its repeat. */
  const commit = async (batch: Entry[]): Promise<IdempotentCreate[]> => {
    const sent: Entry[] = [];
    const sentAt = new Map<string, number>();
    const plan = batch.map((entry): { sameAs: number } | { sent: number } => {
      if (entry.key) {
        const id = `${entry.key.scope}\u0000${entry.key.key}`;
        const earlier = sentAt.get(id);
        if (earlier !== undefined) return { sameAs: earlier };
        sentAt.set(id, sent.length);
      }
      sent.push(entry);
      return { sent: sent.length - 1 };
    });
    let rows: Record<string, unknown>[];
    try {
      ({ rows } = await db.query(sql.create, [JSON.stringify(sent.map(entryJson))]));
    } catch (error) {
      throw toStorageError(error, 'create');
    }
    if (rows.length !== sent.length) throw new Error(`create_pets answered ${rows.length} rows for ${sent.length} animals`);
    if (rows.some((row) => row.replayed !== true)) arrivals.announce();
    const results = rows.map((row, position): IdempotentCreate => {
      const pet = toPet(row);
      const key = sent[position]!.key;
      const replayed = row.replayed === true;
      const stored =
        key === undefined
          ? undefined
          : replayed
            ? {
                ...key,
                fingerprint: row.key_fingerprint as string,
                createdAt: Number(row.key_created_at),
                expiresAt: Number(row.key_expires_at),
                petId: pet.id,
              }
            : { ...key, petId: pet.id };
      // A create without a key has no stored key; `create` reads only its animal.
      return { pet, stored: stored!, replayed };
    });
    return plan.map((step) => ('sameAs' in step ? { ...results[step.sameAs]!, replayed: true } : results[step.sent]!));
  };

  const writes = new GroupCommit(commit, options.onCommit);
  // Expired keys count as absent at once; this only frees their rows, off the create path.
  // One delete at a time: a slow database gets no pile of them.
  let sweeping: Promise<unknown> | undefined;
  const sweep = new KeySweep(
    (now, atMost) =>
      (sweeping ??= db.query(sql.sweepKeys, [now, atMost]).finally(() => {
        sweeping = undefined;
      })),
    { ...POSTGRES_KEY_SWEEP, ...options.keySweep },
  );
  // Other instances may store keys this one never sees: it sweeps from the start.
  sweep.start();
  let closing: Promise<void> | undefined;
  const submit = (entry: Entry) => {
    if (closing) throw new AnimalStoreError('storage_unavailable', 'The store is shutting down, so the animal was not stored.');
    return writes.submit(entry);
  };
  const read = async (text: string, values: unknown[]) => {
    try {
      return (await db.query(text, values)).rows;
    } catch (error) {
      throw toStorageError(error, 'read');
    }
  };

  const pageOf = (row: Record<string, unknown>): PetPageText => {
    // pg reads the bigint id as a string.
    const { text, next_after: nextAfter } = row as { text: string; next_after: string | null };
    return nextAfter === null ? { text } : { text, nextAfter: Number(nextAfter) };
  };
  const pages = new ReadBatch<PetPageRequest, PetPageText>(
    // An aggregate answers one row, even for an empty page.
    async ({ after, limit, status }) =>
      pageOf(
        (
          await read(
            status === undefined ? sql.listText : sql.listTextByStatus,
            status === undefined ? [after, limit] : [after, limit, status],
          )
        )[0]!,
      ),
    async (batch) =>
      (
        await read(sql.listTexts, [
          batch.map((page) => page.after),
          batch.map((page) => page.limit),
          batch.map((page) => page.status ?? null),
        ])
      ).map(pageOf),
    PAGE_STATEMENTS_IN_FLIGHT,
    {
      milliseconds: options.queryTimeout ?? DEFAULT_TIMEOUTS.queryTimeout,
      error: () => toStorageError(new QueryTimeoutError('no list statement could be sent within queryTimeout'), 'read'),
    },
  );

  const where = 'connectionString' in options ? describeConnectionString(options.connectionString) : `The PostgreSQL schema ${db.schema}`;
  return {
    schema: db.schema,
    sync: createPostgresSync(db, where, arrivals),
    async create(newPet) {
      return (await submit({ newPet })).pet;
    },
    async createIdempotent(newPet, key) {
      sweep.saw(key.createdAt);
      return submit({ newPet, key });
    },
    async get(id) {
      const [row] = await read(sql.get, [id]);
      return row === undefined ? undefined : toPet(row);
    },
    async list({ after, limit, status }) {
      const rows = await read(
        status === undefined ? sql.list : sql.listByStatus,
        status === undefined ? [after, limit] : [after, limit, status],
      );
      return rows.map(toPet);
    },
    listText: (page) => pages.read(page),
    async checkHealth() {
      try {
        const { rows } = await db.query(sql.health, [], HEALTH_TIMEOUT);
        if (rows[0]?.in_recovery === true) return { ok: false, reason: 'The database is a standby in recovery, so it cannot take writes.' };
        if (rows[0]?.read_only === 'on') return { ok: false, reason: 'The database takes no writes: default_transaction_read_only is on.' };
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: `The database cannot be reached: ${reasonOf(error)}.` };
      }
    },
    close() {
      sweep.stop();
      closing ??= (async () => {
        await writes.drain();
        await sweeping?.catch(() => {});
        await arrivals.close();
        await db.close();
      })();
      return closing;
    },
  };
};
