/** @module Test helper: a stored key as an `IdempotencyKeyInFile` object, the reference `keyJson` and the journal's lines are checked against. */
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import { type IdempotencyKeyInFile, timeToFile } from '../../../storage/jsonFile/format/PetFileData.js';

/** A key as the file holds it, from the storage's: its times as the file writes them. */
export const keyToFile = ({ scope, key, fingerprint, petId, createdAt, expiresAt }: StoredIdempotencyKey): IdempotencyKeyInFile => ({
  scope,
  key,
  fingerprint,
  petId,
  createdAt: timeToFile(createdAt, 0),
  expiresAt: timeToFile(expiresAt, 1),
});
