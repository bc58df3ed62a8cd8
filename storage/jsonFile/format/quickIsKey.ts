/** @module A quick first check of stored Idempotency-Keys, for opening a file of a hundred thousand of them. */

import { hasKeyCount } from './hasKeyCount.js';
import { type IdempotencyKeyInFile, WRITTEN_DATE } from './PetFileData.js';

const SCOPE = /^[0-9a-f]{1,64}$/;
const KEY = /^[\x20-\x7e]{1,255}$/;
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
    KEY.test(key) &&
    typeof fingerprint === 'string' &&
    FINGERPRINT.test(fingerprint) &&
    Number.isSafeInteger(petId) &&
    (petId as number) >= 1 &&
    isWrittenDate(createdAt) &&
    isWrittenDate(expiresAt) &&
    hasKeyCount(value, 6)
  );
};
