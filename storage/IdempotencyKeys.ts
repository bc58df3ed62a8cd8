/** @module The Idempotency-Keys a storage keeps in memory: found by scope and key, forgotten once expired. */
import type { IdempotencyKey, StoredIdempotencyKey } from '../core/PetStorage.js';

/**
 * Live Idempotency-Keys by scope and key. Keys are added in the order requests arrive, and
 * that is their order of expiry too (every key lives as long), so forgetting expired keys
 * only ever looks at the oldest: a create costs no more at a million keys than at ten.
 */
export class IdempotencyKeys {
  readonly #keys = new Map<string, StoredIdempotencyKey>();

  constructor(keys: Iterable<StoredIdempotencyKey> = []) {
    for (const key of keys) this.add(key);
  }

  /** The live key with the same scope and key as `key`, or `undefined`; forgets keys expired by its arrival. */
  find(key: IdempotencyKey): StoredIdempotencyKey | undefined {
    this.forgetExpired(key.createdAt);
    const stored = this.#keys.get(idOf(key));
    return stored && stored.expiresAt > key.createdAt ? stored : undefined;
  }

  /** Keeps a key (replacing an expired one with the same scope and key). */
  add(stored: StoredIdempotencyKey): void {
    const id = idOf(stored);
    this.#keys.delete(id);
    this.#keys.set(id, stored);
  }

  /** Forgets keys that expired at or before `now`, oldest first, stopping at the first live one. */
  forgetExpired(now: number): void {
    for (const [id, stored] of this.#keys) {
      if (stored.expiresAt > now) return;
      this.#keys.delete(id);
    }
  }

  /** The keys kept, oldest first. */
  values(): IterableIterator<StoredIdempotencyKey> {
    return this.#keys.values();
  }
}

const idOf = ({ scope, key }: IdempotencyKey): string => `${scope}\u0000${key}`;
