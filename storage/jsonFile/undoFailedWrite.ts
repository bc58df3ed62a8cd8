/** @module Puts a data file's content back after a write that failed, whatever the failure left on disk. */
import type { Low } from 'lowdb';
import { DurableWriteError } from './DurableWriteError.js';
import type { Appended, PetFileContent } from './PetFileContent.js';
import type { PetFileSerializer } from './PetFileSerializer.js';

/** What a failed write left behind. */
export interface FailedWrite {
  /** The new file may be in place (only its durability is in doubt): the ids it gave stay given. */
  replaced: boolean;
  /** The file may still hold the failed animals: putting the acknowledged content back failed too. */
  holdsFailedAnimals: boolean;
}

/**
 * Takes the appended animals and keys out of the content again and tells the serialiser.
 * When the new file may be in place, its ids stay given (should the failed animals survive
 * anyway, their ids never go to others) and the acknowledged content is written again, best
 * effort.
 */
export const undoFailedWrite = async (
  db: Low<PetFileContent>,
  serializer: PetFileSerializer,
  appended: Appended,
  error: unknown,
): Promise<FailedWrite> => {
  const replaced = error instanceof DurableWriteError && error.replaced;
  appended.undo(replaced);
  serializer.forgetFrom(appended.before.pets);
  serializer.forgetKeysFrom(appended.before.keys);
  if (!replaced) return { replaced, holdsFailedAnimals: false };
  const holdsFailedAnimals = await db.write().then(
    () => false,
    () => true,
  );
  return { replaced, holdsFailedAnimals };
};
