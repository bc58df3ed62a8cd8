/** @module The in-memory index every storage lists from: arrival order plus one run per status. */
import { AnimalStoreError } from '../core/AnimalStoreError.js';
import type { PetPageRequest } from '../core/PetStorage.js';
import type { Pet } from '../core/schemas/Pet.js';
import type { PetStatus } from '../core/schemas/PetStatus.js';

/**
 * The first position in an ascending run of numbers whose value is greater than `after`.
 * Binary search, so a page costs log(n) to find plus `limit` to copy, whatever the size.
 */
const firstAbove = (run: readonly number[], after: number): number => {
  let low = 0;
  let high = run.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (run[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

/** The first position in an id-ordered run of animals whose id is greater than `after`. */
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

/** One status's animals in arrival order, with each one's position in the full arrival order. */
interface StatusRun {
  pets: Pet[];
  positions: number[];
}

/**
 * Holds animals in arrival order, once in full and once per status. Animals never change
 * and only arrive at the end (the interface has no update), so appending keeps every run in
 * order. While ids arrive ascending (a catalogue that never synced), arrival order is id
 * order and lookup by id is a binary search of the full run rather than a Map: at a million
 * animals a Map costs tens of megabytes and a quarter of a second to build, for no gain a
 * reader would notice. The first animal to arrive below the highest id (pushed to a hub,
 * pulled by a kiosk) builds the Map, which is kept from then on.
 */
export class PetIndex {
  readonly #all: Pet[] = [];
  readonly #byStatus = new Map<PetStatus, StatusRun>();
  /** Position in arrival order by id, once ids no longer arrive ascending. */
  #positions: Map<number, number> | undefined;
  #highestId = 0;

  /** Builds an index from animals in arrival order (ids distinct). */
  constructor(pets: Iterable<Pet> = []) {
    for (const pet of pets) this.add(pet);
  }

  /** How many animals the index holds. */
  get size(): number {
    return this.#all.length;
  }

  /** The highest id held, or 0. */
  get lastId(): number {
    return this.#highestId;
  }

  /** Whether arrival order is still ascending id order (true until an animal arrives below the highest id). */
  get inIdOrder(): boolean {
    return this.#positions === undefined;
  }

  /** All animals in arrival order; callers must not change the array. */
  get all(): readonly Pet[] {
    return this.#all;
  }

  /** Appends an animal whose id is not held yet; freezes it so it can be shared. */
  add(pet: Pet): void {
    const position = this.#all.length;
    if (pet.id <= this.#highestId) {
      if (this.has(pet.id)) throw new RangeError(`Animal id ${pet.id} is held already.`);
      if (this.#positions === undefined) this.#positions = new Map(this.#all.map((held, at) => [held.id, at]));
    }
    this.#positions?.set(pet.id, position);
    this.#highestId = Math.max(this.#highestId, pet.id);
    Object.freeze(pet);
    this.#all.push(pet);
    let run = this.#byStatus.get(pet.status);
    if (!run) {
      run = { pets: [], positions: [] };
      this.#byStatus.set(pet.status, run);
    }
    run.pets.push(pet);
    run.positions.push(position);
  }

  /**
   * Refuses, before anything is written, new animals one of whose ids is held already or
   * repeats among them: no storage ever holds two animals with one id, whatever sync or an
   * edited file asks of it. A create refused so is a 503 (the storage's state is at fault,
   * not the request), a sync step a 409 `sync_conflict`.
   */
  refuseTaken(pets: readonly { readonly id: number }[], doing: 'create' | 'sync'): void {
    const seen = new Set<number>();
    for (const { id } of pets) {
      if (!this.has(id) && !seen.has(id)) {
        seen.add(id);
        continue;
      }
      throw doing === 'create'
        ? new AnimalStoreError(
            'storage_unavailable',
            `The id ${id} this storage would give the new animal is held already by another animal, so nothing was stored (its sync state or data file was changed by hand?). Ask the operator to check the storage.`,
          )
        : new AnimalStoreError('sync_conflict', `The id ${id} is held here already by another animal. Nothing was stored.`);
    }
  }

  /** Whether an animal with this id is held. */
  has(id: number): boolean {
    return this.positionOf(id) !== undefined;
  }

  /** The position in arrival order of the animal with this id, or `undefined`. */
  positionOf(id: number): number | undefined {
    if (this.#positions !== undefined) return this.#positions.get(id);
    const position = firstAfter(this.#all, id - 1);
    return this.#all[position]?.id === id ? position : undefined;
  }

  /** The animal with this id, or `undefined`. */
  get(id: number): Pet | undefined {
    const position = this.positionOf(id);
    return position === undefined ? undefined : this.#all[position];
  }

  /**
   * How many animals arrived up to and including the animal `after`: where a page after it
   * starts. An id not held (0, or one removed from a file by hand) counts the animals with
   * smaller ids while arrival is id order, and starts from the beginning after that, since
   * repeating is safer than missing.
   */
  startAfter(after: number): number {
    if (after <= 0) return 0;
    if (this.#positions === undefined) return firstAfter(this.#all, after);
    const position = this.#positions.get(after);
    return position === undefined ? 0 : position + 1;
  }

  /** Up to `limit` animals that arrived after the animal `after`, optionally of one status, in arrival order. */
  list({ after, limit, status }: PetPageRequest): Pet[] {
    const start = this.startAfter(after);
    if (status === undefined) return this.#all.slice(start, start + limit);
    const run = this.#byStatus.get(status);
    if (!run) return [];
    const first = firstAbove(run.positions, start - 1);
    return run.pets.slice(first, first + limit);
  }
}
