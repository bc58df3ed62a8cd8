/** @module Opens the storage a command line asks for: a data file, memory or PostgreSQL. */
import { lstat, rm } from 'node:fs/promises';
import type { PetStorage } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import type { CommitObserver } from '../../storage/GroupCommit.js';
import { openJsonFileStorage } from '../../storage/jsonFile/openJsonFileStorage.js';
import { openPetFileContent } from '../../storage/jsonFile/openPetFileContent.js';
import { inChunks, TargetNotEmptyError } from '../../storage/PetContent.js';
import { openPostgresStorage } from '../../storage/postgres/openPostgresStorage.js';
import type { StorageChoice } from './serveCommand.js';

/** What to open a storage with, beside the choice. */
export interface OpenStorageOptions {
  /** Animals to start with (`--seed`): memory's, or a new data file's. */
  seed: readonly Pet[] | undefined;
  /** Told of every durable write (metrics). */
  onCommit: CommitObserver | undefined;
  /** Told what an operator should hear: a seed not used, a data file that cannot be written whole. */
  warn(message: string): void;
}

/**
 * Writes the seed into a data file that has never held a catalogue (missing, or no animal, no
 * key and next id 1), through the same durable, locked write as `animal-store copy`. A file
 * that holds one is left as it is, with a warning: the seed is for a first start, and
 * restarts serve what the file holds.
 */
const seedDataFile = async (file: string, seed: readonly Pet[], warn: (message: string) => void) => {
  const content = openPetFileContent(file);
  const nextId = (seed.at(-1)?.id ?? 0) + 1;
  // A 0-byte file (`touch data/animals.json`) has never held a catalogue: it is seeded, not
  // refused as damaged. No server can be using it (none opens an empty file), and removing
  // it loses nothing; the write below then creates it afresh, durably and locked.
  const empty = await lstat(file).then(
    (found) => found.isFile() && found.size === 0,
    () => false,
  );
  if (empty) await rm(file, { force: true });
  try {
    await content.write({ nextId, pets: inChunks(seed), idempotencyKeys: [] }, { replace: false });
  } catch (error) {
    if (!(error instanceof TargetNotEmptyError)) throw error;
    warn(`the data file ${content.location} already holds animals, so --seed was not used: it fills a new data file only`);
  } finally {
    await content.close();
  }
};

/**
 * Opens the storage; a damaged or locked file, or a database out of reach, throws and ends
 * the start here.
 */
export const openStorage = async (choice: StorageChoice, { seed, onCommit, warn }: OpenStorageOptions): Promise<PetStorage> => {
  const observer = onCommit === undefined ? {} : { onCommit };
  switch (choice.kind) {
    case 'memory':
      return createMemoryStorage(seed ?? [], choice.limit === undefined ? {} : { limit: choice.limit });
    case 'database':
      return openPostgresStorage({
        connectionString: choice.url,
        ...(choice.schema === undefined ? {} : { schema: choice.schema }),
        ...observer,
      });
    case 'file':
      if (seed !== undefined) await seedDataFile(choice.file, seed, warn);
      return openJsonFileStorage({ file: choice.file, ...observer, log: { warn } });
  }
};
