/**
 * @module `npx tsx test/bench/measurePostgresSyncPull.ts [ANIMALS]`: how long a new JSON-file
 * kiosk takes to pull a hub of two PostgreSQL-backed instances holding 100,000 animals (issue
 * 20's target: under 30 s), on a throwaway cluster. The time runs from the kiosk's spawn to its
 * status reporting a finished pull; the kiosk must then list every animal.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pet } from '../../core/schemas/Pet.js';
import { inChunks } from '../../storage/PetContent.js';
import { openPostgresContent } from '../../storage/postgres/openPostgresContent.js';
import { startPostgresCluster } from '../support/postgresCluster.js';
import { startCli } from '../support/startCli.js';
import { HUB_KEY, pullIntoNewKiosk, SYNC_PULL_TARGET_SECONDS } from './measureSyncPull.js';

/** Measures one full pull of a new kiosk from a PostgreSQL hub; resolves with the seconds it took. */
export const measurePostgresSyncPull = async (animals = 100_000): Promise<number> => {
  const cluster = await startPostgresCluster();
  const folder = await mkdtemp(join(tmpdir(), 'animal-store-bench-pgsync-'));
  const statuses = ['available', 'pending', 'sold'] as const;
  const pets: Pet[] = Array.from({ length: animals }, (_, offset) => ({
    id: offset + 1,
    name: `Animal ${offset + 1}`,
    categoryId: 1 + ((offset + 1) % 7),
    status: statuses[(offset + 1) % 3]!,
  }));
  const content = await openPostgresContent({ connectionString: cluster.url });
  await content.write({ nextId: animals + 1, pets: inChunks(pets), idempotencyKeys: [] }, { replace: true });
  await content.close();
  const hubs = await Promise.all(
    [1, 2].map(() =>
      startCli(['serve', '--port', '0', '--database', cluster.url, '--api-key', HUB_KEY, '--quiet'], {
        env: { ANIMAL_STORE_CURSOR_SECRET: 'bench-cursor-secret-of-the-hub' },
      }),
    ),
  );
  try {
    return (await pullIntoNewKiosk(join(folder, 'kiosk.json'), hubs[1]!.url, animals)).seconds;
  } finally {
    for (const hub of hubs) hub.child.kill('SIGTERM');
    await Promise.all(hubs.map((hub) => hub.exited));
    await cluster.destroy();
    await rm(folder, { recursive: true, force: true });
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const animals = Number(process.argv[2] ?? 100_000);
  const seconds = await measurePostgresSyncPull(animals);
  console.log(
    `sync from PostgreSQL: a new kiosk pulled ${animals} animals in ${seconds.toFixed(1)} s from its spawn; target < ${SYNC_PULL_TARGET_SECONDS} s: ${seconds < SYNC_PULL_TARGET_SECONDS ? 'met' : 'MISSED'}`,
  );
}
