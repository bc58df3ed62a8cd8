/** @module The JSON-file storage: a lowdb file that loses no acknowledged animal. */
import path from 'node:path';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { GroupCommit } from '../GroupCommit.js';
import { PetIndex } from '../PetIndex.js';
import { DataFileError } from './DataFileError.js';
import { createFolderDurably } from './DurableTextFile.js';
import { type FileSystem, nodeFileSystem } from './FileSystem.js';
import { type DataFileLock, lockDataFile } from './lockDataFile.js';
import { PetFile } from './PetFile.js';

/** How to open a JSON data file. */
export interface JsonFileStorageOptions {
  /** The data file; created, with its folders, when missing. */
  file: string;
}

/** A storage kept in a JSON data file. */
export interface JsonFileStorage extends PetStorage {
  /** The data file's absolute path. */
  readonly file: string;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The file's real path: the lock's key, so two names for one file share one owner, and the
 * path written to, so a symlinked data file stays a symlink to a file that is kept current.
 */
const realPathOf = async (fs: FileSystem, file: string): Promise<string> => {
  try {
    return await fs.realpath(file);
  } catch {
    return path.join(await fs.realpath(path.dirname(file)), path.basename(file));
  }
};

/**
 * Opens (or creates) a JSON data file as a storage, taking ownership of it: until `close`,
 * another process that opens it fails with a DataFileLockedError. A damaged file throws a
 * DataFileError naming the file and its first problem, and is not changed.
 *
 * Each create resolves only once its animal is on disk (temp file, fsync, rename, fsync of
 * the folder); creates arriving during a write share the next one (group commit). If a
 * write fails, the creates it held reject with `storage_unavailable` and none of them was
 * ever visible: animals enter the index only after their write succeeded.
 */
export const openJsonFileStorage = ({ file }: JsonFileStorageOptions): Promise<JsonFileStorage> =>
  openJsonFileStorageOn(file, nodeFileSystem);

/** `openJsonFileStorage` over the given file functions (tests pass ones that fail on demand). */
export const openJsonFileStorageOn = async (given: string, fs: FileSystem): Promise<JsonFileStorage> => {
  const file = path.resolve(given);
  let realFile: string;
  try {
    await createFolderDurably(file, fs);
    realFile = await realPathOf(fs, file);
  } catch (error) {
    throw new DataFileError(file, `The folder of the data file ${file} cannot be created: ${reasonOf(error)}.`, { cause: error });
  }

  let lock: DataFileLock;
  try {
    lock = await lockDataFile(file, realFile);
  } catch (error) {
    if (error instanceof DataFileError) throw error;
    throw new DataFileError(file, `The data file ${file} cannot be locked for this process: ${reasonOf(error)}.`, { cause: error });
  }

  let petFile: PetFile;
  try {
    // Only now, as owner, may the file's folder be tidied and the file read.
    petFile = await PetFile.open(realFile, { name: file, fs });
  } catch (error) {
    await lock.release();
    throw error;
  }

  // The index holds only what is on disk, so reads never show an animal that a failing write loses.
  const index = new PetIndex(petFile.pets);
  const stopPreparing = petFile.prepareWrites();
  const writes = new GroupCommit(async (newPets: NewPet[]): Promise<Pet[]> => {
    const pets = await petFile.append(newPets);
    for (const pet of pets) index.add(pet);
    return pets;
  });
  let closing: Promise<void> | undefined;

  return {
    file,
    async create(pet) {
      if (closing) throw new AnimalStoreError('storage_unavailable', 'The store is shutting down, so the animal was not stored.');
      return writes.submit(pet);
    },
    async get(id) {
      return index.get(id);
    },
    async list(page) {
      return index.list(page);
    },
    close() {
      stopPreparing();
      closing ??= (async () => {
        await writes.drain();
        await petFile.restoreIfNeeded();
        await lock.release();
      })();
      return closing;
    },
  };
};
