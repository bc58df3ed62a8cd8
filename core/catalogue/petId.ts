/** @module Pet ids as callers give them: a number in process, a path segment over HTTP. One check, one message. */
import { AnimalStoreError, quote } from '../AnimalStoreError.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The one error for a pet id that is not an integer, however it arrived. */
const notAnInteger = (shown: string) =>
  new AnimalStoreError('validation_failed', `The pet id ${shown} is not an integer; write it in decimal digits, such as 42.`, {
    details: [{ path: 'petId', message: 'must be an int64 integer in decimal digits' }],
  });

/** Throws the pet-id error unless `id` is an integer JavaScript holds exactly. */
export const checkPetId = (id: number): void => {
  if (!Number.isSafeInteger(id)) throw notAnInteger(String(id));
};

const SHORT_ID = /^-?[0-9]{1,15}$/;

/**
 * Reads the petId of a path: decimal digits with an optional leading minus, within int64,
 * else the pet-id error. An int64 JavaScript cannot hold exactly answers `undefined`, which
 * names no animal: rounding it could land on another animal's id.
 */
export const parsePetId = (segment: string): number | undefined => {
  // Up to 15 digits a number is exact as a double: no need for BigInt (most ids, every request).
  if (SHORT_ID.test(segment)) return Number(segment);
  if (!/^-?[0-9]{1,20}$/.test(segment)) throw notAnInteger(quote(segment));
  const id = BigInt(segment);
  if (id < INT64_MIN || id > INT64_MAX) throw notAnInteger(quote(segment));
  const asNumber = Number(id);
  return Number.isSafeInteger(asNumber) ? asNumber : undefined;
};
