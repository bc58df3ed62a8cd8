/** @module The data file's content and its two ways to change (append new animals; sync's update), durably, never over someone's edit. */
import type { Low } from 'lowdb';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { StorageHealth } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import {
  type DataFileError,
  type DurableDataFile,
  type DurableTextFile,
  DurableWriteError,
  FileChangedError,
  inMebibytes,
  journalPath,
  WriteHealth,
} from '../durableFile/index.js';
import type { IdempotencyKeys } from '../IdempotencyKeys.js';
import type { PetColumns } from '../PetColumns.js';
import { reasonOf } from '../reasonOf.js';
import { problemOf, refusal } from './fileProblems.js';
import type { PetChange } from './format/PetChange.js';
import { type ContentChange, changeContent } from './format/PetFileChange.js';
import { type Appended, type AppendedEntry, appendEntries, type NewEntry, type PetFileContent } from './format/PetFileContent.js';
import { SyncInJournal } from './format/SyncInJournal.js';
import type { PetFileDb } from './openPetFileDb.js';
import type { PetFileHooks } from './PetFileHooks.js';
import { WriteQueue } from './WriteQueue.js';
import type { PetFileSerializer } from './write/PetFileSerializer.js';
import { WritePreparation } from './write/WritePreparation.js';

/** How long after a failed whole write (outside a create) the next is tried. */
const COMPACT_RETRY_MILLISECONDS = 5_000;

