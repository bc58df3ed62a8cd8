/** @module A bounded map under animal objects, for what a service keeps per animal it served. */
import type { Pet } from '../schemas/Pet.js';

/** An animal whose JSON can never change: a plain object, frozen (its values are numbers and strings). */
export const isFixedPet = (pet: Pet): boolean => Object.isFrozen(pet) && Object.getPrototypeOf(pet) === Object.prototype;

/**
 * How many animals one map keeps, the oldest dropped first: a walk through a catalogue of
 * this size is served from kept values; a bound, so that a client walking a larger
 * catalogue cannot make the server hold a second copy of it.
 */
export const TEXTS_KEPT = 100_000;

/**
 * Values kept under fixed animals (`isFixedPet`), at most `limit`, the oldest dropped first.
 * Keyed by the animal object itself: the memory and JSON-file storages hand over the same
 * frozen objects for as long as they hold them, and new ones for an edited file. Each
 * service makes its own, so what it keeps is bounded per service and goes with it.
 */
export class KeptPerPet<T> {
  readonly #values = new Map<Pet, T>();
  /**
   * The animals in the order they were kept, to find the oldest in one step. Not
   * `values.keys().next()`: V8 leaves a deleted entry in a Map's table until the table is
   * rebuilt, and that walks past every one of them, so once a storage hands over animals
   * faster than they repeat (a database's, new objects at each read; a walk through a
   * catalogue larger than the limit) each drop cost a walk through the drops before it.
   */
  readonly #pets: Pet[] = [];
  #oldest = 0;

  constructor(readonly limit: number = TEXTS_KEPT) {}

  /** How many animals have a value kept. */
  get size(): number {
    return this.#values.size;
  }

  /** The value kept under this very animal object, if any. */
  get(pet: Pet): T | undefined {
    return this.#values.get(pet);
  }

  /** Keeps `value` under a fixed animal, dropping the oldest once `limit` are held; an animal that is not fixed is not kept. */
  keep(pet: Pet, value: T): void {
    if (!isFixedPet(pet)) return;
    if (!this.#values.has(pet)) {
      if (this.#pets.length < this.limit) this.#pets.push(pet);
      else {
        this.#values.delete(this.#pets[this.#oldest]!);
        this.#pets[this.#oldest] = pet;
        this.#oldest = (this.#oldest + 1) % this.limit;
      }
    }
    this.#values.set(pet, value);
  }
}
