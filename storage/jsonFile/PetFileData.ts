/** @module The versioned format of the JSON data file: what is on disk, and its schema. */
import * as v from 'valibot';
import { Pet, PetId } from '../../core/schemas/Pet.js';

/** The format version this code writes and reads. A later version migrates from it. */
export const PET_FILE_FORMAT = 1;

/**
 * The fields of the file besides its animals, shared by the full schema and the fast check
 * `checkPetFile` uses on open, so the two cannot disagree on what a header is.
 */
export const PET_FILE_HEADER = {
  format: v.literal(PET_FILE_FORMAT, `must be ${PET_FILE_FORMAT}, the only format this version of animal-store reads`),
  nextId: PetId,
};

/** A problem with a file, where it is (`pets[3].id`) and what is wrong there. */
export interface PetFileProblem {
  path: string;
  message: string;
}

/** What is wrong with the id at `position` given the one before it, or `undefined`. */
export const idProblemAt = (pets: readonly { readonly id: number }[], position: number): PetFileProblem | undefined => {
  if (position === 0) return undefined;
  const id = pets[position]!.id;
  const previous = pets[position - 1]!.id;
  if (id === previous) return { path: `pets[${position}].id`, message: `repeats the id ${id} of pets[${position - 1}]` };
  if (id < previous) {
    return { path: `pets[${position}].id`, message: `is ${id}, below the id ${previous} of pets[${position - 1}]; ids must ascend` };
  }
  return undefined;
};

/** What is wrong with `nextId` given the animals (it must be above every id), or `undefined`. */
export const nextIdProblem = (pets: readonly { readonly id: number }[], nextId: number): PetFileProblem | undefined => {
  const lastId = pets.at(-1)?.id ?? 0;
  return nextId > lastId ? undefined : { path: 'nextId', message: `is ${nextId} but must be above the highest id, ${lastId}` };
};

/**
 * Validates a whole data file: `{"format":1,"nextId":N,"pets":[Pet, …]}`, animals in
 * strictly ascending id order (so no id twice), `nextId` above every id. The next id is
 * stored rather than derived so that ids are never reused, even when animals are removed
 * from the file by hand.
 */
export const PetFile = v.pipe(
  v.strictObject({ ...PET_FILE_HEADER, pets: v.array(Pet, 'must be an array of animals') }, 'must be a JSON object'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { pets, nextId } = dataset.value;
    let problem: PetFileProblem | undefined;
    for (let position = 1; position < pets.length && !problem; position++) problem = idProblemAt(pets, position);
    problem ??= nextIdProblem(pets, nextId);
    if (problem) addIssue({ message: `${problem.path} ${problem.message}` });
  }),
);

/** The content of a data file. */
export type PetFileData = v.InferOutput<typeof PetFile>;
