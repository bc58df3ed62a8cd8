/** @module The storage port: what the core needs from any place that keeps animals. */
import type { MaybePromise } from './MaybePromise.js';
import type { NewPet } from './schemas/NewPet.js';
import type { Pet } from './schemas/Pet.js';
import type { PetStatus } from './schemas/PetStatus.js';
import type { SyncStorage } from './sync/SyncStorage.js';

/**
 * Which slice of the catalogue to list: the next `limit` animals, in arrival order, after
 * the animal with id `after`.
 */
export interface PetPageRequest {
  /**
   * List the animals that arrived after the animal with this id (0 for the first page). For
   * a catalogue that never synced, arrival order is ascending id order, so this is "ids
   * greater than `after`", and so it is for an id the catalogue does not hold.
   */
  after: number;
  /** The most animals to return. */
  limit: number;
  /** Only animals with this status, when given. */
  status?: PetStatus | undefined;
}

/**
 * How much of the payload's SHA-256 a key's `fingerprint` holds: 8 bytes, as 11 base64url
 * characters. A fingerprint only tells a retry from a different request with the same key
 * (which only the key's own caller can send), so a chance of 2^-64 that two payloads read
 * the same is plenty; a storage that keeps keys in memory keeps 8 bytes a key, not 24.
 */
export const FINGERPRINT_BYTES = 8;

/** How long a fingerprint an earlier version made is: 24 bytes of the digest, 32 base64url characters. */
export const OLDER_FINGERPRINT_LENGTH = 32;

/**
 * An Idempotency-Key as the service hands it to a storage, to keep with the animal it creates
 * (draft-ietf-httpapi-idempotency-key-header).
 */
export interface IdempotencyKey {
  /** Whose key it is: the fingerprint of the API key that sent it, so callers never share keys. */
  scope: string;
  /** The key as the client sent it. */
  key: string;
  /** A digest of the request's payload, to tell a retry from a different request under the same key (see `FINGERPRINT_BYTES`). */
  fingerprint: string;
  /** When the request arrived, in milliseconds since the epoch; stored keys expired by then count as absent. */
  createdAt: number;
  /** When the key may be forgotten, in milliseconds since the epoch. */
  expiresAt: number;
}

/** An Idempotency-Key as a storage keeps it: with the id of the animal it created. */
export interface StoredIdempotencyKey extends IdempotencyKey {
  petId: number;
}

/** What `createIdempotent` did: created the animal, or found the key already stored. */
export interface IdempotentCreate {
  /** The animal the key stands for: the new one, or the one created the first time. */
  pet: Pet;
  /** The key as stored; its `fingerprint` is the first request's, which may differ from this one's. */
  stored: StoredIdempotencyKey;
  /** True when the key was stored already, so nothing was created. */
  replayed: boolean;
}

/**
 * A page of animals as JSON text, made by the storage itself (a database can build it for
 * less than the service spends parsing rows into objects and serialising them again).
 */
export interface PetPageText {
  /** The animals, exactly as `JSON.stringify` writes the array of them: keys `id, name, categoryId, status`. */
  text: string;
  /** When an animal follows the page: the id of the page's last animal, the `after` of the next page. */
  nextAfter?: number | undefined;
}

/** Whether a storage can take writes now. */
export type StorageHealth = { ok: true } | { ok: false; reason: string };

/**
 * Keeps the animals. Implementations must list in arrival order (the order animals were
 * stored in this catalogue: ascending id order while it never syncs), in time proportional
 * to `limit` (not to the catalogue), and must resolve `create` only once the animal is as
 * durable as the storage promises. Animals must become visible in arrival order: once an
 * animal is visible, no animal that arrived before it appears later. A miss is `undefined`, not
 * an exception. Returned animals are frozen: callers may share them but never change them.
 * A write that cannot be made durable rejects with an `AnimalStoreError` coded
 * `storage_unavailable`, and nothing of it becomes visible.
 */
export interface PetStorage {
  /** Stores a validated NewPet, assigning the next id; resolves with the stored animal. */
  create(pet: NewPet): Promise<Pet>;
  /**
   * Stores a validated NewPet together with its Idempotency-Key, in the same durable write:
   * no crash can keep one without the other. When a live key with the same `scope` and
   * `key` is stored already, creates nothing and answers with that key and its animal.
   */
  createIdempotent(pet: NewPet, key: IdempotencyKey): Promise<IdempotentCreate>;
  /**
   * The animal with this id, or `undefined`. A storage holding its animals in memory may
   * answer at once, without a promise, so the service can answer in the same turn.
   */
  get(id: number): MaybePromise<Pet | undefined>;
  /**
   * Up to `limit` animals that arrived after the animal `after`, in arrival order, optionally
   * of one status: a fresh array the caller may change. Like `get`, it may answer at once.
   */
  list(page: PetPageRequest): MaybePromise<Pet[]>;
  /**
   * The page `list` would give, as its JSON text, and where the next page starts.
   * Optional: when present, list routes answer with this text as is, so it must be byte for
   * byte what the service would write for the animals `list` hands over.
   */
  listText?(page: PetPageRequest): Promise<PetPageText>;
  /**
   * Whether writes can be made durable now (a disk that refuses writes, a database that is
   * down, answer `ok: false` with a reason fit for an operator). Optional: a storage
   * without it is taken to be healthy.
   */
  checkHealth?(): Promise<StorageHealth>;
  /**
   * Sync with a hub or kiosks (see `SyncStorage`). Optional: a storage without it cannot be
   * a hub or a kiosk, and its sync endpoints answer 404.
   */
  sync?: SyncStorage;
  /** Finishes pending writes and releases what the storage holds (files, locks, pools). */
  close(): Promise<void>;
}
