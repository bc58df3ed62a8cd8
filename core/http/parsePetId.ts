/** @module Reads the petId path segment. */
import { AnimalStoreError, quote } from '../AnimalStoreError.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const badId = (segment: string) =>
  new AnimalStoreError(
    'validation_failed',
    `The pet id ${quote(segment)} is not an integer; write it in decimal digits, such as /pets/42.`,
    {
      details: [{ path: 'petId', message: 'must be an int64 integer in decimal digits' }],
    },
  );

/**
 * Reads a petId: decimal digits with an optional leading minus, within int64, else a 400.
 * An int64 JavaScript cannot hold exactly answers `undefined`, which the caller turns into
 * a 404: it names no animal, and rounding it could land on another animal's id.
 */
export const parsePetId = (segment: string): number | undefined => {
  if (!/^-?[0-9]{1,20}$/.test(segment)) throw badId(segment);
  const id = BigInt(segment);
  if (id < INT64_MIN || id > INT64_MAX) throw badId(segment);
  const asNumber = Number(id);
  return Number.isSafeInteger(asNumber) ? asNumber : undefined;
};
