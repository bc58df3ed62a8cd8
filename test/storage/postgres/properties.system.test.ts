/** @module The paging properties (limit, status, cursors with creates between pages) on a real PostgreSQL server. */
import { afterAll, beforeAll, describe } from 'vitest';
import { inChunks, type PetContentStore } from '../../../storage/PetContent.js';
import { openPostgresContent } from '../../../storage/postgres/openPostgresContent.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { describePagingProperties } from '../../core/pagingProperties.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
let storage: PostgresStorage;
let content: PetContentStore;

beforeAll(async () => {
  const schema = database.freshSchema();
  storage = await openPostgresStorage({ connectionString: database.url(), schema });
  content = await openPostgresContent({ connectionString: database.url(), schema });
});
afterAll(async () => {
  await storage?.close();
  await content?.close();
});

describe('properties over PostgreSQL', () => {
  // Each run replaces the schema's content (one transaction), then speaks to the same storage.
  describePagingProperties(async (pets) => {
    await content.write({ nextId: pets.length + 1, pets: inChunks(pets), idempotencyKeys: [] }, { replace: true });
    return storage;
  });
});
