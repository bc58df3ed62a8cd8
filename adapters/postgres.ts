/**
 * @module animal-store/postgres: the PostgreSQL storage, for several instances sharing one
 * catalogue, and `copyPets` to move a catalogue between a data file and PostgreSQL.
 * `pg` is an optional peer dependency: install it to give a connection string; a pool or
 * client of your own needs nothing more.
 */
export { type CopyPetsOptions, type CopyPetsReport, copyPets } from '../storage/copyPets.js';
export { type PetContent, type PetContentStore, TargetNotEmptyError } from '../storage/PetContent.js';
export type { PostgresCommonOptions, PostgresConnectionOptions, PostgresOptions } from '../storage/postgres/connectPostgres.js';
export { openPostgresContent } from '../storage/postgres/openPostgresContent.js';
export { openPostgresStorage, type PostgresStorage, type PostgresStorageOptions } from '../storage/postgres/openPostgresStorage.js';
export type { PostgresPool, PostgresPoolClient, PostgresQueryable, PostgresQueryResult } from '../storage/postgres/PostgresPool.js';
export { PostgresStorageError } from '../storage/postgres/PostgresStorageError.js';
