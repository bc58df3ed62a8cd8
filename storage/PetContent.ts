/** @module A whole catalogue as one value, and the places it can be read from and written to: what `copyPets` moves. */
import type { StoredIdempotencyKey } from '../core/PetStorage.js';
import type { Pet } from '../core/schemas/Pet.js';

/** Everything a catalogue holds. */
export interface PetContent {
  /** The id the next animal gets; above every id in `pets`. */
  nextId: number;
  /** The animals in ascending id order, in chunks (a million animals need not be in memory twice). */
  pets: AsyncIterable<readonly Pet[]>;
  /** The Idempotency-Keys, live and expired, oldest first. */
  idempotencyKeys: readonly StoredIdempotencyKey[];
}

/** A catalogue's home (a data file, a PostgreSQL schema) seen whole. */
export interface PetContentStore {
  /** What it is, for messages: a file's path, or a connection string without its password and the schema. */
  readonly location: string;
  /**
   * Reads the content as of one moment (while servers go on writing) and hands it to
   * `use`; `pets` may be read only until `use` settles.
   */
  read<T>(use: (content: PetContent) => Promise<T>): Promise<T>;
  /**
   * Makes this place hold exactly `content`, in one durable step: all of it or, on failure,
   * what it held before. Throws a TargetNotEmptyError when it holds a catalogue already
   * (animals, keys, or a next id above 1) and `replace` is not set.
   */
  write(content: PetContent, options: { replace: boolean }): Promise<void>;
  /** Releases connections and locks. */
  close(): Promise<void>;
}

/** A copy was refused: the target holds a catalogue already and was not to be replaced. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
  /** The target, as its store names it. */
  readonly location: string;

  constructor(location: string, holds: { pets: number; nextId: number }) {
    super(
      `${location} already holds a catalogue (${holds.pets} animals, next id ${holds.nextId}); nothing was copied. Replace it only if you mean to lose what it holds.`,
    );
    this.location = location;
  }
}

/** Animals in chunks, for `PetContent.pets`, from an array held already. */
export async function* inChunks(pets: readonly Pet[], size = 10_000): AsyncGenerator<readonly Pet[]> {
  for (let start = 0; start < pets.length; start += size) yield pets.slice(start, start + size);
}
