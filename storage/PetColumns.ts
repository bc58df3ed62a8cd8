/** @module Animals kept a column a field: what a storage holds of a million animals without a million objects. */
import type { Pet } from '../core/schemas/Pet.js';
import { PET_STATUSES, type PetStatus } from '../core/schemas/PetStatus.js';

/** How many names a block joins into one string. */
const BLOCK = 1024;

/** Each status's code in the statuses' column. */
const STATUS_CODES: ReadonlyMap<string, number> = new Map(PET_STATUSES.map((status, code) => [status, code]));

/** A full block of names: joined into one string, with where each name ends in it. */
interface NameBlock {
  readonly text: string;
  readonly ends: Uint32Array;
}

/** Animals as a list reads them: how many, and one at a position (an array of animals is one too). */
export interface PetList {
  readonly length: number;
  at(position: number): Pet | undefined;
}

/** A typed array of room for at least `room` values (`from`'s length, at least 16, doubled until it fits), holding `from`'s first `length` values. */
const withRoom = <T extends Float64Array | Uint8Array>(from: T, length: number, room: number, make: (size: number) => T): T => {
  let size = Math.max(from.length, 16);
  while (size < room) size *= 2;
  const to = make(size);
  to.set(from.subarray(0, length));
  return to;
};

/**
 * Animals in arrival order, a typed array for each number (ids, categories, statuses) and
 * names joined a thousand to a string. Held as objects, a million animals were a million
 * objects and their million names: about a hundred megabytes that a start made in the young
 * generation and the collector then copied twice into the old one (more than half of a
 * start's main thread, at a million animals), and that every later full collection marked
 * again. Here they are a few hundred objects; an animal is made when it is asked for
 * (`at`), a small object that dies young. Only grows at its end, but for `truncate`.
 */
export class PetColumns implements PetList, Iterable<Pet> {
  #ids = new Float64Array(16);
  #categoryIds = new Float64Array(16);
  #statuses = new Uint8Array(16);
  #length = 0;
  /** The names of the first `#blocks.length * BLOCK` animals. */
  #blocks: NameBlock[] = [];
  /** The names after the blocks' (fewer than BLOCK). */
  #open: string[] = [];

  /** Columns holding `pets`, in their order. */
  static from(pets: Iterable<Pet>): PetColumns {
    const columns = new PetColumns();
    for (const pet of pets) columns.push(pet);
    return columns;
  }

  /** How many animals are held. */
  get length(): number {
    return this.#length;
  }

  /** The id of the animal at `position` (which must be held). */
  idAt(position: number): number {
    return this.#ids[position]!;
  }

  /** The status of the animal at `position` (which must be held). */
  statusAt(position: number): PetStatus {
    return PET_STATUSES[this.#statuses[position]!]!;
  }

  /** The animal at `position`, made now (not frozen), or `undefined` past the end; negative positions count from the end, as an array's `at`. */
  at(position: number): Pet | undefined {
    const at = position < 0 ? position + this.#length : position;
    if (!(at >= 0 && at < this.#length)) return undefined;
    return { id: this.#ids[at]!, name: this.#nameAt(at), categoryId: this.#categoryIds[at]!, status: this.statusAt(at) };
  }

  #nameAt(position: number): string {
    const block = this.#blocks[Math.floor(position / BLOCK)];
    if (block === undefined) return this.#open[position - this.#blocks.length * BLOCK]!;
    const inBlock = position % BLOCK;
    return block.text.slice(inBlock === 0 ? 0 : block.ends[inBlock - 1], block.ends[inBlock]);
  }

  /**
   * Makes room for `count` animals in all, at most, at once: a start that knows its list's
   * bytes makes room for as many animals as they could hold. Room not used costs address
   * space only (the pages of a large typed array are the system's zero pages until written),
   * where doubling as it filled copied each column into fresh pages a dozen times.
   */
  reserve(count: number): void {
    if (count <= this.#ids.length) return;
    const at = this.#length;
    this.#ids = withRoom(this.#ids, at, count, (size) => new Float64Array(size));
    this.#categoryIds = withRoom(this.#categoryIds, at, count, (size) => new Float64Array(size));
    this.#statuses = withRoom(this.#statuses, at, count, (size) => new Uint8Array(size));
  }

  /** Appends an animal (one the Pet schema accepts). */
  push(pet: Pet): void {
    const at = this.#length;
    if (at === this.#ids.length) this.reserve(at + 1);
    const status = STATUS_CODES.get(pet.status);
    if (status === undefined) throw new RangeError(`An animal's status must be one of ${PET_STATUSES.join(', ')}, not ${pet.status}.`);
    this.#ids[at] = pet.id;
    this.#categoryIds[at] = pet.categoryId;
    this.#statuses[at] = status;
    this.#length = at + 1;
    this.#open.push(pet.name);
    if (this.#open.length === BLOCK) this.#seal();
  }

  /** Joins the open names into a block. */
  #seal(): void {
    const ends = new Uint32Array(BLOCK);
    let end = 0;
    for (let at = 0; at < BLOCK; at++) {
      end += this.#open[at]!.length;
      ends[at] = end;
    }
    this.#blocks.push({ text: this.#open.join(''), ends });
    this.#open = [];
  }

  /** Keeps only the first `length` animals (a write that failed takes its animals back). */
  truncate(length: number): void {
    if (length >= this.#length) return;
    const blocks = Math.floor(length / BLOCK);
    if (blocks < this.#blocks.length) {
      // The cut falls in a sealed block: its names before the cut are the open ones again.
      const kept = length - blocks * BLOCK;
      this.#open = Array.from({ length: kept }, (_, at) => this.#nameAt(blocks * BLOCK + at));
      this.#blocks.length = blocks;
    } else this.#open.length = length - blocks * BLOCK;
    this.#length = length;
  }

  /** Puts the animals in ascending id order (an edit that took ids a journal also gave: rare, so made simple). */
  sortById(): void {
    const sorted = this.slice().sort((one, other) => one.id - other.id);
    this.truncate(0);
    for (const pet of sorted) this.push(pet);
  }

  /** Columns of their own holding these animals: the blocks, which never change, are shared. */
  copy(): PetColumns {
    const copy = new PetColumns();
    const length = this.#length;
    copy.#ids = withRoom(this.#ids, length, length, (size) => new Float64Array(size));
    copy.#categoryIds = withRoom(this.#categoryIds, length, length, (size) => new Float64Array(size));
    copy.#statuses = withRoom(this.#statuses, length, length, (size) => new Uint8Array(size));
    copy.#length = length;
    copy.#blocks = this.#blocks.slice();
    copy.#open = this.#open.slice();
    return copy;
  }

  /** The animals from `start` up to, not including, `end`, made now. */
  slice(start = 0, end = this.#length): Pet[] {
    const from = Math.max(0, start);
    const to = Math.min(end, this.#length);
    const pets: Pet[] = [];
    for (let position = from; position < to; position++) pets.push(this.at(position)!);
    return pets;
  }

  *[Symbol.iterator](): Iterator<Pet> {
    for (let position = 0; position < this.#length; position++) yield this.at(position)!;
  }
}
