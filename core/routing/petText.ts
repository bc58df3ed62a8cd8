/**
 * @module The JSON text of animals, kept for the animals served lately, so that a page no
 * cache holds is a join of texts already made rather than a serialisation of its objects.
 */
import type { Pet } from '../schemas/Pet.js';

/** An animal whose JSON can never change: a plain object, frozen (its values are numbers and strings). */
export const isFixedPet = (pet: Pet): boolean => Object.isFrozen(pet) && Object.getPrototypeOf(pet) === Object.prototype;

/**
 * How many animals' texts are kept, the oldest dropped first: a walk through a catalogue of
 * this size is served from kept texts; a bound, so that a client walking a larger catalogue
 * cannot make the server hold a second copy of it.
 */
export const TEXTS_KEPT = 100_000;

/**
 * Keeps `value` under a frozen animal in `kept`, dropping the oldest entry once `TEXTS_KEPT`
 * are held. Keyed by the animal object itself: the memory and JSON-file storages hand over
 * the same frozen objects for as long as they hold them, and new ones for an edited file.
 */
export const keepForPet = <T>(kept: Map<Pet, T>, pet: Pet, value: T): void => {
  if (!isFixedPet(pet)) return;
  if (!kept.has(pet)) {
    let ring = rings.get(kept);
    if (ring === undefined) {
      ring = { pets: [], oldest: 0 };
      rings.set(kept, ring);
    }
    if (ring.pets.length < TEXTS_KEPT) ring.pets.push(pet);
    else {
      kept.delete(ring.pets[ring.oldest]!);
      ring.pets[ring.oldest] = pet;
      ring.oldest = (ring.oldest + 1) % TEXTS_KEPT;
    }
  }
  kept.set(pet, value);
};

/**
 * The animals of each map in the order they were kept, to find the oldest in one step.
 * Not `kept.keys().next()`: V8 leaves a deleted entry in a Map's table until the table is
 * rebuilt, and that walks past every one of them, so once a storage hands over animals
 * faster than they repeat (a database's, new objects at each read; a walk through a
 * catalogue larger than `TEXTS_KEPT`) each drop cost a walk through the drops before it.
 */
const rings = new WeakMap<Map<Pet, unknown>, { pets: Pet[]; oldest: number }>();

const texts = new Map<Pet, string>();

/** The JSON text of an animal, exactly `JSON.stringify(pet)`: kept when the animal is fixed. */
export const petText = (pet: Pet): string => {
  let text = texts.get(pet);
  if (text === undefined) {
    text = JSON.stringify(pet);
    keepForPet(texts, pet, text);
  }
  return text;
};

/** A page's JSON text, and whether every animal on it is fixed (so the page can be kept). */
export interface PageText {
  text: string;
  fixed: boolean;
}

/**
 * The JSON text of a page of animals, exactly `JSON.stringify(pets)`, and whether all of
 * them are fixed: an animal whose text was kept is (only those are kept), so that is asked
 * only of the others.
 */
export const pageText = (pets: readonly Pet[]): PageText => {
  let text = '[';
  let fixed = true;
  for (let index = 0; index < pets.length; index++) {
    const pet = pets[index]!;
    let kept = texts.get(pet);
    if (kept === undefined) {
      fixed &&= isFixedPet(pet);
      kept = petText(pet);
    }
    text += index === 0 ? kept : `,${kept}`;
  }
  return { text: `${text}]`, fixed };
};
