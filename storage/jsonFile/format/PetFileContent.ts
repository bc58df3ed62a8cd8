/** @module What a running storage holds of its data file, and the one change made to it: new animals with their keys. */
import type { IdempotencyKey, StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { NewPet } from '../../../core/schemas/NewPet.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { IdempotencyKeys } from '../../IdempotencyKeys.js';
import { PetColumns } from '../../PetColumns.js';
import { type SyncState, takeKioskId } from '../../sync/syncState.js';
import { PET_FILE_FORMAT, type PetFileData } from './PetFileData.js';

/**
 * The data file's content as a running storage holds it (lowdb's `Low.data`): the animals,
 * the next id, and the keys in the queue the storage finds them in and the serialiser reuses
 * the bytes of, and the sync part. What the file learns to hold next is a field here, read
 * in `toPetFileContent`, written by the serialiser, checked in `checkPetFile`.
 */
export interface PetFileContent {
  format: typeof PET_FILE_FORMAT;
  nextId: number;
  /** In ascending id order (arrival order, distinct ids, once `sync` is there); only ever grows at its end, but for `undo` and a reload. */
  pets: PetColumns;
  /** Live keys (and expired ones the sweep has not reached), oldest first. */
  idempotencyKeys: IdempotencyKeys;
  /** What the catalogue keeps as a hub or a kiosk, once it syncs (see SyncStateInFile). */
  sync?: SyncState | undefined;
}

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

/** What `appendEntries` changed, and how to take it back. */
export interface Appended {
  entries: AppendedEntry[];
  /** Where the content ended before: the animals' count and the keys' end. */
  before: { pets: number; keys: number; nextId: number };
  /** Puts the content back as it was before (the ids too, when `keepIds` is false). */
  undo(keepIds: boolean): void;
}

/**
 * A file's content as read, as a running storage holds it: its animals in columns (unless
 * read into columns already), its keys' queue made from its keys (unless given, built in a
 * worker thread).
 */
export const toPetFileContent = (
  { nextId, pets, idempotencyKeys, sync }: Omit<PetFileData, 'pets'> & { pets: PetFileData['pets'] | PetColumns },
  queue: IdempotencyKeys = new IdempotencyKeys(idempotencyKeys),
): PetFileContent => {
  const columns = pets instanceof PetColumns ? pets : PetColumns.from(pets);
  const content: PetFileContent = { format: PET_FILE_FORMAT, nextId, pets: columns, idempotencyKeys: queue };
  if (sync) content.sync = sync;
  return content;
};

/** An empty catalogue. */
export const emptyPetFileContent = (): PetFileContent =>
  toPetFileContent({ format: PET_FILE_FORMAT, nextId: 1, pets: [], idempotencyKeys: [] });

/**
 * The most expired keys a write forgets on its own, as of its newest key's arrival: a
 * bounded few, so a create never pays for a backlog (the storage's sweep timer does that).
 */
const EXPIRED_KEYS_PER_WRITE = 64;

/**
 * Gives the entries ids and adds them, with their keys, at the end of the content: a kiosk's
 * from the blocks its hub leased to it (none left: a 503, and nothing changed), anyone
 * else's the next ids.
 */
export const appendEntries = (content: PetFileContent, entries: readonly NewEntry[]): Appended => {
  const kiosk = content.sync?.kiosk;
  const before = { pets: content.pets.length, keys: content.idempotencyKeys.end, nextId: content.nextId };
  const kioskNextId = kiosk?.nextId ?? 0;
  const ids: number[] = [];
  try {
    for (let offset = 0; offset < entries.length; offset++) ids.push(kiosk ? takeKioskId(kiosk) : before.nextId + offset);
  } catch (error) {
    if (kiosk) kiosk.nextId = kioskNextId;
    throw error;
  }
  const keys = content.idempotencyKeys;
  // A loop, not a spread: a batch may hold more creates than a call takes arguments.
  let newest = 0;
  for (const { key } of entries) if (key && key.createdAt > newest) newest = key.createdAt;
  keys.sweep(newest, EXPIRED_KEYS_PER_WRITE);
  const appended = entries.map(({ newPet: { name, categoryId, status }, key }, offset): AppendedEntry => {
    const pet: Pet = { id: ids[offset]!, name, categoryId, status };
    if (key === undefined) return { pet, stored: undefined };
    // Fields named one by one: a spread makes each key a slower object (see keyFromFile).
    const { scope, key: text, fingerprint, createdAt, expiresAt } = key;
    return { pet, stored: { scope, key: text, fingerprint, petId: pet.id, createdAt, expiresAt } };
  });
  let nextId = kiosk ? before.nextId : before.nextId + appended.length;
  for (const { pet, stored } of appended) {
    content.pets.push(pet);
    if (stored) keys.add(stored);
    if (pet.id >= nextId) nextId = pet.id + 1;
  }
  content.nextId = nextId;
  return {
    entries: appended,
    before,
    undo(keepIds) {
      content.pets.truncate(before.pets);
      keys.truncate(before.keys);
      // Kept ids stay given: the kiosk's as much as the next ids.
      if (keepIds) return;
      content.nextId = before.nextId;
      if (kiosk) kiosk.nextId = kioskNextId;
    },
  };
};
