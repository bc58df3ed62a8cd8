/** @module An animal as the service returns and stores it. */
import * as v from 'valibot';
import { CategoryId, PetName } from './NewPet.js';
import { PetStatus } from './PetStatus.js';

/** Validates an animal identifier: assigned by the service, 1, 2, 3, … */
export const PetId = v.pipe(
  v.number('must be an integer'),
  v.integer('must be an integer'),
  v.minValue(1, 'must be 1 or more'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must be at most 9007199254740991'),
);

/** Validates an animal: a NewPet plus its id, with `status` always present. */
export const Pet = v.strictObject({
  id: PetId,
  name: PetName,
  categoryId: CategoryId,
  status: PetStatus,
});

/** An animal. */
export type Pet = v.InferOutput<typeof Pet>;

/** A list of animals, in arrival order. */
export const Pets = v.array(Pet);
