/** @module The JSON-file storage: a lowdb file that loses no acknowledged animal. */
import path from 'node:path';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { IdempotentCreate, PetStorage } from '../../core/PetStorage.js';
import { createArrivals } from '../../core/sync/createArrivals.js';
import type { SyncStorage } from '../../core/sync/SyncStorage.js';
import {
  createFolderDurably,
  DataFileError,
  type FileSystem,
  findDanglingLink,
  folderFailureReason,
  nodeFileSystem,
  realPathOf,
} from '../durableFile/index.js';
import { type CommitObserver, GroupCommit } from '../GroupCommit.js';
import type { IdempotencyKeys } from '../IdempotencyKeys.js';
import { KeySweep, type KeySweepOptions } from '../KeySweep.js';
import { PetIndex } from '../PetIndex.js';
import { createJsonFileSync } from './createJsonFileSync.js';
import type { NewEntry } from './format/PetFileContent.js';
import { KeySpillFile } from './KeySpillFile.js';
import { openPetFileDb } from './openPetFileDb.js';
import { PetFile } from './PetFile.js';

/** How to open a JSON data file. */
export interface JsonFileStorageOptions {
  /** The data file; created, with its folders, when missing. */
  file: string;
  /** Told of every durable write: how many creates it held and how long it took (for metrics). */
  onCommit?: CommitObserver;
  /** How expired Idempotency-Keys are forgotten (tests shorten it). */
  keySweep?: KeySweepOptions;
  /**
   * The journal is written into the file once it holds more than this many bytes (8 MiB by
   * default) and more than the file, or the file and twice the journal more than 120 MiB
   * (bounding what a start reads; past 120 MiB, twice the file less 120 MiB).
   */
  journalMinBytes?: number;
  /**
   * Where to tell what an operator should hear and no request shows: the file cannot be
   * written whole (a full disk; creates go on into its journal, which then grows past its
   * bound), and can again; a stop that left the journal beside the file. `console.warn` by default.
   */
  log?: { warn?(message: string): void };
}

/** A storage kept in a JSON data file. */
export interface JsonFileStorage extends PetStorage {
  /** The data file's absolute path. */
  readonly file: string;
  /** Sync as a hub or a kiosk, kept in the data file. */
  sync: SyncStorage;
}

/**
 * Opens (or creates, mode 0600) a JSON data file as a storage, taking ownership of it: until
 * `close`, another process (or another open in this one) that opens it, by whatever name,
 * fails with a DataFileLockedError. A damaged file, or a symlink to nothing (a volume that
 * did not mount), throws a DataFileError naming the file and its problem, and is not changed.
 *
 * Each create resolves only once its animal is on disk (a line appended to the file's
 * journal and fdatasynced; the file is written whole, durably, once the journal outgrows
 * it, and when the storage closes); creates arriving during a write share the next one
 * (group commit). If a
 * write fails, the creates it held reject with `storage_unavailable` and none of them was
 * ever visible: animals enter the index only after their write succeeded.
 *
 * The file may be edited while the storage runs: a valid edit is read back (reads see it
 * soon after it is saved, through a watch on the folder, and every write checks first), an
 * invalid one refuses creates until it is repaired, and no edit is ever overwritten. Its
 * `checkHealth` says whether creates can be stored now.
 */
export const openJsonFileStorage = (options: JsonFileStorageOptions): Promise<JsonFileStorage> =>
  openJsonFileStorageOn(options, nodeFileSystem);

