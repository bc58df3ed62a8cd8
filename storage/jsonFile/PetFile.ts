/** @module The data file's content and its one way to change: append new animals, durably. */
import { Low } from 'lowdb';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { IdempotencyKey, StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { DataFileError } from './DataFileError.js';
import { DurableDataFile } from './DurableDataFile.js';
import { DurableTextFile, DurableWriteError } from './DurableTextFile.js';
import type { FileSystem } from './FileSystem.js';
import { PET_FILE_FORMAT, type PetFileData } from './PetFileData.js';
import { PetFileSerializer } from './PetFileSerializer.js';
import { parsePetFile } from './parsePetFile.js';

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A new animal to append, with the Idempotency-Key to keep beside it, if its request had one. */
export interface NewEntry {
  newPet: NewPet;
  key?: IdempotencyKey | undefined;
}

/** An appended animal and its key as stored. */
export interface AppendedEntry {
  pet: Pet;
  stored: StoredIdempotencyKey | undefined;
}

/**
 * The JSON data file: what is in it, and the one operation that changes it, `append`.
 * lowdb's `Low` is the file's face and holds the only reference to the content; nothing
 * outside this class changes it, so the serialiser's cache of written bytes can trust that
 * the list only grows, except where `append` cuts it back after a failed write.
 */
export class PetFile {
  readonly #db: Low<PetFileData>;
  readonly #serializer: PetFileSerializer;
  /**
   * True while the file may hold animals whose create failed (a write failed after its
   * rename, and so did the write that was to put the file back). Any later successful write
   * clears it, since each write holds exactly the acknowledged animals.
   */
  #holdsFailedAnimals = false;

  private constructor(db: Low<PetFileData>, serializer: PetFileSerializer) {
    this.#db = db;
    this.#serializer = serializer;
  }

  /**
   * Opens the data file at `realFile` (its real path, so that replacing it never turns a
   * symlink into a file of its own), creating it when missing. Call it only as the file's
   * owner: it removes temp files a crashed writer left beside it. A damaged or unreadable
   * file throws a DataFileError naming `name`, and is not changed.
   */
  static async open(realFile: string, { name, fs }: { name: string; fs: FileSystem }): Promise<PetFile> {
    const text = new DurableTextFile(realFile, fs);
    await text.removeStaleTempFiles().catch(() => {});
    const serializer = new PetFileSerializer();
    const adapter = new DurableDataFile<PetFileData>(text, {
      parse: (content) => parsePetFile(content, name),
      serialize: (data) => serializer.serialize(data),
    });
    const empty: PetFileData = { format: PET_FILE_FORMAT, nextId: 1, pets: [], idempotencyKeys: [] };
    const db = new Low(adapter, empty);
    try {
      await db.read();
    } catch (error) {
      if (error instanceof DataFileError) throw error;
      throw new DataFileError(name, `The data file ${name} cannot be read: ${reasonOf(error)}.`, { cause: error });
    }
    if (db.data === empty) {
      await db.write().catch((error: unknown) => {
        throw new DataFileError(name, `The data file ${name} cannot be created: ${reasonOf(error)}.`, { cause: error });
      });
    }
    return new PetFile(db, serializer);
  }

  /** The animals in the file, in ascending id order; callers must not change the array. */
  get pets(): readonly Pet[] {
    return this.#db.data.pets;
  }

  /** The Idempotency-Keys in the file, oldest first (some may have expired). */
  get idempotencyKeys(): readonly StoredIdempotencyKey[] {
    return this.#db.data.idempotencyKeys;
  }

  /**
   * Prepares, in the background, the bytes of the animals already in the file, so the first
   * write at a large size costs what later ones cost. Call the returned function to stop.
   */
  prepareWrites(): () => void {
    let stopped = false;
    void this.#serializer.prepare(this.#db.data.pets, () => stopped);
    return () => {
      stopped = true;
    };
  }

  /**
   * Appends new animals, each with its Idempotency-Key when it has one: gives them the next
   * ids, writes the file (animals and keys in the same write, keys expired by the newest
   * key's arrival left out), and resolves once they are durable. If the write fails, the
   * content is as it was (the ids too, unless the failed write may have reached the disk:
   * then those ids are never given again) and the call rejects with `storage_unavailable`.
   */
  async append(entries: readonly NewEntry[]): Promise<AppendedEntry[]> {
    const data = this.#db.data;
    // Keys expired by the newest key's arrival are gone for good, written or not: they count as absent.
    const now = Math.max(0, ...entries.map(({ key }) => key?.createdAt ?? 0));
    const live = data.idempotencyKeys.findIndex((stored) => stored.expiresAt > now);
    data.idempotencyKeys.splice(0, live === -1 ? data.idempotencyKeys.length : live);
    const committedLength = data.pets.length;
    const committedKeys = data.idempotencyKeys.length;
    const committedNextId = data.nextId;
    const appended = entries.map(({ newPet: { name, categoryId, status }, key }, offset): AppendedEntry => {
      const pet: Pet = { id: committedNextId + offset, name, categoryId, status };
      return { pet, stored: key === undefined ? undefined : { ...key, petId: pet.id } };
    });
    for (const { pet, stored } of appended) {
      data.pets.push(pet);
      if (stored) data.idempotencyKeys.push(stored);
    }
    data.nextId = committedNextId + appended.length;
    try {
      await this.#db.write();
    } catch (error) {
      data.pets.length = committedLength;
      data.idempotencyKeys.length = committedKeys;
      this.#serializer.forgetFrom(committedLength);
      if (error instanceof DurableWriteError && error.replaced) {
        // The new file is in place but its durability is unknown. Put the acknowledged
        // content back (best effort), and keep the ids moved on: should the failed animals
        // survive anyway, their ids are never given to other animals.
        this.#holdsFailedAnimals = await this.#db.write().then(
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
    this.#holdsFailedAnimals = false;
    return appended;
  }

  /** A last try at putting the file back after a failed write, so the next start does not find failed animals. */
  async restoreIfNeeded(): Promise<void> {
    if (this.#holdsFailedAnimals) await this.#db.write().catch(() => {});
  }
}
