/** @module The request body of createPet. */
import * as v from 'valibot';
import { PetStatus } from './PetStatus.js';

/** The longest name accepted, in Unicode code points (what JSON Schema's maxLength counts). */
export const NAME_MAX_LENGTH = 200;

/**
 * Counts code points, not UTF-16 units, so that a name of 200 emoji is as valid here as it
 * is to any JSON Schema validator reading our OpenAPI document.
 */
const codePointLength = (text: string): number => {
  let length = 0;
  for (const _ of text) length++;
  return length;
};

/** Half of a surrogate pair on its own: text that is not well-formed Unicode. */
export const LONE_SURROGATE = /\p{Cs}/u;
/** C0 and C1 control characters and DEL: a name is one line of text. */
export const CONTROL = /\p{Cc}/u;
/** Bidirectional embeddings, overrides and isolates, which can make a name display as another. */
export const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
/** A character that shows: a letter, digit, punctuation mark or symbol (emoji included). */
export const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * Validates an animal's name: 1 to 200 characters of well-formed Unicode, without control
 * characters or bidi overrides, not only white space and with at least one visible
 * character (so not only zero-width ones); stored as sent.
 */
export const PetName = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.check((name) => codePointLength(name) <= NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters long`),
  v.check((name) => !LONE_SURROGATE.test(name), 'must be well-formed Unicode text (it holds half of a surrogate pair)'),
  v.check((name) => !CONTROL.test(name), 'must not hold control characters such as line breaks or tabs'),
  v.check((name) => !BIDI_CONTROL.test(name), 'must not hold bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)'),
  v.regex(/\S/, 'must not be only white space'),
  v.check((name) => VISIBLE.test(name), 'must hold at least one visible character (a letter, digit, punctuation mark or symbol)'),
  // The custom checks are invisible to JSON Schema; the metadata carries the bound into the
  // generated OpenAPI document, where maxLength counts code points as the check does.
  v.metadata({
    maxLength: NAME_MAX_LENGTH,
    description:
      'Well-formed Unicode without control characters or bidi overrides (U+202A–U+202E, U+2066–U+2069), not only white space, with at least one visible character.',
  }),
);

/**
 * Validates a category identifier: a positive integer that JavaScript holds exactly
 * (1 to 2^53−1). The JSON reader hands over numbers it cannot hold exactly as non-numbers,
 * so they fail here instead of being rounded.
 */
export const CategoryId = v.pipe(
  v.number('must be an integer from 1 to 9007199254740991'),
  v.integer('must be an integer from 1 to 9007199254740991, not a fraction'),
  v.minValue(1, 'must be a positive integer (1 or more)'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must be at most 9007199254740991 (2^53−1)'),
);

/** The fields of a NewPet; exported so callers can tell known fields from unknown ones. */
export const NEW_PET_FIELDS = {
  name: PetName,
  categoryId: CategoryId,
  status: v.optional(PetStatus, 'available'),
};

/** Validates a createPet body: `name` and `categoryId` required, `status` optional, nothing else. */
export const NewPet = v.strictObject(NEW_PET_FIELDS, (issue) =>
  // valibot reports a missing field with the object's message, at the field's path.
  issue.path?.length ? 'is required' : 'must be a JSON object',
);

/** A createPet body as a caller writes it (`status` may be left out). */
export type NewPetInput = v.InferInput<typeof NewPet>;

/** A createPet body after validation (`status` filled in with `available`). */
export type NewPet = v.InferOutput<typeof NewPet>;
