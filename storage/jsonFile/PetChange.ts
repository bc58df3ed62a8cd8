/** @module One write's change as the journal keeps it: a small data file of its own holding what the write added. */
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { DataFileError } from '../durableFile/index.js';
import type { SyncState } from '../sync/syncState.js';
import { checkPetFile } from './checkPetFile.js';
import type { PetFileContent } from './PetFileContent.js';
import { keyJson, PET_FILE_FORMAT, petJson } from './PetFileData.js';

/** What one write added to the content: its animals and keys, the next id after it, and the sync part when the file syncs. */
export interface PetChange {
  nextId: number;
  pets: readonly Pet[];
  keys: readonly StoredIdempotencyKey[];
  sync?: SyncState | undefined;
}

/**
 * The change as one line: a data file of the same format holding only what the write
 * added (`{"format":2,"nextId":…,"pets":[…],"idempotencyKeys":[…]}`, with `sync` in a file
 * that syncs), so it is read and checked as the file is. Written as the document writes its
 * animals and keys (`petJson`, `keyJson`): what `JSON.stringify` makes of it, at a fraction
 * of the cost, once a write. Given `keysIn`, says where the keys' text lies in it.
 */
export const encodePetChange = ({ nextId, pets, keys, sync }: PetChange, keysIn?: KeysInChange): string => {
  let text = `{"format":${PET_FILE_FORMAT},"nextId":${JSON.stringify(nextId)},"pets":[`;
  for (let at = 0; at < pets.length; at++) text += at === 0 ? petJson(pets[at]!) : `,${petJson(pets[at]!)}`;
  text += '],"idempotencyKeys":[';
  if (keysIn) keysIn.start = text.length;
  for (let at = 0; at < keys.length; at++) {
    const json = keyJson(keys[at]!);
    keysIn?.lengths.push(json.length);
    text += at === 0 ? json : `,${json}`;
  }
  return `${text}]${sync === undefined ? '' : `,"sync":${JSON.stringify(sync)}`}}`;
};

/** Where `encodePetChange` put the keys: the first one's offset in the text, and each one's length (they are separated by commas), in characters. */
export interface KeysInChange {
  start: number;
  lengths: number[];
}

/**
 * Applies the journal's changes, oldest first, to the content read from the file: animals
 * whose id the content already holds are skipped (the file was written whole with them,
 * or an edit gave that id to an animal of its own: the file's wins), as are keys it already
 * holds; the next id only rises; a change's sync part replaces the content's. Throws a
 * DataFileError naming the journal when a line is not a valid change.
 */
export const replayPetChanges = (content: PetFileContent, lines: readonly string[], name: string): void => {
  if (lines.length === 0) return;
  // Whether the content holds an id: most lines add ids above all it holds, known at once;
  // the set of a million ids is made only for a line that does not (a kiosk's, an edit's).
  let highest = 0;
  for (const { id } of content.pets) highest = Math.max(highest, id);
  let held: Set<number> | undefined;
  const holds = (id: number): boolean => {
    if (id > highest) return false;
    held ??= new Set(content.pets.map((pet) => pet.id));
    return held.has(id);
  };
  let last = content.pets.at(-1)?.id ?? 0;
  let ascending = true;
  for (const [index, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const checked = checkPetFile(value);
    if ('problem' in checked) {
      const problem = `line ${index + 1} of its journal is not a valid change (${checked.problem.path} ${checked.problem.message})`;
      throw new DataFileError(name, `The data file ${name} cannot be used: ${problem}. The file was left as it is.`, { problem });
    }
    const { nextId, pets, idempotencyKeys, sync } = checked.data;
    for (const pet of pets) {
      if (holds(pet.id)) continue;
      held?.add(pet.id);
      content.pets.push(pet);
      if (pet.id < last) ascending = false;
      last = pet.id;
      highest = Math.max(highest, pet.id);
    }
    for (const key of idempotencyKeys) {
      if (content.idempotencyKeys.find(key)?.petId !== key.petId) content.idempotencyKeys.add(key);
    }
    content.nextId = Math.max(content.nextId, nextId);
    if (sync) content.sync = sync;
  }
  // A file without sync keeps ids ascending; only an edit that took ids the journal also has breaks that.
  if (!ascending && !content.sync) content.pets.sort((a, b) => a.id - b.id);
};
