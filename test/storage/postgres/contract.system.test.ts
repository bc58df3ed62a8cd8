/** @module The storage contract and the sync contract, unchanged, on a real PostgreSQL server. */
import type { PetStorage } from '../../../core/PetStorage.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { useTestDatabase } from '../../support/testDatabase.js';
import { describeStorageContract } from '../contract.js';
import { describeSyncContract } from '../syncContract.js';

const database = useTestDatabase();

describeStorageContract('PostgreSQL storage', () =>
  openPostgresStorage({ connectionString: database.url(), schema: database.freshSchema() }),
);

describeSyncContract('PostgreSQL storage', {
  create: () => openPostgresStorage({ connectionString: database.url(), schema: database.freshSchema() }),
  async reopen(storage: PetStorage) {
    const { schema } = storage as PostgresStorage;
    await storage.close();
    return openPostgresStorage({ connectionString: database.url(), schema });
  },
});
