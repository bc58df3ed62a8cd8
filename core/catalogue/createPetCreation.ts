/** @module Creating animals: validation, and Idempotency-Keys that make a retried create safe. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { fromBase64Url, toBase64Url } from '../base64url.js';
import { type Sha256, sha256Text } from '../digest.js';
import { type MaybePromise, whenReady } from '../MaybePromise.js';
import { FINGERPRINT_BYTES, OLDER_FINGERPRINT_LENGTH, type PetStorage } from '../PetStorage.js';
import { NEW_PET_FIELDS, NewPet } from '../schemas/NewPet.js';
import type { Pet } from '../schemas/Pet.js';
import { validate } from '../validate.js';

/** An Idempotency-Key as a request carries it, and whose it is. */
export interface RequestIdempotencyKey {
  /** The key the client sent. */
  key: string;
  /** Whose key it is: the fingerprint of the caller's API key, so callers never share keys. */
  scope: string;
}

/** What a create did: stored a new animal, or found the request's key and answered with its animal. */
export interface PetCreated {
  pet: Pet;
  /** True when the key was used before with the same payload, so nothing new was stored. */
  replayed: boolean;
}

/** Creates animals. */
export interface PetCreation {
  /** Validates `input` as a NewPet and stores it; with `key`, at most once per key and payload. */
  create(input: unknown, key?: RequestIdempotencyKey): Promise<PetCreated>;
}

/** How long an Idempotency-Key is kept by default: a day, as the draft suggests. */
export const DEFAULT_IDEMPOTENCY_KEY_LIFETIME_SECONDS = 24 * 60 * 60;

/** What creation is built from. */
export interface PetCreationOptions {
  storage: PetStorage;
  sha256: Sha256;
  /** Wall-clock time in milliseconds since the epoch. */
  now: () => number;
  /** How long a key is kept after its first request, in seconds. */
  keyLifetimeSeconds: number;
}

/**
 * A digest of the request's meaning, not its bytes: the same animal sent twice, however
 * spelled, is the same payload. At once when the hash answers at once (a runtime's native
 * one), since every keyed create makes one.
 */
const fingerprintOf = (sha256: Sha256, { name, categoryId, status }: NewPet): MaybePromise<string> =>
  whenReady(sha256Text(sha256, JSON.stringify([name, categoryId, status])), (digest) => toBase64Url(digest, FINGERPRINT_BYTES));

/**
 * Whether a key's stored fingerprint is `fingerprint`'s payload: the same text, or one an
 * earlier version made (32 characters, in a data file or a database it wrote) whose first
 * 8 bytes are these, so a retry across an upgrade still replays.
 */
const isFingerprintOf = (stored: string, fingerprint: string): boolean => {
  if (stored === fingerprint) return true;
  const older = stored.length === OLDER_FINGERPRINT_LENGTH ? fromBase64Url(stored) : undefined;
  return older !== undefined && toBase64Url(older, FINGERPRINT_BYTES) === fingerprint;
};

/**
 * Creates the creation step the catalogue and the HTTP route share. With a key, a create
 * stores the animal and its key in one durable write (the storage's `createIdempotent`); a
 * retry with the same key and payload answers with the first animal, a different payload is
 * a 422 `idempotency_key_reused`, and a request arriving while the first with that key is
 * still in flight in this process is a 409 `idempotency_conflict`.
 */
export const createPetCreation = ({ storage, sha256, now, keyLifetimeSeconds }: PetCreationOptions): PetCreation => {
  if (!(keyLifetimeSeconds > 0))
    throw new TypeError(`An Idempotency-Key's lifetime must be more than 0 seconds, not ${keyLifetimeSeconds}.`);
  // By scope, then key: the key's text is hashed once for this and the storage's lookups
  // alike, where a joined string would be built and hashed anew for each.
  const inFlight = new Map<string, Set<string>>();

  return {
    async create(input, key) {
      const newPet = validate(NewPet, input, { what: 'The animal', rootName: 'body', knownKeys: NEW_PET_FIELDS });
      if (key === undefined) return { pet: await storage.create(newPet), replayed: false };
      let inScope = inFlight.get(key.scope);
      if (inScope === undefined) {
        inScope = new Set();
        inFlight.set(key.scope, inScope);
      }
      if (inScope.has(key.key)) {
        throw new AnimalStoreError(
          'idempotency_conflict',
          'A request with this Idempotency-Key is still being processed; wait for its answer, or retry in a moment.',
          { headers: { 'retry-after': '1' } },
        );
      }
      inScope.add(key.key);
      try {
        const digest = fingerprintOf(sha256, newPet);
        const fingerprint = typeof digest === 'string' ? digest : await digest;
        const createdAt = now();
        const result = await storage.createIdempotent(newPet, {
          scope: key.scope,
          key: key.key,
          fingerprint,
          createdAt,
          expiresAt: createdAt + keyLifetimeSeconds * 1000,
        });
        if (result.replayed && !isFingerprintOf(result.stored.fingerprint, fingerprint)) {
          throw new AnimalStoreError(
            'idempotency_key_reused',
            'This Idempotency-Key was used before for a different animal; use a new key for a new request.',
          );
        }
        return { pet: result.pet, replayed: result.replayed };
      } finally {
        inScope.delete(key.key);
        if (inScope.size === 0) inFlight.delete(key.scope);
      }
    },
  };
};
