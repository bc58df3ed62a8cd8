/** @module The in-memory index every storage lists from: id order plus one run per status. */
import type { PetPageRequest } from '../core/PetStorage.js';
import type { Pet } from '../core/schemas/Pet.js';
import type { PetStatus } from '../core/schemas/PetStatus.js';

/**
 * The first position in an id-ordered run whose id is greater than `after`. Binary search,
 * so a page costs log(n) to find plus `limit` to copy, whatever the catalogue's size.
 */
const firstAfter = (run: readonly Pet[], after: number): number => {
  let low = 0;
  let high = run.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (run[middle]!.id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

/**
 * Holds animals in ascending id order, once in full and once per status. Ids only grow and
 * statuses never change (the interface has no update), so appending keeps every run sorted.
 * Lookup by id is a binary search of the full run rather than a Map: at a million animals
 * a Map costs tens of megabytes and a quarter of a second to build, for no gain a reader
 * would notice.
 */
export class PetIndex {
  readonly #all: Pet[] = [];
  readonly #byStatus = new Map<PetStatus, Pet[]>();

  /** Builds an index from animals in ascending id order. */
  constructor(pets: Iterable<Pet> = []) {
    for (const pet of pets) this.add(pet);
  }

  /** How many animals the index holds. */
  get size(): number {
    return this.#all.length;
  }

  /** The highest id held, or 0. */
  get lastId(): number {
    const length = this.#all.length;
    return length === 0 ? 0 : this.#all[length - 1]!.id;
  }

  /** All animals in ascending id order; callers must not change the array. */
  get all(): readonly Pet[] {
    return this.#all;
  }

  /** Appends an animal whose id is above every id held; freezes it so it can be shared. */
  add(pet: Pet): void {
    if (pet.id <= this.lastId) throw new RangeError(`Animal id ${pet.id} is not above ${this.lastId}.`);
    Object.freeze(pet);
    this.#all.push(pet);
    let run = this.#byStatus.get(pet.status);
    if (!run) {
      run = [];
      this.#byStatus.set(pet.status, run);
    }
    run.push(pet);
  }

  /** The animal with this id, or `undefined`. */
  get(id: number): Pet | undefined {
    const pet = this.#all[firstAfter(this.#all, id - 1)];
    return pet?.id === id ? pet : undefined;
  }

  /** Up to `limit` animals after `after`, optionally of one status, in ascending id order. */
  list({ after, limit, status }: PetPageRequest): Pet[] {
    const run = status === undefined ? this.#all : (this.#byStatus.get(status) ?? []);
    const start = firstAfter(run, after);
    return run.slice(start, start + limit);
  }
}
