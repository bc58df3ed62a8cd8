/** @module One write's change as the journal keeps it: a small data file of its own holding what the write added. */
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
// Not the durable layer's entry (index.js): the keys' worker loads this module, and need not load that layer whole.
import { DataFileError } from '../../durableFile/errors.js';
import type { Changes } from '../../durableFile/index.js';
import type { IdempotencyKeys } from '../../IdempotencyKeys.js';
import type { Lease } from '../../sync/Lease.js';
import { highestLeasedId, type SyncState } from '../../sync/syncState.js';
import { checkPetFile } from './checkPetFile.js';
import type { PetFileContent } from './PetFileContent.js';
import type { PetFileProblem } from './PetFileData.js';
import { keyJson, PET_FILE_FORMAT, petJson } from './PetFileData.js';
import { readLeased } from './SyncStateInFile.js';

/**
 * What one write added to the content: its animals and keys, the next id after it, and, in a
 * file that syncs, the sync part as it became (`sync`) or only the leases it added (`leased`),
 * when it changed (see `SyncInJournal`).
 */
export interface PetChange {
  nextId: number;
  pets: readonly Pet[];
  keys: readonly StoredIdempotencyKey[];
  sync?: SyncState | undefined;
  leased?: readonly Lease[] | undefined;
}

/**
 * The change as one line: a data file of the same format holding only what the write
 * added (`{"format":2,"nextId":…,"pets":[…],"idempotencyKeys":[…]}`, with `sync` in a file
 * that syncs), so it is read and checked as the file is; `"leased":[…]`, the one field a
 * data file does not have, adds leases to a hub's list (an older version refuses it, as
 * it refuses `sync`, rather than misread it). Written as the document writes its
 * animals and keys (`petJson`, `keyJson`): what `JSON.stringify` makes of it, at a fraction
 * of the cost, once a write. Given `keysIn`, says where the keys' text lies in it.
 */
export const encodePetChange = ({ nextId, pets, keys, sync, leased }: PetChange, keysIn?: KeysInChange): string => {
  let text = `{"format":${PET_FILE_FORMAT},"nextId":${JSON.stringify(nextId)},"pets":[`;
  for (let at = 0; at < pets.length; at++) text += at === 0 ? petJson(pets[at]!) : `,${petJson(pets[at]!)}`;
  text += '],"idempotencyKeys":[';
  if (keysIn) keysIn.start = text.length;
  for (let at = 0; at < keys.length; at++) {
    const json = keyJson(keys[at]!);
    keysIn?.lengths.push(json.length);
    text += at === 0 ? json : `,${json}`;
  }
  text += ']';
  if (sync !== undefined) text += `,"sync":${JSON.stringify(sync)}`;
  if (leased !== undefined) text += `,"leased":${JSON.stringify(leased)}`;
  return `${text}}`;
};

/** Where `encodePetChange` put the keys: the first one's offset in the text, and each one's length (they are separated by commas), in characters. */
export interface KeysInChange {
  start: number;
  lengths: number[];
}

/**
 * What a journal's changes add to the content, read and checked (see `readPetChanges`):
 * their animals, keys (those not put in a queue yet) and sync steps in the journal's order,
 * and the highest next id they name.
 */
export interface ReadChanges {
  pets: Pet[];
  keys: StoredIdempotencyKey[];
  nextId: number;
  /** Each line's sync part (replacing the content's) or leases (added to it), in order: only a file that syncs has them. */
  syncSteps: SyncStep[];
}

/** One line's sync fields: the sync part as it became, or leases it added. */
export type SyncStep = { sync: SyncState } | { leased: readonly Lease[] };

/** Adds `key` to the queue unless it holds that key for the same animal: a file written whole after the change holds it. */
const addKey = (keys: IdempotencyKeys, key: StoredIdempotencyKey): void => {
  if (keys.find(key)?.petId !== key.petId) keys.add(key);
};

/**
 * Reads the journal's changes, oldest first (`before`: how many lines come before them in
 * the journal), for `addPetChanges`. Given a queue (`into`), their keys go straight into it
 * (those it holds already skipped), so a worker thread holding the file's keys can read the
 * journal while this one parses the animals. Throws a DataFileError naming the journal's
 * line when one is not a valid change.
 */
