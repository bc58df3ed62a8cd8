/** @module The JSON-file storage: a lowdb file that loses no acknowledged animal. */
import path from 'node:path';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { IdempotentCreate, PetStorage } from '../../core/PetStorage.js';
import { GroupCommit } from '../GroupCommit.js';
import { IdempotencyKeys } from '../IdempotencyKeys.js';
import { PetIndex } from '../PetIndex.js';
import { DataFileError } from './DataFileError.js';
import { createFolderDurably } from './DurableTextFile.js';
import { type FileSystem, nodeFileSystem } from './FileSystem.js';
import { type DataFileLock, lockDataFile } from './lockDataFile.js';
import { type NewEntry, PetFile } from './PetFile.js';

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

  // The indexes hold only what is on disk, so reads never show an animal (and no retry finds
  // a key) that a failing write loses.
  const index = new PetIndex(petFile.pets);
  const keys = new IdempotencyKeys(petFile.idempotencyKeys);
  const stopPreparing = petFile.prepareWrites();

  /**
   * One commit: entries whose key is stored already (or came earlier in this batch) are
   * answered from it; the rest are appended in one durable write, keys beside animals.
   */
  const commit = async (batch: NewEntry[]): Promise<IdempotentCreate[]> => {
    type Step = { replay: IdempotentCreate } | { sameAs: number } | { fresh: number };
    const fresh: NewEntry[] = [];
    const firstWithKey = new Map<string, number>();
    const plan = batch.map((entry, position): Step => {
      const { key } = entry;
      if (key) {
        const stored = keys.find(key);
        const pet = stored && index.get(stored.petId);
        // A key whose animal was removed from the file by hand stands for nothing.
        if (stored && pet) return { replay: { pet, stored, replayed: true } };
        const id = `${key.scope}\u0000${key.key}`;
        const earlier = firstWithKey.get(id);
        if (earlier !== undefined) return { sameAs: earlier };
        firstWithKey.set(id, position);
      }
      fresh.push(entry);
      return { fresh: fresh.length - 1 };
    });
    const appended = fresh.length === 0 ? [] : await petFile.append(fresh);
    for (const { pet, stored } of appended) {
      index.add(pet);
      if (stored) keys.add(stored);
    }
    const results: IdempotentCreate[] = [];
    for (const step of plan) {
      if ('replay' in step) results.push(step.replay);
      else if ('sameAs' in step) results.push({ ...results[step.sameAs]!, replayed: true });
      else {
        const { pet, stored } = appended[step.fresh]!;
        // An entry without a key gets no stored key; `create` reads only its pet.
        results.push({ pet, stored: stored!, replayed: false });
      }
    }
    return results;
  };
  const writes = new GroupCommit(commit);
  let closing: Promise<void> | undefined;
  const submit = (entry: NewEntry) => {
    if (closing) throw new AnimalStoreError('storage_unavailable', 'The store is shutting down, so the animal was not stored.');
    return writes.submit(entry);
  };

  return {
    file,
    async create(newPet) {
      return (await submit({ newPet })).pet;
    },
    async createIdempotent(newPet, key) {
      return submit({ newPet, key });
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
