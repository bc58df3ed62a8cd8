/**
 * @module The bench's PostgreSQL: the database `--database URL` names, or else a throwaway
 * cluster the bench starts itself (as the tests do), and the bench's animals written
 * straight into a schema of its own before each start of our server on it.
 */
import pg from 'pg';
import type { Pet } from '../../core/schemas/Pet.js';
import { openPostgresContent } from '../../storage/postgres/openPostgresContent.js';
import { startPostgresCluster } from '../support/postgresCluster.js';
import { benchPet } from './benchData.js';

/** The bench's own schema, so a database it is given keeps its `animal_store` catalogue. */
export const BENCH_SCHEMA = 'animal_store_bench';

/** A database the bench measures our PostgreSQL storage on. */
export interface BenchDatabase {
  /** The connection string our server gets (`serve --database URL --schema animal_store_bench`). */
  url: string;
  /** What it is, for the log and results.json: the server's version and its durability settings. */
  description: string;
  /** Replaces the schema's catalogue with the bench's animals 1…`animals`, settled as a catalogue that has held them a while. */
  seed(animals: number): Promise<void>;
  /** Stops the cluster the bench started (a given database is left as it is, with the bench's schema in it). */
  close(): Promise<void>;
}

/** The bench's animals 1…`animals` in chunks, made as they are written: a million never sit in memory at once. */
async function* benchPets(animals: number): AsyncGenerator<Pet[]> {
  for (let start = 1; start <= animals; start += 10_000) {
    const chunk: Pet[] = [];
    for (let id = start; id <= Math.min(animals, start + 9_999); id++) chunk.push(benchPet(id));
    yield chunk;
  }
}

/** Runs statements as the given URL's user, one connection for all of them. */
const withClient = async <T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
};

/**
 * Opens the bench's database: `given` when there is one, else a throwaway cluster (Debian's
 * `postgresql` binaries; a missing server throws saying what to install). Its durability
 * settings are whatever the server has; a throwaway cluster keeps PostgreSQL's defaults
 * (`fsync` and `synchronous_commit` on), and the description says which were in force.
 */
export const openBenchDatabase = async (given: string | undefined): Promise<BenchDatabase> => {
  const cluster = given === undefined ? await startPostgresCluster() : undefined;
  const url = given ?? cluster!.url;
  try {
    const settings = await withClient(
      url,
      async (client) =>
        (
          await client.query<{ version: string; fsync: string; synchronous_commit: string }>(
            "SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit",
          )
        ).rows[0]!,
    );
    const description =
      `PostgreSQL ${settings.version} (${cluster ? 'a throwaway cluster the bench started' : 'the database --database names'}, ` +
      `on this machine unless the URL says otherwise), fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}`;
    return {
      url,
      description,
      async seed(animals) {
        // Generous timeouts: a million animals go in by 10,000 per statement, in one transaction.
        const content = await openPostgresContent({
          connectionString: url,
          schema: BENCH_SCHEMA,
          statementTimeout: 120_000,
          queryTimeout: 300_000,
        });
        try {
          await content.write({ nextId: animals + 1, pets: benchPets(animals), idempotencyKeys: [] }, { replace: true });
        } finally {
          await content.close();
        }
        // As a catalogue that has held these animals a while: the new rows' visibility settled
        // and statistics taken, and the load's dirty pages written out, so neither autovacuum
        // nor a checkpoint's writes land in the measured runs. CHECKPOINT needs a superuser or
        // pg_checkpoint: on a given database without either, the runs may meet one.
        await withClient(url, async (client) => {
          await client.query(`VACUUM ANALYZE ${BENCH_SCHEMA}.pets`);
          await client.query('CHECKPOINT').catch(() => {});
        });
      },
      close: async () => cluster?.destroy(),
    };
  } catch (error) {
    await cluster?.destroy();
    throw error;
  }
};