/** `openJsonFileStorage` over the given file functions (tests pass ones that fail on demand). */
export const openJsonFileStorageOn = async (
  { file: given, onCommit, keySweep, journalMinBytes, log = {} }: JsonFileStorageOptions,
  fs: FileSystem,
): Promise<JsonFileStorage> => {
  const file = path.resolve(given);
  const dangling = await findDanglingLink(fs, file);
  if (dangling) {
    const what = dangling.link === file ? 'is a symbolic link' : `is reached through the symbolic link ${dangling.link}`;
    throw new DataFileError(
      file,
      `The data file ${file} ${what} to ${dangling.target}, which does not exist (a volume that did not mount?). Nothing was created: mount or create the target, or fix the link, then start again.`,
    );
  }
  let realFile: string;
  try {
    await createFolderDurably(file, fs);
    realFile = await realPathOf(fs, file);
  } catch (error) {
    const reason = await folderFailureReason(error, path.dirname(file), fs);
    throw new DataFileError(file, `The folder of the data file ${file} cannot be created: ${reason}.`, {
      cause: error,
    });
  }

  // The index holds only what is on disk, so reads never show an animal that a failing write
  // loses. Keys join the file's queue for their write and leave it again if it fails; no
  // lookup runs meanwhile, since commits run one at a time. An edit read from disk replaces both.
  let index: PetIndex;
  const arrivals = createArrivals();
  let keys: IdempotencyKeys | undefined;
  // Full chunks of keys keep their texts, digests and animals there, not in memory (see
  // KeySpillFile): made once the file is open, so a start that fails leaves nothing open.
  let spill: KeySpillFile | undefined;
  // Expired keys leave the queue here and the file at its next write.
  const sweep = new KeySweep(
    (now, atMost) => keys!.sweep(now, atMost),
    keySweep,
    () => keys!.size === 0,
  );
  const rebuild = () => {
    index = new PetIndex(petFile.pets);
    const replaced = keys;
    keys = petFile.idempotencyKeys;
    if (replaced && replaced !== keys) {
      // A write under way may still read the old queue: it holds its keys again, and the spill starts afresh.
      replaced.unspill();
      spill?.releaseAll();
    }
    if (spill) keys.spillTo(spill);
    if (keys.size > 0) sweep.start();
  };
  const petFile = new PetFile(await openPetFileDb(realFile, file, fs, journalMinBytes), {
    onReload: () => {
      rebuild();
      arrivals.notify();
    },
    // Fed in file order inside each write, so the index's arrival order is the file's.
    onAppended: (pets) => {
      for (const pet of pets) index.add(pet);
      // Waiting pulls hear of them once they are durable and visible: after this write.
      if (pets.length > 0) queueMicrotask(arrivals.notify);
    },
    refuseTaken: (pets, doing) => index.refuseTaken(pets, doing),
    // Called as a method, so a logger whose warn uses `this` (pino's, winston's) works.
    warn: (message) => (log.warn ? log.warn(message) : console.warn(message)),
  });
  spill = KeySpillFile.open(realFile);
  rebuild();
  const stopPreparing = petFile.prepareWrites();
  const stopWatching = petFile.watch();

  /**
   * One commit: entries whose key is stored already (or came earlier in this batch) are
   * answered from it; the rest are appended in one durable write, keys beside animals. Keys
   * are looked up inside the write, in the file as it is then (should someone have edited it).
   */
  const commit = async (batch: NewEntry[]): Promise<IdempotentCreate[]> => {
    type Step = { replay: IdempotentCreate } | { sameAs: number } | { fresh: number };
    let plan: Step[] = [];
    const appended = await petFile.append(() => {
      const fresh: NewEntry[] = [];
      // By scope, then key: no joined string to build and hash per keyed entry.
      const firstWithKey = new Map<string, Map<string, number>>();
      plan = batch.map((entry, position): Step => {
        const { key } = entry;
        if (key) {
          const stored = keys!.find(key);
          const pet = stored && index.get(stored.petId);
          // A key whose animal was removed from the file by hand stands for nothing.
          if (stored && pet) return { replay: { pet, stored, replayed: true } };
          let inScope = firstWithKey.get(key.scope);
          if (inScope === undefined) {
            inScope = new Map();
            firstWithKey.set(key.scope, inScope);
          }
          const earlier = inScope.get(key.key);
          if (earlier !== undefined) return { sameAs: earlier };
          inScope.set(key.key, position);
        }
        fresh.push(entry);
        return { fresh: fresh.length - 1 };
      });
      return fresh;
    });
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
  const writes = new GroupCommit(commit, onCommit);
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
      sweep.saw(key.createdAt);
      return submit({ newPet, key });
    },
    get(id) {
      return index.get(id);
    },
    list(page) {
      return index.list(page);
    },
    checkHealth() {
      return petFile.checkHealth();
    },
    sync: createJsonFileSync(petFile, () => index, file, arrivals),
    close() {
      stopPreparing();
      stopWatching();
      sweep.stop();
      closing ??= (async () => {
        await writes.drain();
        try {
          await petFile.close();
        } finally {
          spill?.close();
        }
      })();
      return closing;
    },
  };
};
