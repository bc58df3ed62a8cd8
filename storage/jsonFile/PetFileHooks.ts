/** @module What a data file tells the storage that owns it. */
import type { Pet } from '../../core/schemas/Pet.js';

/** What a PetFile tells its owner, synchronously. */
export interface PetFileHooks {
  /** A valid edit read from disk replaced the content. */
  onReload?: () => void;
  /**
   * A write that added animals became durable: them, in file order, before any other write
   * starts. An index fed from here holds the file's order and never a failed write's animal.
   */
  onAppended?: (pets: readonly Pet[]) => void;
  /**
   * Before a write that adds animals: throws (an AnimalStoreError) when one of their ids is
   * held already, and then nothing is written; the ids given stay given, so the next write
   * does not meet the same one.
   */
  refuseTaken?: (pets: readonly Pet[], doing: 'create' | 'sync') => void;
  /**
   * What an operator should hear and no request shows, in a sentence: the file could not be
   * written whole (its journal then grows past its bound, though creates go on), and could
   * again; or the stop left the journal beside the file.
   */
  warn?: (message: string) => void;
}
