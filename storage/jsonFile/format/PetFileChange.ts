/** @module Sync's change to a data file's content (animals with their own ids, the next id, the sync part), and how to take it back. */
import { copySyncState } from '../../sync/syncState.js';
import type { Appended, PetFileContent } from './PetFileContent.js';

/**
 * A change sync makes to the content: it may append animals with their own ids, raise
 * `nextId` and change `sync` (always present while it runs), nothing else; what it returns
 * is the update's result.
 */
export type ContentChange<T> = (content: PetFileContent & { sync: NonNullable<PetFileContent['sync']> }) => T;

/**
 * Runs `change` on the content, on a copy of the sync part so that the old one can be put
 * back, and keeps the next id at or above `idFloor`. A change that throws is taken back at
 * once; otherwise the caller writes the content and, should the write fail, calls `undo`.
 */
export const changeContent = <T>(content: PetFileContent, change: ContentChange<T>, idFloor: number): { result: T; appended: Appended } => {
  const before = { pets: content.pets.length, keys: content.idempotencyKeys.end, nextId: content.nextId };
  const committedSync = content.sync;
  const undo = (keepIds: boolean) => {
    content.pets.truncate(before.pets);
    if (!keepIds) content.nextId = before.nextId;
    content.sync = committedSync;
  };
  // The change sees the content with a sync part of its own; the animals are the content's.
  const changing = { ...content, sync: copySyncState(committedSync) };
  let result: T;
  try {
    result = change(changing);
  } catch (error) {
    undo(false);
    throw error;
  }
  content.sync = changing.sync;
  content.nextId = Math.max(changing.nextId, idFloor);
  const entries = content.pets.slice(before.pets).map((pet) => ({ pet, stored: undefined }));
  return { result, appended: { entries, before, undo } };
};
