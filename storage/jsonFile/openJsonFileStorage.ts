/** @module The JSON-file storage: a lowdb file that loses no acknowledged animal. */
import path from 'node:path';
import { Low } from 'lowdb';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { GroupCommit } from '../GroupCommit.js';
import { PetIndex } from '../PetIndex.js';
import { DataFileError } from './DataFileError.js';
import { DurableJsonFile } from './DurableJsonFile.js';
import { DurableTextFile, DurableWriteError } from './DurableTextFile.js';
import { type FileSystem, nodeFileSystem } from './FileSystem.js';
import { type DataFileLock, lockDataFile } from './lockDataFile.js';
import { PET_FILE_FORMAT, type PetFileData } from './PetFileData.js';

/** How to open a JSON data file. */
export interface JsonFileStorageOptions {
  /** The data file; created, with its folders, when missing. */
  file: string;
  /** The file functions to use; Node's by default. Tests pass failing ones. */
  fs?: FileSystem;
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
 * ever visible: animals enter the in-memory index only after their write succeeded.
 */
export const openJsonFileStorage = async ({ file: given, fs = nodeFileSystem }: JsonFileStorageOptions): Promise<JsonFileStorage> => {
  const file = path.resolve(given);
  let realFile: string;
  try {
    await new DurableTextFile(file, fs).createFolder();
    realFile = await realPathOf(fs, file);
  } catch (error) {
    throw new DataFileError(file, `The folder of the data file ${file} cannot be created: ${reasonOf(error)}.`, { cause: error });
  }
  const adapter = new DurableJsonFile(realFile, { name: file, fs });

  let lock: DataFileLock;
  try {
    lock = await lockDataFile(file, realFile);
  } catch (error) {
    if (error instanceof DataFileError) throw error;
    throw new DataFileError(file, `The data file ${file} cannot be locked for this process: ${reasonOf(error)}.`, { cause: error });
  }

  let db: Low<PetFileData>;
  try {
    // Only now, as owner, is any temp file next to ours certainly a crashed writer's.
    await adapter.text.removeStaleTempFiles().catch(() => {});
    const empty: PetFileData = { format: PET_FILE_FORMAT, nextId: 1, pets: [] };
    db = new Low(adapter, empty);
    await db.read();
    if (db.data === empty) {
      await db.write().catch((error: unknown) => {
        throw new DataFileError(file, `The data file ${file} cannot be created: ${reasonOf(error)}.`, { cause: error });
      });
    }
  } catch (error) {
    await lock.release();
    throw error;
  }

  // `data.pets` is what is on disk plus, during a write, the batch being written; the index
  // holds only what is on disk, so reads never show an animal that a failing write loses.
  const data = db.data;
  const index = new PetIndex(data.pets);
  const stopPreparing = adapter.prepareWrites(data);

  // True while the file may hold animals whose create failed (a write failed after its
  // rename, and so did the write that was to put the file back). Any later successful write
  // clears it, since each write holds exactly the acknowledged animals.
  let fileHoldsFailedAnimals = false;

  const commit = async (newPets: NewPet[]): Promise<Pet[]> => {
    const committedLength = data.pets.length;
    const committedNextId = data.nextId;
    const pets = newPets.map(
      ({ name, categoryId, status }, offset): Pet => ({
        id: committedNextId + offset,
        name,
        categoryId,
        status,
      }),
    );
    for (const pet of pets) data.pets.push(pet);
    data.nextId = committedNextId + pets.length;
    try {
      await db.write();
    } catch (error) {
      data.pets.length = committedLength;
      if (error instanceof DurableWriteError && error.replaced) {
        // The new file is in place but its durability is unknown. Put the acknowledged
        // content back (best effort), and keep the ids moved on: should the failed animals
        // survive anyway, their ids are never given to other animals.
        fileHoldsFailedAnimals = await db.write().then(
          () => false,
          () => true,
        );
      } else {
        data.nextId = committedNextId;
      }
      throw new AnimalStoreError('storage_unavailable', 'The animal could not be saved to disk, so it was not stored. Try again later.', {
        cause: error,
      });
    }
    fileHoldsFailedAnimals = false;
    for (const pet of pets) index.add(pet);
    return pets;
  };

  const writes = new GroupCommit(commit);
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
        // A last try at putting the file back, so the next start does not find failed animals.
        if (fileHoldsFailedAnimals) await db.write().catch(() => {});
        await lock.release();
      })();
      return closing;
    },
  };
};
