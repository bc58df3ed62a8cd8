/** @module The versioned format of the JSON data file: what is on disk, and its schema. */
import * as v from 'valibot';
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import { Pet, PetId } from '../../../core/schemas/Pet.js';
import type { SyncState } from '../../sync/syncState.js';

/**
 * The format version this code writes. It reads format 1 too (the first release's, without
 * Idempotency-Keys) and upgrades it, losing nothing, at the first write.
 */
export const PET_FILE_FORMAT = 2;

/**
 * The fields of the file besides its animals and keys, shared by the full schema and the fast
 * check `checkPetFile` uses on open, so the two cannot disagree on what a header is.
 */
export const PET_FILE_HEADER = {
  format: v.picklist([1, 2], 'must be 1 or 2, the formats this version of animal-store reads'),
  nextId: PetId,
};

/** An Idempotency-Key as the file keeps it: dates as ISO 8601 text, so a person can read them. */
export const IdempotencyKeyInFile = v.strictObject({
  scope: v.pipe(v.string(), v.regex(/^[0-9a-f]{1,64}$/, 'must be the hex fingerprint of an API key')),
  key: v.pipe(v.string(), v.regex(/^[\x20-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')),
  fingerprint: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a payload digest in base64url')),
  petId: PetId,
  createdAt: v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date and time')),
  expiresAt: v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date and time')),
});

/** A key as the file writes it. */
export type IdempotencyKeyInFile = v.InferInput<typeof IdempotencyKeyInFile>;

/** A date as the server writes it (`toISOString`): a narrower form of what `isoTimestamp` accepts. */
export const WRITTEN_DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:[12]\d|0[1-9]|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** The digit at `at` of `text`. */
const digit = (text: string, at: number): number => text.charCodeAt(at) - 48;

/**
 * Milliseconds since the epoch of a date in the file. One the server wrote (`toISOString`)
 * is read digit by digit, about ten times as fast as `Date.parse`, which at 100,000 keys
 * (two dates each) took a quarter of a second of a start; any other ISO form is `Date.parse`'s.
 */
export const timeFromFile = (text: string): number => {
  if (!WRITTEN_DATE.test(text)) return Date.parse(text);
  const year = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3);
  // Date.UTC reads the years 0 to 99 as 1900 to 1999.
  if (year < 100) return Date.parse(text);
  return Date.UTC(
    year,
    digit(text, 5) * 10 + digit(text, 6) - 1,
    digit(text, 8) * 10 + digit(text, 9),
    digit(text, 11) * 10 + digit(text, 12),
    digit(text, 14) * 10 + digit(text, 15),
    digit(text, 17) * 10 + digit(text, 18),
    digit(text, 20) * 100 + digit(text, 21) * 10 + digit(text, 22),
  );
};

/** A key as read from the file, for the storage (fields named one by one: a rest spread made each key a slow object). */
export const keyFromFile = ({ scope, key, fingerprint, petId, createdAt, expiresAt }: IdempotencyKeyInFile): StoredIdempotencyKey => ({
  scope,
  key,
  fingerprint,
  petId,
  createdAt: timeFromFile(createdAt),
  expiresAt: timeFromFile(expiresAt),
});

/** The last second `timeToFile` wrote, as `toISOString` writes it up to its milliseconds: one for creation times, one for expiries. */
const writtenSeconds = [
  { second: Number.NaN, prefix: '' },
  { second: Number.NaN, prefix: '' },
];

/** Three digits of milliseconds. */
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/**
 * A time as the file writes it, exactly `new Date(time).toISOString()`. Keys arrive in time
 * order, so most share their second with the one before: its text is kept and only the
 * milliseconds are added (`toISOString` took about a microsecond, twice a key, at each
 * journal line and each whole write of 100,000 keys). `slot` keeps creation times and
 * expiries apart.
 */
export const timeToFile = (time: number, slot: 0 | 1 = 0): string => {
  // Fractions and times beyond a Date's range (which throw) are toISOString's own.
  if (!Number.isInteger(time) || Math.abs(time) > 8.64e15) return new Date(time).toISOString();
  const second = Math.floor(time / 1000);
  const written = writtenSeconds[slot]!;
  if (written.second !== second) {
    written.second = second;
    written.prefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  return written.prefix + MILLISECONDS[time - second * 1000]!;
};

/** An animal as the file writes it: one line, fields in a fixed order, so files diff and repair well by hand. */
export const petJson = ({ id, name, categoryId, status }: Pet): string =>
  `{"id":${id},"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":${JSON.stringify(status)}}`;

/**
 * A key as the file writes it: exactly `JSON.stringify` of its `IdempotencyKeyInFile` (the
 * tests check it against `test/storage/jsonFile/keyToFile.ts`), written field by
 * field (the generic stringify of a fresh object per key took most of a whole write's
 * encoding at 100,000 keys, and most of a keyed journal line's).
 */
export const keyJson = ({ scope, key, fingerprint, petId, createdAt, expiresAt }: StoredIdempotencyKey): string =>
  `{"scope":${scopeJson(scope)},"key":${JSON.stringify(key)},"fingerprint":${JSON.stringify(fingerprint)},"petId":${JSON.stringify(petId)},"createdAt":"${timeToFile(createdAt, 0)}","expiresAt":"${timeToFile(expiresAt, 1)}"}`;

/** The last scope `scopeJson` wrote, and its JSON: a file's keys share one scope or a few, 64 characters each. */
const writtenScope = { scope: '', json: '""' };

/** A scope's JSON, kept for the next key of the same scope. */
const scopeJson = (scope: string): string => {
  if (scope !== writtenScope.scope) {
    writtenScope.scope = scope;
    writtenScope.json = JSON.stringify(scope);
  }
  return writtenScope.json;
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

const pets = v.array(Pet, 'must be an array of animals');

/**
 * Validates the JSON of a whole data file, of either format, and reads it as the current one:
 * - format 2: `{"format":2,"nextId":N,"pets":[Pet, …],"idempotencyKeys":[key, …]}`;
 * - format 1: `{"format":1,"nextId":N,"pets":[Pet, …]}`, read with no keys.
 * Animals are in strictly ascending id order (so no id twice), `nextId` above every id. The
 * next id is stored rather than derived so that ids are never reused, even when animals are
 * removed from the file by hand.
 */
export const PetFileJson = v.pipe(
  v.variant(
    'format',
    [
      v.strictObject({ format: v.literal(1), nextId: PetId, pets }),
      v.strictObject({ format: v.literal(2), nextId: PetId, pets, idempotencyKeys: v.array(IdempotencyKeyInFile, 'must be an array') }),
    ],
    'must be a JSON object whose format is 1 or 2',
  ),
  // Beyond each field's own rules: ids ascend, and nextId is above them.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { pets, nextId } = dataset.value;
    let problem: PetFileProblem | undefined;
    for (let position = 1; position < pets.length && !problem; position++) problem = idProblemAt(pets, position);
    problem ??= nextIdProblem(pets, nextId);
    if (problem) addIssue({ message: `${problem.path} ${problem.message}` });
  }),
  v.transform(
    ({ nextId, pets, ...rest }): PetFileData => ({
      format: PET_FILE_FORMAT,
      nextId,
      pets,
      idempotencyKeys: 'idempotencyKeys' in rest ? rest.idempotencyKeys.map(keyFromFile) : [],
    }),
  ),
);

/** The content of a data file, as the storage holds it (always the current format). */
export interface PetFileData {
  format: typeof PET_FILE_FORMAT;
  nextId: number;
  pets: Pet[];
  /** Live and expired keys, oldest first; expired ones are dropped at the next write. */
  idempotencyKeys: StoredIdempotencyKey[];
  /** What the catalogue keeps as a hub or a kiosk; when present, `pets` are in arrival order (see SyncStateInFile). */
  sync?: SyncState;
}
