/** @module Checks a parsed data file quickly, and names its first problem when it has one. */
import * as v from 'valibot';
import { Pet } from '../../../core/schemas/Pet.js';
import {
  IdempotencyKeyInFile,
  idProblemAt,
  keyFromFile,
  nextIdProblem,
  PET_FILE_FORMAT,
  PET_FILE_HEADER,
  type PetFileData,
  type PetFileProblem,
} from './PetFileData.js';
import { quickIsKey, quickIsPet } from './quickChecks.js';
import { arrivalIdProblem, readSyncState } from './SyncStateInFile.js';

/** The file without its animals: checked first, so a wrong top level is named as such. */
const PetFileHeader = v.strictObject(
  {
    ...PET_FILE_HEADER,
    pets: v.array(v.unknown(), 'must be an array of animals'),
    idempotencyKeys: v.optional(v.array(v.unknown(), 'must be an array of Idempotency-Keys')),
    sync: v.optional(v.unknown()),
  },
  'must be a JSON object with "format", "nextId" and "pets"',
);

/** How many fields an animal has; valibot's strictObject cannot see a stray `__proto__` key. */
const PET_FIELD_COUNT = Object.keys(Pet.entries).length;

/** Where an issue is, written as in the file: `pets[12].categoryId`. */
const pathOf = (prefix: string, issue: v.BaseIssue<unknown>): string =>
  (issue.path ?? []).reduce(
    (path: string, item) => (typeof item.key === 'number' ? `${path}[${item.key}]` : `${path}${path ? '.' : ''}${String(item.key)}`),
    prefix,
  );

/** One problem for an issue: valibot's own words for missing and unknown fields speak of keys, not animals. */
const problemOfIssue = (prefix: string, issue: v.BaseIssue<unknown>): PetFileProblem => {
  const path = pathOf(prefix, issue) || 'the file';
  if (issue.kind === 'schema' && issue.type.endsWith('object') && issue.path?.length) {
    if (issue.expected === 'never') return { path, message: 'is not a known field' };
    if (issue.received === 'undefined') return { path, message: 'is missing' };
  }
  return { path, message: issue.message };
};

const isPlainObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names a JSON value's kind, for saying what was found instead of an object. */
const kindOf = (value: unknown): string => (Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`);

/** The first problem of one animal, which `v.is` has already found invalid or odd. */
const petProblem = (pet: unknown, position: number): PetFileProblem => {
  if (!isPlainObject(pet)) {
    return { path: `pets[${position}]`, message: `must be an object with id, name, categoryId and status, not ${kindOf(pet)}` };
  }
  const result = v.safeParse(Pet, pet, { abortEarly: true });
  if (!result.success) return problemOfIssue(`pets[${position}]`, result.issues[0]);
  const stray = Object.keys(pet as object).find((key) => !Object.hasOwn(Pet.entries, key)) ?? 'an unknown key';
  return { path: `pets[${position}].${stray}`, message: 'is not a known field' };
};

/** Whether `pet` (an item JSON.parse made) is an animal the file may hold: at once when `quickIsPet` says so, else as valibot says. */
export const isStoredPet = (pet: unknown): pet is Pet => quickIsPet(pet) || (v.is(Pet, pet) && Object.keys(pet).length === PET_FIELD_COUNT);

/**
 * The first problem of the animals, in file order, or else the highest id among them (0 for
 * none). `seen`: the ids so far of a file that syncs, which keeps animals in arrival order,
 * its ids distinct, not ascending.
 *
 * A function of its own, with nothing after its loop but the answer: V8 compiles the loop
 * while a million animals run through it (on-stack replacement), before any code after it
 * ever ran. Inside `checkPetFile`, that code then lacked the feedback it needed, and each
 * journal line checked after a start entered the compiled loop and left it there again
 * (`--trace-deopt`: 1,765 times in one start after a crash, about 50 ms of its replay).
 */
const petsProblem = (pets: unknown[], seen: Set<number> | undefined): PetFileProblem | number => {
  let highest = 0;
  for (let position = 0; position < pets.length; position++) {
    const pet = pets[position];
    if (!isStoredPet(pet)) return petProblem(pet, position);
    const problem = seen ? arrivalIdProblem(pets as Pet[], position, seen) : idProblemAt(pets as Pet[], position);
    if (problem) return problem;
    highest = Math.max(highest, (pet as Pet).id);
  }
  return highest;
};

/** The first problem of the keys of a file of `format`, or `undefined`. */
export const keysProblem = (format: 1 | 2, keys: unknown[] | undefined): PetFileProblem | undefined => {
  if (format === 1)
    return keys === undefined ? undefined : { path: 'idempotencyKeys', message: 'is not a field of format 1 (write format 2)' };
  if (keys === undefined) return { path: 'idempotencyKeys', message: 'is missing (format 2 lists the Idempotency-Keys, [] for none)' };
  for (const [position, key] of keys.entries()) {
    if (quickIsKey(key)) continue;
    const result = v.safeParse(IdempotencyKeyInFile, key, { abortEarly: true });
    if (!result.success) return problemOfIssue(`idempotencyKeys[${position}]`, result.issues[0]);
  }
  return undefined;
};

/**
 * Returns the file's content when it is a valid data file, else its first problem in file
 * order, such as `{path: 'pets[12].categoryId', message: 'must be a positive integer (1 or more)'}`.
 *
 * Format 1 is read as format 2 without keys. Same rules as the `PetFileJson` schema, in a faster order: the header once, then each animal
 * and its id against the one before. An animal passes if `quickIsPet` (sound, and far cheaper than
 * valibot) or else `v.is(Pet)` accepts it; only the first that fails is parsed again
 * with `v.safeParse`, for the message. At a million animals this keeps opening quick.
 */
export const checkPetFile = (value: unknown): { data: PetFileData } | { problem: PetFileProblem } => {
  // valibot takes an array for an object (and then misses its keys): say what it is instead.
  if (!isPlainObject(value)) {
    return { problem: { path: 'the file', message: `must be a JSON object with "format", "nextId" and "pets", not ${kindOf(value)}` } };
  }
  // valibot copies every array it checks: the header is checked with the lists left empty
  // (a million animals copied for nothing was a tenth of a second of a start), which are then taken as they are.
  const { pets: givenPets, idempotencyKeys: givenKeys } = value as Record<string, unknown>;
  const shallow = { ...value, ...(Array.isArray(givenPets) && { pets: [] }), ...(Array.isArray(givenKeys) && { idempotencyKeys: [] }) };
  const header = v.safeParse(PetFileHeader, shallow, { abortEarly: true });
  if (!header.success) return { problem: problemOfIssue('', header.issues[0]) };
  const { format, nextId } = header.output;
  const pets = givenPets as unknown[];
  const idempotencyKeys = givenKeys as unknown[] | undefined;
  const keyProblem = keysProblem(format, idempotencyKeys);
  if (keyProblem) return { problem: keyProblem };
  // A file that syncs keeps its animals in arrival order: distinct ids, not ascending ones.
  const sync = header.output.sync === undefined ? undefined : readSyncState(header.output.sync);
  if (sync && 'problem' in sync) return { problem: sync.problem };
  const highest = petsProblem(pets, sync ? new Set<number>() : undefined);
  if (typeof highest !== 'number') return { problem: highest };
  const checked = pets as PetFileData['pets'];
  const problem = nextIdProblem([{ id: highest }], nextId);
  if (problem) return { problem };
  const keys = ((idempotencyKeys ?? []) as IdempotencyKeyInFile[]).map(keyFromFile);
  const data: PetFileData = { format: PET_FILE_FORMAT, nextId, pets: checked, idempotencyKeys: keys };
  if (sync) data.sync = sync.sync;
  return { data };
};