export const readPetChanges = (lines: Changes, name: string, into?: IdempotencyKeys, before = 0): ReadChanges => {
  const read: ReadChanges = { pets: [], keys: [], nextId: 0, syncSteps: [] };
  let index = before - 1;
  for (const line of lines) {
    index++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const refuse = ({ path, message }: PetFileProblem) => {
      const problem = `line ${index + 1} of its journal is not a valid change (${path} ${message})`;
      return new DataFileError(name, `The data file ${name} cannot be used: ${problem}. The file was left as it is.`, { problem });
    };
    const { data: rest, leased } = takeLeased(value);
    if ('problem' in leased) throw refuse(leased.problem);
    const checked = checkPetFile(rest);
    if ('problem' in checked) throw refuse(checked.problem);
    const { nextId, pets, idempotencyKeys, sync } = checked.data;
    for (const pet of pets) read.pets.push(pet);
    for (const key of idempotencyKeys) {
      if (into) addKey(into, key);
      else read.keys.push(key);
    }
    read.nextId = Math.max(read.nextId, nextId);
    if (sync) read.syncSteps.push({ sync });
    if (leased.leases.length > 0) read.syncSteps.push({ leased: leased.leases });
  }
  return read;
};

/**
 * Adds what `readPetChanges` read to the content read from the file: animals whose id the
 * content already holds are skipped (the file was written whole with them, or an edit gave
 * that id to an animal of its own: the file's wins), and so are keys it holds; the next id
 * only rises; a sync part replaces the content's, and leases are added to the content's
 * unless it holds them (leases ascend, so one starting at or below the content's last holds).
 */
export const addPetChanges = (content: PetFileContent, { pets, keys, nextId, syncSteps }: ReadChanges): void => {
  for (const key of keys) addKey(content.idempotencyKeys, key);
  // Whether the content holds an id: most lines add ids above all it holds, known at once;
  // the set of a million ids is made only for a line that does not (a kiosk's, an edit's).
  const held = content.pets;
  let highest = 0;
  if (pets.length > 0) for (let position = 0; position < held.length; position++) highest = Math.max(highest, held.idAt(position));
  let heldIds: Set<number> | undefined;
  const holds = (id: number): boolean => {
    if (id > highest) return false;
    if (heldIds === undefined) {
      heldIds = new Set();
      for (let position = 0; position < held.length; position++) heldIds.add(held.idAt(position));
    }
    return heldIds.has(id);
  };
  let last = held.length > 0 ? held.idAt(held.length - 1) : 0;
  let ascending = true;
  for (const pet of pets) {
    if (holds(pet.id)) continue;
    heldIds?.add(pet.id);
    held.push(pet);
    if (pet.id < last) ascending = false;
    last = pet.id;
    highest = Math.max(highest, pet.id);
  }
  content.nextId = Math.max(content.nextId, nextId);
  /** The highest id the content's leases hold, once a line adds leases (found once, then kept). */
  let leasedThrough: number | undefined;
  for (const step of syncSteps) {
    if ('sync' in step) {
      content.sync = step.sync;
      leasedThrough = undefined;
    } else {
      content.sync ??= { leases: [] };
      leasedThrough = addLeases(content.sync.leases, step.leased, leasedThrough);
    }
  }
  // A file without sync keeps ids ascending; only an edit that took ids the journal also has breaks that.
  if (!ascending && !content.sync) held.sortById();
};

/**
 * Applies the journal's changes, oldest first, to the content read from the file (see
 * `readPetChanges` and `addPetChanges`): keys it already holds are skipped. Throws a
 * DataFileError naming the journal when a line is not a valid change.
 */
export const replayPetChanges = (content: PetFileContent, lines: Changes, name: string): void => {
  if (lines.length === 0) return;
  addPetChanges(content, readPetChanges(lines, name, content.idempotencyKeys));
};

/** A line's value without its `leased` field, and that field's leases (none without it), or its problem. */
const takeLeased = (value: unknown): { data: unknown; leased: { leases: readonly Lease[] } | { problem: PetFileProblem } } => {
  if (typeof value !== 'object' || value === null || !('leased' in value)) return { data: value, leased: { leases: [] } };
  const { leased, ...data } = value;
  return { data, leased: readLeased(leased) };
};

/**
 * Adds to `leases` each of `added` that starts above all it holds (`through`, the highest id
 * they hold, found when not given): a line the document was written whole with holds them
 * already. Returns the highest id they hold after.
 */
const addLeases = (leases: Lease[], added: readonly Lease[], through?: number): number => {
  let held = through ?? highestLeasedId(leases);
  for (const lease of added) {
    if (lease.first <= held) continue;
    leases.push(lease);
    held = lease.last;
  }
  return held;
};
