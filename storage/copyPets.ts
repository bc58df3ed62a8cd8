/** @module Copies a whole catalogue between a JSON data file and PostgreSQL, either way: `animal-store copy`. */
import path from 'node:path';
import type { Pet } from '../core/schemas/Pet.js';
import { openPetFileContent } from './jsonFile/openPetFileContent.js';
import type { PetContent, PetContentStore } from './PetContent.js';
import { openPostgresContent } from './postgres/openPostgresContent.js';

/** What to copy where. */
export interface CopyPetsOptions {
  /** A data file's path, or a `postgres://` / `postgresql://` connection string. */
  from: string;
  /** Likewise. A file is created with its folders; a schema is created in the database. */
  to: string;
  /** Replace what the target holds; without it, a target holding a catalogue is refused (TargetNotEmptyError). */
  replace?: boolean;
  /** The PostgreSQL schema on either side; `animal_store` by default. */
  schema?: string;
}

/** What was copied. */
export interface CopyPetsReport {
  /** Where from and where to, without passwords. */
  from: string;
  to: string;
  /** How many animals and Idempotency-Keys, and the next id the target will give. */
  pets: number;
  idempotencyKeys: number;
  nextId: number;
}

const isPostgres = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/**
 * A copy is one transaction or one file write, and a million animals take a few seconds
 * per statement at worst on a busy machine: longer bounds than a request's.
 */
const COPY_TIMEOUTS = { statementTimeout: 120_000, queryTimeout: 180_000 };

/** The place a location names. */
export const openPetContent = (location: string, schema?: string): Promise<PetContentStore> | PetContentStore =>
  isPostgres(location)
    ? openPostgresContent({ connectionString: location, ...COPY_TIMEOUTS, ...(schema === undefined ? {} : { schema }) })
    : openPetFileContent(location);

/**
 * Copies every animal (with its id), the next id and the Idempotency-Keys from one place to
 * another: a data file into PostgreSQL to move up, back to a file, or file to file. The
 * source is read as of one moment, even with servers running on it; the target gets all of
 * it in one durable step, or nothing. A target that holds a catalogue is refused unless
 * `replace` is set. Throws a TargetNotEmptyError, a DataFileError (missing, damaged or
 * locked file) or a PostgresStorageError (database unreachable).
 */
export const copyPets = async ({ from, to, replace = false, schema }: CopyPetsOptions): Promise<CopyPetsReport> => {
  if (from === to || (!isPostgres(from) && !isPostgres(to) && path.resolve(from) === path.resolve(to))) {
    throw new TypeError('The source and the target of a copy are the same place.');
  }
  const source = await openPetContent(from, schema);
  try {
    const target = await openPetContent(to, schema);
    try {
      return await source.read(async (content) => {
        let pets = 0;
        async function* counted(): AsyncGenerator<readonly Pet[]> {
          for await (const chunk of content.pets) {
            pets += chunk.length;
            yield chunk;
          }
        }
        const copied: PetContent = { ...content, pets: counted() };
        await target.write(copied, { replace });
        return {
          from: source.location,
          to: target.location,
          pets,
          idempotencyKeys: content.idempotencyKeys.length,
          nextId: content.nextId,
        };
      });
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
};
