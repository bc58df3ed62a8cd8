/**
 * @module Quick first checks of stored animals and Idempotency-Keys, for opening a file of a
 * million animals and a hundred thousand keys: each says true only for what the schema
 * accepts, and hands the rare rest to valibot.
 */
import { BIDI_CONTROL, CONTROL, LONE_SURROGATE, NAME_MAX_LENGTH, VISIBLE } from '../../../core/schemas/NewPet.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { PET_STATUSES } from '../../../core/schemas/PetStatus.js';
import { type IdempotencyKeyInFile, WRITTEN_DATE } from './PetFileData.js';

/**
 * Whether `value` (an object JSON.parse made) has exactly `count` enumerable keys.
 * `Object.keys` would make an array per object: at a million animals, a million arrays of
 * garbage during a start. Keys a polluted prototype adds are counted too, which only makes a
 * sound object look odd, and the callers then ask valibot.
 */
const hasKeyCount = (value: object, count: number): boolean => {
  let keys = 0;
  for (const _key in value) if (++keys > count) return false;
  return keys === count;
};

const STATUSES: ReadonlySet<unknown> = new Set(PET_STATUSES);
/** A name of printable ASCII with a character that shows: what most names are, told by one cheap regex. */
const PLAIN_NAME = /^ *[\x21-\x7e][\x20-\x7e]*$/;

const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;

/**
 * Whether `name` is a name the schema accepts, for one of at most NAME_MAX_LENGTH UTF-16
 * units: printable ASCII with a visible character at once, else the schema's own rules but
 * its count of code points (a name that short has no more). A character that shows is not
 * white space, so the schema's `\S` rule needs no test of its own.
 */
const isShortName = (name: string): boolean =>
  PLAIN_NAME.test(name) || (!CONTROL.test(name) && !LONE_SURROGATE.test(name) && !BIDI_CONTROL.test(name) && VISIBLE.test(name));

/**
 * True only for animals the `Pet` schema accepts; false for every animal it rejects and for
 * a few rare ones it accepts (a name longer than 200 UTF-16 units but not 200 code points),
 * which callers then hand to valibot. So this never decides alone that an animal is bad,
 * and never lets a bad one through: a property test holds it to `v.is(Pet, …)`.
 *
 * Why not `v.is(Pet, …)` alone: at a million animals its pipes (counting a name's code
 * points) take most of a second, about ten times this.
 */
export const quickIsPet = (value: unknown): value is Pet => {
  if (typeof value !== 'object' || value === null) return false;
  const { id, name, categoryId, status } = value as Record<string, unknown>;
  return (
    isId(id) &&
    isId(categoryId) &&
    typeof name === 'string' &&
    name.length >= 1 &&
    name.length <= NAME_MAX_LENGTH &&
    isShortName(name) &&
    STATUSES.has(status) &&
    hasKeyCount(value, 4)
  );
};

const SCOPE = /^[0-9a-f]{1,64}$/;
const KEY_TEXT = /^[\x20-\x7e]{1,255}$/;
const FINGERPRINT = /^[A-Za-z0-9_-]{1,128}$/;

/** The last scope found sound: a file's keys come from a few API keys, so most are the one before. */
let soundScope: string | undefined;

const isScopeText = (value: unknown): boolean => {
  if (value === soundScope) return true;
  if (typeof value !== 'string' || !SCOPE.test(value)) return false;
  soundScope = value;
  return true;
};

const isWrittenDate = (value: unknown): boolean => typeof value === 'string' && WRITTEN_DATE.test(value);

/**
 * True only for keys the `IdempotencyKeyInFile` schema accepts; false for every key it
 * rejects and for some it accepts (dates written another way than the server writes them),
 * which callers then hand to valibot. So this never decides alone that a key is bad, and
 * never lets a bad one through.
 *
 * Why not valibot alone: its ISO timestamp check made 100,000 keys take seconds to open,
 * about ten times this.
 */
export const quickIsKey = (value: unknown): value is IdempotencyKeyInFile => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { scope, key, fingerprint, petId, createdAt, expiresAt } = value as Record<string, unknown>;
  return (
    isScopeText(scope) &&
    typeof key === 'string' &&
    KEY_TEXT.test(key) &&
    typeof fingerprint === 'string' &&
    FINGERPRINT.test(fingerprint) &&
    Number.isSafeInteger(petId) &&
    (petId as number) >= 1 &&
    isWrittenDate(createdAt) &&
    isWrittenDate(expiresAt) &&
    hasKeyCount(value, 6)
  );
};
