/** @module The sync property (no two animals with one id, whatever is sent) on a real PostgreSQL server. */
import { describe } from 'vitest';
import type { PetStorage } from '../../../core/PetStorage.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { useTestDatabase } from '../../support/testDatabase.js';
import { describeSyncProperties } from '../syncProperty.js';

const database = useTestDatabase();

describe('PostgreSQL storage syncing, whatever it is sent', () => {
  describeSyncProperties(
    'PostgreSQL storage',
    {
      create: () => openPostgresStorage({ connectionString: database.url(), schema: database.freshSchema() }),
      async reopen(storage: PetStorage) {
        const { schema } = storage as PostgresStorage;
        await storage.close();
        return openPostgresStorage({ connectionString: database.url(), schema });
      },
    },
    25,
  );
});
