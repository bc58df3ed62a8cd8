/**
 * @module The JSON text of animals, kept for each frozen animal, so that a page no cache
 * holds is a join of texts already made rather than a serialisation of its objects.
 */
import type { Pet } from '../schemas/Pet.js';

/** An animal whose JSON can never change: a plain object, frozen (its values are numbers and strings). */
export const isFixedPet = (pet: Pet): boolean => Object.isFrozen(pet) && Object.getPrototypeOf(pet) === Object.prototype;

// Keyed by the animal object itself: the memory and JSON-file storages hand over the same
// frozen objects for as long as they hold them, and an animal no storage holds any more
// takes its text with it.
const texts = new WeakMap<Pet, string>();

/** The JSON text of an animal, exactly `JSON.stringify(pet)`: kept when the animal is fixed. */
export const petText = (pet: Pet): string => {
  let text = texts.get(pet);
  if (text === undefined) {
    text = JSON.stringify(pet);
    if (isFixedPet(pet)) texts.set(pet, text);
  }
  return text;
};

/** The JSON text of a page of animals, exactly `JSON.stringify(pets)`. */
export const pageText = (pets: readonly Pet[]): string => {
  let text = '[';
  for (let index = 0; index < pets.length; index++) text += index === 0 ? petText(pets[index]!) : `,${petText(pets[index]!)}`;
  return `${text}]`;
};
