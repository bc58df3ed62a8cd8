/** @module The in-memory index every storage lists from: arrival order plus each status's positions in it. */
import { AnimalStoreError } from '../core/AnimalStoreError.js';
import type { PetPageRequest } from '../core/PetStorage.js';
import type { Pet } from '../core/schemas/Pet.js';
import type { PetStatus } from '../core/schemas/PetStatus.js';
import { PetColumns } from './PetColumns.js';

/**
 * The first position in an ascending run of numbers whose value is greater than `after`.
 * Binary search, so a page costs log(n) to find plus `limit` to copy, whatever the size.
 */
const firstAbove = (run: Uint32Array, after: number): number => {
  let low = 0;
  let high = run.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (run[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

/** The first position in columns in ascending id order whose id is greater than `after`. */
const firstAfter = (pets: PetColumns, after: number): number => {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (pets.idAt(middle) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

/**
 * One status's animals: their positions in the full arrival order, ascending, in a typed
 * array that doubles as it fills. Positions only, not the animals again: at a million
 * animals, arrays of animals and of numbers grown a push at a time were a third of a second
 * of a start (their copies as they grew, on fresh pages); typed arrays of positions are
 * 4 MB in all, and their copies as they double a few milliseconds.
 */
class StatusRun {
  #positions = new Uint32Array(16);
  #size = 0;

  /** The positions held, a view valid until the next `push`. */
  get positions(): Uint32Array {
    return this.#positions.subarray(0, this.#size);
  }

  push(position: number): void {
    if (this.#size === this.#positions.length) {
      const grown = new Uint32Array(this.#positions.length * 2);
      grown.set(this.#positions);
      this.#positions = grown;
    }
    this.#positions[this.#size++] = position;
  }
}

/**
 * Holds animals in arrival order, with each status's positions in it. Animals never change
 * and only arrive at the end (the interface has no update), so appending keeps every run in
 * order. While ids arrive ascending (a catalogue that never synced), arrival order is id
 * order and lookup by id is a binary search of the full run rather than a Map: at a million
 * animals a Map costs tens of megabytes and a quarter of a second to build, for no gain a
 * reader would notice. The first animal to arrive below the highest id (pushed to a hub,
 * pulled by a kiosk) builds the Map, which is kept from then on.
 */
export class PetIndex {
  /** The animals in arrival order, in columns of the index's own (see PetColumns). */
  #pets = new PetColumns();
  readonly #byStatus = new Map<PetStatus, StatusRun>();
  /** Position in arrival order by id, once ids no longer arrive ascending. */
  #positions: Map<number, number> | undefined;
  #highestId = 0;

  /**
   * Builds an index from animals in arrival order (ids distinct): columns (a data file's,
   * copied, so the file's next animals reach the index only through `add`), or any list.
   * Columns in ascending id order (every catalogue that never synced) are taken in one pass.
   */
  constructor(pets: PetColumns | Iterable<Pet> = []) {
    if (pets instanceof PetColumns) {
      this.#pets = pets.copy();
      if (!this.#takeAscending()) this.#placeAll();
    } else for (const pet of pets) this.add(pet);
  }

  /** Indexes the columns taken when their ids ascend; false, leaving the runs empty, when they do not. */
  #takeAscending(): boolean {
    const pets = this.#pets;
    let highest = 0;
    let status: PetStatus | undefined;
    let run: StatusRun | undefined;
    for (let position = 0; position < pets.length; position++) {
      const id = pets.idAt(position);
      if (id <= highest) {
        this.#byStatus.clear();
        return false;
      }
      highest = id;
      // Animals of one status often come in a row: the run is looked up when it changes.
      const next = pets.statusAt(position);
      if (next !== status) {
        status = next;
        run = this.#runOf(status);
      }
      run!.push(position);
    }
    this.#highestId = highest;
    return true;
  }

  /** Indexes the columns taken, their ids distinct but not ascending. */
  #placeAll(): void {
    const pets = this.#pets;
    const positions = new Map<number, number>();
    for (let position = 0; position < pets.length; position++) {
      const id = pets.idAt(position);
      if (positions.has(id)) throw new RangeError(`Animal id ${id} is held already.`);
      positions.set(id, position);
      this.#highestId = Math.max(this.#highestId, id);
      this.#runOf(pets.statusAt(position)).push(position);
    }
    this.#positions = positions;
  }

  /** How many animals the index holds. */
  get size(): number {
    return this.#pets.length;
  }

  /** The highest id held, or 0. */
  get lastId(): number {
    return this.#highestId;
  }

  /** Whether arrival order is still ascending id order (true until an animal arrives below the highest id). */
  get inIdOrder(): boolean {
    return this.#positions === undefined;
  }

  /** The id of the animal at `position` in arrival order (below `size`). */
  idAt(position: number): number {
    return this.#pets.idAt(position);
  }

  /** The animal at `position` in arrival order (below `size`), frozen. */
  at(position: number): Pet {
    return Object.freeze(this.#pets.at(position)!);
  }

  /** Appends an animal whose id is not held yet; freezes it, as every animal the index hands out is. */
  add(pet: Pet): void {
    Object.freeze(pet);
    const position = this.#pets.length;
    if (pet.id <= this.#highestId) {
      if (this.has(pet.id)) throw new RangeError(`Animal id ${pet.id} is held already.`);
      if (this.#positions === undefined) {
        this.#positions = new Map();
        for (let at = 0; at < position; at++) this.#positions.set(this.#pets.idAt(at), at);
      }
    }
    this.#positions?.set(pet.id, position);
    this.#highestId = Math.max(this.#highestId, pet.id);
    this.#pets.push(pet);
    this.#runOf(pet.status).push(position);
  }

  /** The run of `status`, made empty when it has none yet. */
  #runOf(status: PetStatus): StatusRun {
    let run = this.#byStatus.get(status);
    if (!run) {
      run = new StatusRun();
      this.#byStatus.set(status, run);
    }
    return run;
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
    const position = firstAfter(this.#pets, id - 1);
    return position < this.#pets.length && this.#pets.idAt(position) === id ? position : undefined;
  }

  /** The animal with this id (frozen), or `undefined`. */
  get(id: number): Pet | undefined {
    const position = this.positionOf(id);
    return position === undefined ? undefined : this.at(position);
  }

  /**
   * How many animals arrived up to and including the animal `after`: where a page after it
   * starts. An id not held (0, or one removed from a file by hand) counts the animals with
   * smaller ids while arrival is id order, and starts from the beginning after that, since
   * repeating is safer than missing.
   */
  startAfter(after: number): number {
    if (after <= 0) return 0;
    if (this.#positions === undefined) return firstAfter(this.#pets, after);
    const position = this.#positions.get(after);
    return position === undefined ? 0 : position + 1;
  }

  /** Up to `limit` animals (frozen) that arrived after the animal `after`, optionally of one status, in arrival order. */
  list({ after, limit, status }: PetPageRequest): Pet[] {
    const start = this.startAfter(after);
    if (status === undefined) {
      const end = Math.min(start + limit, this.#pets.length);
      const page: Pet[] = [];
      for (let position = start; position < end; position++) page.push(this.at(position));
      return page;
    }
    const run = this.#byStatus.get(status);
    if (!run) return [];
    const { positions } = run;
    const first = firstAbove(positions, start - 1);
    return Array.from(positions.subarray(first, first + limit), (position) => this.at(position));
  }
}
