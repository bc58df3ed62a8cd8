/**
 * @module `npx tsx test/bench/measurePostgresUpgrade.ts [ANIMALS]`: how long the first start
 * of this release takes to upgrade a version-1 schema holding 1,000,000 animals in place, to
 * the newest version (3: `pets.arrival` filled and indexed; 4: `pets.json_text` written), on
 * a throwaway cluster.
 */
import pg from 'pg';
import { MIGRATIONS, SCHEMA_VERSION } from '../../storage/postgres/migrations.js';
import { openPostgresStorage } from '../../storage/postgres/openPostgresStorage.js';
import { startPostgresCluster } from '../support/postgresCluster.js';

/** Makes a version-1 schema of `animals` animals, then times `openPostgresStorage` upgrading it; resolves with the seconds. */
export const measurePostgresUpgrade = async (animals = 1_000_000): Promise<number> => {
  const cluster = await startPostgresCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query('CREATE SCHEMA animal_store');
    await admin.query(`CREATE TABLE animal_store.schema_migrations (
      version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    await admin.query(MIGRATIONS[0]!.sql('animal_store'));
    await admin.query(`INSERT INTO animal_store.schema_migrations (version, description) VALUES (1, 'v1')`);
    await admin.query(
      `INSERT INTO animal_store.pets (id, name, category_id, status)
       SELECT n, 'Animal ' || n, 1 + n % 7, (ARRAY['available', 'pending', 'sold'])[1 + n % 3] FROM generate_series(1, $1::bigint) AS n`,
      [animals],
    );
    await admin.query('UPDATE animal_store.pet_ids SET next_id = $1', [animals + 1]);
    await admin.query('VACUUM ANALYZE animal_store.pets');
    const started = performance.now();
    const storage = await openPostgresStorage({ connectionString: cluster.url });
    const seconds = (performance.now() - started) / 1000;
    await storage.close();
    return seconds;
  } finally {
    await admin.end();
    await cluster.destroy();
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const animals = Number(process.argv[2] ?? 1_000_000);
  const seconds = await measurePostgresUpgrade(animals);
  console.log(`PostgreSQL schema upgrade from version 1 to version ${SCHEMA_VERSION}: ${animals} animals in ${seconds.toFixed(1)} s`);
}
