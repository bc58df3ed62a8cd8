/** @module The storage contract, unchanged, on a real PostgreSQL server. */
import { openPostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { useTestDatabase } from '../../support/testDatabase.js';
import { describeStorageContract } from '../contract.js';

const database = useTestDatabase();

describeStorageContract('PostgreSQL storage', () =>
  openPostgresStorage({ connectionString: database.url(), schema: database.freshSchema() }),
);
