/** @module Turns seed data (animals, new animals or a data file's content) into validated animals. */

import type * as v from 'valibot';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { NEW_PET_FIELDS, NewPet, type NewPetInput } from '../../core/schemas/NewPet.js';
import { Pet } from '../../core/schemas/Pet.js';
import { validate } from '../../core/validate.js';
import { checkPetFile } from '../../storage/jsonFile/format/checkPetFile.js';
import type { PetFileJson } from '../../storage/jsonFile/format/PetFileData.js';

/** The shapes seed data may have, for messages. */
const SHAPES = 'an array of animals, json-server\'s {"pets": […]}, or a data file {"format":2,"nextId":N,"pets":[…],"idempotencyKeys":[]}';

/**
 * Seed data: animals with ids (ascending), new animals without (given ids 1, 2, 3, … in
 * order), json-server's `{"pets": […]}` (other collections ignored), or the content of a
 * data file, `{"format":1,"nextId":N,"pets":[…]}`. A test
 * catalogue lives in memory, so a data file's `nextId` is checked but not kept: animals
 * created later take the ids after the highest seeded one.
 */
export type Seed =
  | readonly Pet[]
  | readonly NewPetInput[]
  | { readonly pets: readonly Pet[] | readonly NewPetInput[] }
  | v.InferInput<typeof PetFileJson>;

const invalid = (source: string, path: string, message: string) =>
  new AnimalStoreError('validation_failed', `${source} is not valid: ${path} ${message}.`, { details: [{ path, message }] });

/**
 * Validates seed data with the service's own schemas and returns the animals in id order.
 * Throws a `validation_failed` AnimalStoreError naming the first problem and where it is.
 *
 * @param seed The seed data, of any shape `Seed` allows (checked, not trusted).
 * @param source What to call the data in messages: a file name, say.
 */
export const toSeedPets = (seed: unknown, source = 'The seed'): Pet[] => {
  if (!Array.isArray(seed)) {
    if (typeof seed !== 'object' || seed === null) {
      throw invalid(source, 'seed', `must be ${SHAPES}`);
    }
    // json-server's db.json: {"pets": […]} beside other collections, with no "format".
    if (!('format' in seed) && 'pets' in seed && Array.isArray(seed.pets)) return toSeedPets(seed.pets, `${source} ("pets")`);
    if (!('format' in seed)) throw invalid(source, 'seed', `must be ${SHAPES}; it has neither "pets" nor "format"`);
    const checked = checkPetFile(seed);
    if ('problem' in checked) throw invalid(source, checked.problem.path, checked.problem.message);
    return checked.data.pets.map((pet) => ({ ...pet }));
  }
  const withIds = seed.filter((entry) => typeof entry === 'object' && entry !== null && 'id' in entry).length;
  if (withIds !== 0 && withIds !== seed.length) {
    throw invalid(source, 'seed', 'must give every animal an id, or none (then ids are 1, 2, 3, … in order)');
  }
  return seed.map((entry: unknown, position): Pet => {
    const where = { rootName: `[${position}]` };
    if (withIds === 0) {
      const pet = validate(NewPet, entry, { what: `${source} at [${position}]`, knownKeys: NEW_PET_FIELDS, ...where });
      return { id: position + 1, ...pet };
    }
    // As in a create, a missing status is `available` (json-server files often have none).
    const withStatus = typeof entry === 'object' && entry !== null && !('status' in entry) ? { ...entry, status: 'available' } : entry;
    const pet = validate(Pet, withStatus, { what: `${source} at [${position}]`, knownKeys: Pet.entries, ...where });
    const previous = seed[position - 1] as Pet | undefined;
    if (previous && pet.id <= previous.id) {
      throw invalid(source, `[${position}].id`, `is ${pet.id}, not above the id ${previous.id} before it; ids must ascend`);
    }
    return { ...pet };
  });
};
