/** @module The data file's content and its one way to change: append new animals, durably, never over someone's edit. */
import { Low } from 'lowdb';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { IdempotencyKey, StorageHealth, StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { DataFileError } from './DataFileError.js';
import { DurableDataFile } from './DurableDataFile.js';
import { DurableTextFile, DurableWriteError, FileChangedError } from './DurableTextFile.js';
import type { FileSystem } from './FileSystem.js';
import { PET_FILE_FORMAT, type PetFileData } from './PetFileData.js';
import { PetFileSerializer } from './PetFileSerializer.js';
import { parsePetFile } from './parsePetFile.js';
import { systemErrorReason } from './systemErrorReason.js';
import { WriteHealth } from './WriteHealth.js';

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

/** How to open a PetFile. */
export interface PetFileOptions {
  /** The file's name in messages (the path as given). */
  name: string;
  fs: FileSystem;
  /** Called, synchronously, each time the content was replaced by a valid edit read from disk. */
  onReload?: () => void;
}

/** How many times an append meets an edit saved during its own write before it gives up. */
const EDIT_RETRIES = 3;

/**
 * Why the file cannot be used now, after it changed on disk: what an operator reads (in
 * logs, on /healthz, as the cause of a refused create). The file is always named.
 */
const problemOf = (name: string, error: unknown): DataFileError => {
  if (error instanceof DataFileError && error.problem !== undefined) {
    // The same problem said for a file in use: it takes the place of the reading's error
    // (and its cause), rather than wrapping it, so the problem is one error deep.
    return new DataFileError(
      name,
      `The data file ${name} was changed by someone else and cannot be used: ${error.problem}. Creates are refused until it is repaired; reads serve its last valid content.`,
      { cause: error.cause, problem: error.problem },
    );
  }
  if (error instanceof DataFileError) return error;
  const { code, reason } = systemErrorReason(error);
  if (code === 'ENOENT') {
    return new DataFileError(
      name,
      `The data file ${name} was removed or moved away by someone else. Creates are refused until it is back; reads serve its last content.`,
      { cause: error },
    );
  }
  return new DataFileError(name, `The data file ${name} cannot be read: ${reason}.`, { cause: error });
};

/** What a client is told when the file cannot be used (the cause, for the operator, names the file). */
const refusal = (problem: DataFileError): AnimalStoreError =>
  new AnimalStoreError(
    'storage_unavailable',
    problem.problem === undefined
      ? 'The data file cannot be used now, so the animal was not stored. Try again later.'
      : `The data file was edited and is not valid now (${problem.problem}), so the animal was not stored. Try again once it is repaired.`,
    { cause: problem },
  );

/**
 * The JSON data file: what is in it, and the one operation that changes it, `append`.
 * lowdb's `Low` is the file's face and holds the only reference to the content; nothing
 * outside this class changes it, so the serialiser's cache of written bytes can trust that
 * the list only grows, except where `append` cuts it back after a failed write or an edit
 * replaces the content.
 *
 * The file is the truth. An edit saved by someone else while the server runs is never
 * overwritten: before each write (and soon after the edit, through `refresh`) a changed
 * file is read again; a valid one replaces the content, an invalid one (or a missing one)
 * makes appends fail with `storage_unavailable` until it is repaired, while readers keep the
 * last valid content. Ids never go back: the next id is above every id this process has
 * seen or given, whatever the edit says.
 */
export class PetFile {
  readonly #db: Low<PetFileData>;
  readonly #text: DurableTextFile;
  readonly #serializer: PetFileSerializer;
  readonly #health: WriteHealth;
  readonly #onReload: () => void;
  /** The lowest next id this process may give: above every id it has seen in the file or given. */
  #idFloor: number;
  /** Why the file cannot be used now (an invalid or missing edit, or another owner), or `undefined`. */
  #problem: DataFileError | undefined;
  /** Appends and reloads, one at a time. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Bumped when the content is replaced, which stops preparing bytes of the old content. */
  #generation = 0;
  #preparing = false;
  /**
   * True while the file may hold animals whose create failed (a write failed after its
   * rename, and so did the write that was to put the file back). Any later successful write
   * clears it, since each write holds exactly the acknowledged animals.
   */
  #holdsFailedAnimals = false;
  /** Set by `close`: the file is released, and nothing may read (and so lock) it again. */
  #closed = false;

  private constructor(db: Low<PetFileData>, text: DurableTextFile, serializer: PetFileSerializer, onReload: () => void) {
    this.#db = db;
    this.#text = text;
    this.#serializer = serializer;
    this.#onReload = onReload;
    this.#idFloor = db.data.nextId;
    this.#health = new WriteHealth(() => text.probe());
  }

  /**
   * Opens the data file at `realFile` (its real path, so that replacing it never turns a
   * symlink into a file of its own) and takes ownership of it, creating it (mode 0600) when
   * missing. As the owner, it removes temp files a crashed writer left beside it. A damaged
   * or unreadable file throws a DataFileError naming `name`, and is not changed; a file
   * another process owns, a DataFileLockedError.
   */
  static async open(realFile: string, { name, fs, onReload = () => {} }: PetFileOptions): Promise<PetFile> {
    const serializer = new PetFileSerializer();
    const empty: PetFileData = { format: PET_FILE_FORMAT, nextId: 1, pets: [], idempotencyKeys: [] };
    const text = await DurableTextFile.take(realFile, { name, fs, initial: () => serializer.serialize(empty) });
    try {
      await text.removeStaleTempFiles().catch(() => {});
      const adapter = new DurableDataFile<PetFileData>(text, {
        parse: (content) => parsePetFile(content, name),
        serialize: (data) => serializer.serialize(data),
      });
      const db = new Low(adapter, empty);
      try {
        await db.read();
      } catch (error) {
        if (error instanceof DataFileError) throw error;
        throw new DataFileError(name, `The data file ${name} cannot be read: ${systemErrorReason(error).reason}.`, { cause: error });
      }
      return new PetFile(db, text, serializer, onReload);
    } catch (error) {
      await text.release();
      throw error;
    }
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
   * write at a large size costs what later ones cost (again after each reload). Call the
   * returned function to stop.
   */
  prepareWrites(): () => void {
    this.#preparing = true;
    this.#prepare();
    return () => {
      this.#preparing = false;
      this.#generation++;
    };
  }

  #prepare(): void {
    const generation = this.#generation;
    void this.#serializer.prepare(this.#db.data.pets, () => !this.#preparing || generation !== this.#generation);
  }

  /** Runs `task` after every append and reload before it, alone. */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /**
   * Reads the file again if it changed on disk since this process last read or wrote it:
   * someone edited, replaced or removed it. Resolves once the content is the file's (when
   * valid) or the problem is known; never rejects.
   */
  refresh(): Promise<void> {
    return this.#exclusive(() => this.#reloadIfChanged()).catch(() => {});
  }

  async #reloadIfChanged(): Promise<void> {
    if (this.#closed || !(await this.#text.changed())) return;
    try {
      // lowdb keeps the old content when reading fails, so readers keep the last valid one.
      await this.#db.read();
    } catch (error) {
      this.#problem = problemOf(this.#text.name, error);
      return;
    }
    this.#problem = undefined;
    const data = this.#db.data;
    data.nextId = Math.max(data.nextId, this.#idFloor);
    this.#idFloor = data.nextId;
    this.#holdsFailedAnimals = false;
    this.#generation++;
    this.#serializer.forgetFrom(0);
    if (this.#preparing) this.#prepare();
    this.#onReload();
  }

  /**
   * Appends new animals, each with its Idempotency-Key when it has one: gives them the next
   * ids, writes the file (animals and keys in the same write, keys expired by the newest
   * key's arrival left out), and resolves once they are durable. If the write fails, the
   * content is as it was (the ids too, unless the failed write may have reached the disk:
   * then those ids are never given again) and the call rejects with `storage_unavailable`,
   * whose cause says why in one line (a DurableWriteError with the system error's code, or
   * a DataFileError naming the file and its problem).
   *
   * A file edited on disk is read first (the new animals then follow its content); an edit
   * saved during the write makes it start again on the edited content.
   */
  append(entries: readonly NewEntry[]): Promise<AppendedEntry[]> {
    return this.#exclusive(async () => {
      for (let attempt = 1; ; attempt++) {
        await this.#reloadIfChanged();
        if (this.#problem) throw refusal(this.#problem);
        try {
          return await this.#appendOnce(entries);
        } catch (error) {
          if (!(error instanceof FileChangedError)) throw error;
          if (attempt === EDIT_RETRIES) {
            throw refusal(new DataFileError(this.#text.name, `The data file ${this.#text.name} kept changing during each write.`));
          }
        }
      }
    });
  }

  async #appendOnce(entries: readonly NewEntry[]): Promise<AppendedEntry[]> {
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
        this.#idFloor = Math.max(this.#idFloor, data.nextId);
        this.#holdsFailedAnimals = await this.#db.write().then(
          () => false,
          () => true,
        );
      } else {
        data.nextId = committedNextId;
      }
      if (error instanceof FileChangedError) throw error;
      this.#health.failed(error instanceof Error ? error.message : String(error));
      throw new AnimalStoreError('storage_unavailable', 'The animal could not be saved to disk, so it was not stored. Try again later.', {
        cause: error,
      });
    }
    this.#idFloor = Math.max(this.#idFloor, data.nextId);
    this.#holdsFailedAnimals = false;
    this.#health.succeeded();
    return appended;
  }

  /**
   * Whether creates can be stored now: not while the file is invalid, missing or owned by
   * another process after an edit, nor while the disk fails (see WriteHealth). The reason
   * names the file, such as `The data file /srv/animals.json cannot be written: no space
   * left on device (ENOSPC)`.
   */
  async checkHealth(): Promise<StorageHealth> {
    if (this.#problem) return { ok: false, reason: this.#problem.message };
    return this.#health.check();
  }

  /** Finishes appends and reloads, puts the file back if a failed write left animals in it, and releases the file. */
  close(): Promise<void> {
    return this.#exclusive(async () => {
      if (this.#closed) return;
      this.#closed = true;
      // Never over someone's edit: while the file is not ours to write, it stays as it is.
      if (this.#holdsFailedAnimals && !this.#problem) await this.#db.write().catch(() => {});
      await this.#text.release();
    });
  }
}