/**
 * The JSON data file: what is in it, and the operations that change it, `append` and `update`.
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
  readonly #db: Low<PetFileContent>;
  readonly #data: DurableDataFile<PetFileContent, PetChange>;
  readonly #text: DurableTextFile;
  readonly #serializer: PetFileSerializer;
  readonly #health: WriteHealth;
  readonly #onReload: () => void;
  readonly #onAppended: (pets: readonly Pet[]) => void;
  readonly #refuseTaken: NonNullable<PetFileHooks['refuseTaken']>;
  readonly #warn: (message: string) => void;
  /** Why the last whole write outside a create failed (its code), once told; `undefined` while they succeed. */
  #wholeWriteFailure: string | undefined;
  /** The lowest next id this process may give: above every id it has seen in the file or given. */
  #idFloor: number;
  /** Why the file cannot be used now (an invalid or missing edit, or another owner), or `undefined`. */
  #problem: DataFileError | undefined;
  /** Writes and reloads, one at a time. */
  readonly #queue: WriteQueue;
  readonly #preparation: WritePreparation;
  /** The file may hold animals whose create failed (a whole write failed after its rename): the next write is whole. */
  #holdsFailedAnimals = false;
  /** A whole write queued or under way outside any create, until it is done or has failed. */
  #compacting: Promise<void> | undefined;
  /** Settles once the file, being replaced while creates go on (see `#writeWholeAlongside`), is replaced or not. */
  #replacing: Promise<void> | undefined;
  /** No whole write is tried on its own before then (ms since the epoch): the last one failed. */
  #compactAfter = 0;
  /** Set by `close`: the file is released, and nothing may read (and so lock) it again. */
  #closed = false;
  /** What of the sync part each journal line carries (nothing, the leases added, or all of it). */
  readonly #syncInJournal = new SyncInJournal();

  /** Owns the data file opened by `openPetFileDb` (see there for what opening checks). */
  constructor(
    { db, data, text, serializer }: PetFileDb,
    { onReload = () => {}, onAppended = () => {}, refuseTaken = () => {}, warn = () => {} }: PetFileHooks = {},
  ) {
    this.#db = db;
    this.#data = data;
    this.#text = text;
    this.#serializer = serializer;
    this.#onReload = onReload;
    this.#onAppended = onAppended;
    this.#refuseTaken = refuseTaken;
    this.#warn = warn;
    this.#idFloor = db.data.nextId;
    this.#health = new WriteHealth(() => text.probe());
    this.#preparation = new WritePreparation(
      serializer,
      () => db.data,
      (offset, length, into) => text.readOwnBytes(offset, length, into),
    );
    this.#queue = new WriteQueue(text.name, () => this.#reloadIfChanged());
  }

  /** The animals in the file, in ascending id order (arrival order once it syncs); callers must not change them. */
  get pets(): PetColumns {
    return this.#db.data.pets;
  }

  /** What the file keeps about sync (as a hub or a kiosk), or `undefined`; callers must not change it. */
  get sync(): PetFileContent['sync'] {
    return this.#db.data.sync;
  }

  /** The file's Idempotency-Keys: the queue itself, which the storage finds keys in and sweeps; a reload replaces it. */
  get idempotencyKeys(): IdempotencyKeys {
    return this.#db.data.idempotencyKeys;
  }

  /**
   * Prepares, in the background, the bytes of the animals already in the file, so the first
   * write at a large size costs what later ones cost (again after each reload). Call the
   * returned function to stop.
   */
  prepareWrites(): () => void {
    this.#preparation.start();
    return () => this.#preparation.stop();
  }

  /**
   * Watches the file's folder and reads the file again soon after someone changes it (see
   * `refresh`); while the watch reports nothing, writes under load look at the file less
   * often (see `DurableTextFile.lookNeeded`). Call the returned function to stop.
   */
  watch(): () => void {
    return this.#text.watch(() => void this.refresh());
  }

  /**
   * Reads the file again if it changed on disk since this process last read or wrote it:
   * someone edited, replaced or removed it. Resolves once the content is the file's (when
   * valid) or the problem is known; never rejects.
   */
  refresh(): Promise<void> {
    return this.#queue.run(() => this.#reloadIfChanged()).catch(() => {});
  }

  async #reloadIfChanged(): Promise<void> {
    // While the file is being replaced it is this process's own change; an edit saved
    // meanwhile stops the replacement (it looks just before its rename) and is read after it.
    if (this.#closed || this.#replacing || !this.#text.lookNeeded()) return;
    const [changed] = await Promise.all([this.#text.changed(), this.#keepJournalName()]);
    if (!changed) return;
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
    this.#syncInJournal.forget();
    this.#serializer.forgetAll();
    this.#preparation.replaced();
    this.#onReload();
  }

  /**
   * Puts the journal back under its name when someone removed or replaced it while this
   * process runs, and says so: its lines are the creates since the last whole write, which
   * the next start reads from there. When that fails, the journal is dirty and the next
   * write is the file whole, which holds them too.
   */
  async #keepJournalName(): Promise<void> {
    const journal = journalPath(this.#text.name);
    try {
      if (!(await this.#text.checkJournalName())) return;
      this.#warn(
        `the journal ${journal} was removed or replaced while the server ran; it is written again under its name with every change it held (leave it be while the server runs: once it stops, the data file alone holds everything)`,
      );
    } catch (error) {
      this.#warn(
        `the journal ${journal} was removed or replaced while the server ran and cannot be written again, so the next write is the data file whole, with every change it held: ${reasonOf(error)}`,
      );
    }
  }

  /**
   * Appends new animals, each with its Idempotency-Key when it has one: `select` picks them
   * from the file's content as it is now (an edited file is read first, so a caller looks up
   * keys in what it is about to append to), then they get the next ids and are written
   * (animals and keys in the same write, keys expired by the newest key's arrival left out),
   * and the call resolves once they are durable. Nothing selected writes nothing. If the
   * write fails, the content is as it was (the ids too, unless the failed write may have
   * reached the disk: then those ids are never given again) and the call rejects with
   * `storage_unavailable`, whose cause says why in one line (a DurableWriteError with the
   * system error's code, or a DataFileError naming the file and its problem).
   *
   * An edit saved during a whole write makes it start again on the edited content (`select`
   * runs again).
   */
  append(select: () => readonly NewEntry[]): Promise<AppendedEntry[]> {
    return this.#queue.write(async () => {
      const entries = select();
      if (entries.length === 0) return [];
      this.#refuseWhileUnusable();
      const appended = appendEntries(this.#db.data, entries);
      this.#refuse(appended, 'create');
      await this.#write(appended, 'The animal could not be saved to disk, so it was not stored.');
      return appended.entries;
    });
  }

  /**
   * Changes the content through `change` (see ContentChange) and writes it durably, like
   * `append`: on failure the content is as it was and the call rejects with
   * `storage_unavailable`; a change that throws writes nothing. Sync's one way to change the file.
   */
  update<T>(change: ContentChange<T>): Promise<T> {
    return this.#queue.write(async () => {
      this.#refuseWhileUnusable();
      const { result, appended } = changeContent(this.#db.data, change, this.#idFloor);
      this.#refuse(appended, 'sync');
      await this.#write(appended, 'The change could not be saved to disk, so it was not made.');
      return result;
    });
  }

  /** Refuses a write while the file cannot be used (an invalid or missing edit, another owner): it says why. */
  #refuseWhileUnusable(): void {
    if (this.#problem) throw refusal(this.#problem);
  }

  /** Takes the change back, keeping its ids given, when it would add an animal with an id held already. */
  #refuse(appended: Appended, doing: 'create' | 'sync'): void {
    if (appended.entries.length === 0) return;
    try {
      this.#refuseTaken(
        appended.entries.map(({ pet }) => pet),
        doing,
      );
    } catch (error) {
      appended.undo(true);
      this.#serializer.forgetFrom(appended.before.pets);
      this.#serializer.forgetKeysFrom(appended.before.keys);
      this.#idFloor = Math.max(this.#idFloor, this.#db.data.nextId);
      throw error;
    }
  }

  /**
   * Makes the change `appended` made to the content durable: one line in the journal, or the
   * whole file when a failed write may have left its animals on disk. On failure the change
   * is taken back (the ids stay given when the failed write may have reached the disk).
   */
  async #write(appended: Appended, failure: string): Promise<void> {
    try {
      if (this.#holdsFailedAnimals || this.#data.journal.dirty) await this.#writeWhole();
      else {
        const keys = this.#db.data.idempotencyKeys;
        const spot = await this.#data.append(this.#changeOf(appended));
        this.#serializer.appended(spot, keys, appended.before.keys);
      }
    } catch (error) {
      this.#syncInJournal.forget();
      const landed = error instanceof DurableWriteError && error.replaced;
      appended.undo(landed);
      this.#serializer.forgetFrom(appended.before.pets);
      this.#serializer.forgetKeysFrom(appended.before.keys);
      if (landed) {
        this.#idFloor = Math.max(this.#idFloor, this.#db.data.nextId);
        this.#holdsFailedAnimals = true;
      }
      if (error instanceof FileChangedError) throw error;
      this.#health.failed(error instanceof Error ? error.message : String(error));
      throw new AnimalStoreError('storage_unavailable', `${failure} Try again later.`, { cause: error });
    }
    this.#idFloor = Math.max(this.#idFloor, this.#db.data.nextId);
    this.#holdsFailedAnimals = false;
    this.#health.succeeded();
    if (appended.entries.length > 0) this.#onAppended(appended.entries.map(({ pet }) => pet));
    if (this.#data.journal.outgrown) this.#compactSoon();
  }

  /** Writes the file whole (emptying the journal); once it is the file, the serialiser may read its bytes back. */
  async #writeWhole(): Promise<void> {
    await this.#replacing;
    this.#syncInJournal.forget();
    await this.#db.write();
    this.#serializer.written();
  }

  /**
   * Writes the file whole without holding creates back: the document of the content as it
   * is now is made in the queue, then written, synced and renamed in place outside it while
   * creates append to the journal as always, and then, in the queue again, the journal keeps
   * only the lines appended meanwhile. (At 300,000 keys the document is 80 MB: writing and
   * syncing it held every create back for about 0.6 s.) A crash between the two leaves the
   * new document beside the whole journal, whose lines it holds a start skips.
   */
  async #writeWholeAlongside(): Promise<boolean> {
    const whole = await this.#queue.write(async () => {
      this.#refuseWhileUnusable();
      if (!this.#data.journal.outgrown) return undefined;
      const started = this.#data.writeAlongside(this.#db.data);
      this.#replacing = started.written.then(
        () => {},
        () => {},
      );
      return started;
    });
    if (!whole) return false;
    try {
      await whole.written;
    } finally {
      this.#replacing = undefined;
      // An edit saved while the file was being replaced is read now, not at the next write.
      void this.refresh();
    }
    this.#serializer.written();
    await this.#queue.run(async () => {
      if (!this.#closed) await whole.finish();
    });
    return true;
  }

  /** What one write added, for the journal, with the sync fields `SyncInJournal` gives it. */
  #changeOf({ entries }: Appended): PetChange {
    const { nextId, sync } = this.#db.data;
    const keys = entries.flatMap(({ stored }) => (stored ? [stored] : []));
    return { nextId, pets: entries.map(({ pet }) => pet), keys, ...this.#syncInJournal.lineOf(sync) };
  }

  /**
   * Writes the whole file after the writes already queued, alongside the creates that come
   * meanwhile (`#writeWholeAlongside`): the create that made the journal outgrow the file is
   * answered first, and none waits for the whole write. A failure leaves the journal as it
   * is, tried again a few seconds later; a disk's failure is told once (`warn`), and so is
   * the first whole write that succeeds after it.
   */
  #compactSoon(): void {
    if (this.#compacting || Date.now() < this.#compactAfter) return;
    // The bytes of what the journal added are encoded first, a chunk per turn of the event
    // loop while creates go on, so the whole write itself does not stall the server.
    // Stopped when an edit replaces the content: its bytes must not be cached as the new one's.
    this.#compacting = this.#prepareWhole(() => this.#closed)
      .then(() => this.#writeWholeAlongside())
      .then((written) => {
        if (!written || this.#wholeWriteFailure === undefined) return;
        this.#wholeWriteFailure = undefined;
        this.#warn(`the data file ${this.#text.name} is written whole again; its journal is back within its bound`);
      })
      .catch((error: unknown) => {
        this.#compactAfter = Date.now() + COMPACT_RETRY_MILLISECONDS;
        // An edit under way is read and reported on its own; only the disk's failures are news here.
        if (error instanceof DurableWriteError) this.#wholeWriteFailed(error);
      })
      .finally(() => {
        this.#compacting = undefined;
      });
  }

  /** Tells of a whole write the disk refused, unless the last one failed the same way (by its code: the room free changes). */
  #wholeWriteFailed(error: DurableWriteError): void {
    const failure = error.code ?? error.message;
    if (failure === this.#wholeWriteFailure) return;
    this.#wholeWriteFailure = failure;
    const { bytes, bound } = this.#data.journal;
    this.#warn(
      `the data file ${this.#text.name} is not written whole, so its journal ${journalPath(this.#text.name)} keeps every change and grows past its bound (${inMebibytes(bytes)} of ${inMebibytes(bound)} MiB) until it is; tried again every ${COMPACT_RETRY_MILLISECONDS / 1000} s and at the stop: ${error.message}`,
    );
  }

  /**
   * Readies the bytes of a whole write of the content as it is now (see
   * `PetFileSerializer.prepare`): the animals' and keys' bytes kept, read back from the file
   * and the journal, or encoded, a piece per turn of the event loop. Stops when `stopped()`
   * says so, or when an edit replaces the content (its bytes must not be cached as the new one's).
   */
  #prepareWhole(stopped: () => boolean): Promise<void> {
    const content = this.#db.data;
    return this.#serializer.prepare(content, () => stopped() || this.#db.data !== content, {
      keys: true,
      // With `into`: the preparation reads a file's key lines a megabyte at a time into one
      // buffer, where a new one per read made external memory that set off full collections.
      readOwnBytes: (offset, length, into) => this.#text.readOwnBytes(offset, length, into),
      readJournalBytes: (generation, offset, length, into) => this.#text.readJournalBytes(generation, offset, length, into),
    });
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

  /**
   * Finishes appends and reloads, writes the whole file when its journal holds changes (so
   * a stopped file is one document, and no failed write's animals stay in it), and releases
   * the file.
   */
  async close(): Promise<void> {
    // The stop's whole write copies the keys' bytes from the file and the journal, as a
    // compaction does, rather than encoding every key again: 0.6 s of the one thread at
    // 400,000 keys. After a compaction under way, whose document lacks the creates that came
    // meanwhile: stopped in a flood, the stop encoded all 230,000 keys of the file again.
    while (this.#compacting) await this.#compacting;
    if (!this.#closed && this.#data.journal.pending) {
      // Marked as a compaction, so the last creates' appends start none beside it.
      this.#compacting = this.#prepareWhole(() => this.#closed).catch(() => {});
      await this.#compacting;
      this.#compacting = undefined;
    }
    return this.#queue.run(async () => {
      if (this.#closed) return;
      await this.#replacing;
      this.#closed = true;
      // Never over someone's edit: while the file is not ours to write, it and its journal stay as they are.
      if ((this.#holdsFailedAnimals || this.#data.journal.pending) && !this.#problem && !(await this.#text.changed())) {
        await this.#db.write().catch((error: unknown) => {
          this.#warn(
            `the data file ${this.#text.name} was not written whole at the stop, so its journal ${journalPath(this.#text.name)} (${inMebibytes(this.#data.journal.bytes)} MiB) stays beside it, every change kept, and the next start reads both: ${reasonOf(error)}`,
          );
        });
      }
      await this.#text.release();
    });
  }
}
