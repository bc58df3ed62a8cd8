/**
 * @module The JSON text of animals, kept for the animals a service served lately, so that a
 * page no cache holds is a join of texts already made rather than a serialisation of its objects.
 */
import type { Pet } from '../schemas/Pet.js';
import { isFixedPet, KeptPerPet } from './KeptPerPet.js';

/** A page's JSON text, and whether every animal on it is fixed (so the page can be kept). */
export interface PageText {
  text: string;
  fixed: boolean;
}

/** One service's kept texts of animals. */
export interface PetTexts {
  /** The JSON text of an animal, exactly `JSON.stringify(pet)`: kept when the animal is fixed. */
  petText(pet: Pet): string;
  /**
   * The JSON text of a page of animals, exactly `JSON.stringify(pets)`, and whether all of
   * them are fixed: an animal whose text was kept is (only those are kept), so that is asked
   * only of the others.
   */
  pageText(pets: readonly Pet[]): PageText;
}

/**
 * Creates a service's kept texts: up to `TEXTS_KEPT` animals (`KeptPerPet`), the oldest
 * dropped first. Each service makes its own, so two services in one process share none, and
 * the texts go when the service goes.
 */
export const createPetTexts = (): PetTexts => {
  const texts = new KeptPerPet<string>();
  const petText = (pet: Pet): string => {
    let text = texts.get(pet);
    if (text === undefined) {
      text = JSON.stringify(pet);
      texts.keep(pet, text);
    }
    return text;
  };
  const pageText = (pets: readonly Pet[]): PageText => {
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
  return { petText, pageText };
};
