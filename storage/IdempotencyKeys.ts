/** @module The Idempotency-Keys a storage keeps in memory: a queue in arrival order, found by scope and key. */
import type { IdempotencyKey, StoredIdempotencyKey } from '../core/PetStorage.js';
import { DIGEST_BYTES, packDigest, unpackDigest } from './packedDigest.js';

/** The first capacity of the columns; they double as keys arrive. */
const INITIAL_CAPACITY = 1024;

/**
 * A column of strings, filled one by one: V8 keeps an array made so in fast elements, where
 * `new Array(n)` above 100,000 makes a slow dictionary.
 */
const stringColumn = (capacity: number): (string | undefined)[] => {
  const column: (string | undefined)[] = [];
  for (let slot = 0; slot < capacity; slot++) column.push(undefined);
  return column;
};

/**
 * The same text, flat. A key read character by character, or made by joining pieces (as
 * `crypto.randomUUID` does), is a V8 rope of one small object per piece: 490 bytes for a
 * UUID where the flat text takes 66. Reading a character flattens it in place, and the next
 * garbage collection drops the rope; test/bench/measureKeyMemory.ts shows the difference.
 */
const flattened = (text: string): string => {
  text.charCodeAt(0);
  return text;
};

/**
 * Live Idempotency-Keys, oldest first, found by scope and key. Every key lives as long, so
 * arrival order is expiry order: expired keys leave from the front (`sweep`, a bounded
 * number at a time), new ones join at the back.
 *
 * Each key has a sequence number (0, 1, 2, … in arrival order, never reused) and is kept in
 * columns (typed arrays for numbers and payload digests, a scope number instead of the scope's 64 characters),
 * not as an object: a key then costs about what an animal does (see docs/bounds.md), where
 * an object per key cost four times that. A key that replaces an expired one with the same
 * scope and key leaves the old one in the queue, unreachable, until the sweep reaches it.
 */
export class IdempotencyKeys {
  readonly #scopes: string[] = [];
  /** Per scope number, the sequence number of each key's newest entry. */
  readonly #lookup: Map<string, number>[] = [];
  readonly #scopeNumbers = new Map<string, number>();
  #mask = INITIAL_CAPACITY - 1;
  #scopeOf = new Uint32Array(INITIAL_CAPACITY);
  #petId = new Float64Array(INITIAL_CAPACITY);
  #createdAt = new Float64Array(INITIAL_CAPACITY);
  #expiresAt = new Float64Array(INITIAL_CAPACITY);
  #key = stringColumn(INITIAL_CAPACITY);
  /** Each key's payload digest, packed (see packedDigest); those that do not pack are in `#oddFingerprints`. */
  #digests = new Uint8Array(INITIAL_CAPACITY * DIGEST_BYTES);
  /** By sequence number, the fingerprints that are not the service's 32-character digests (files edited by hand, tests). */
  readonly #oddFingerprints = new Map<number, string>();
  #first = 0;
  #end = 0;

  constructor(keys: Iterable<StoredIdempotencyKey> = []) {
    // Keys read from a file arrive as an array: the columns are made their size once, not doubled their way there.
    if (Array.isArray(keys)) while (this.#mask + 1 < keys.length) this.#grow();
    for (const key of keys) this.add(key);
  }

  /** The sequence number of the oldest key kept. */
  get first(): number {
    return this.#first;
  }

  /** The sequence number the next key gets. */
  get end(): number {
    return this.#end;
  }

  /** How many keys are kept (expired ones the sweep has not reached yet included). */
  get size(): number {
    return this.#end - this.#first;
  }

  /** The live key with the same scope and key as `key`, or `undefined` (one expired by `key`'s arrival counts as absent). */
  find(key: IdempotencyKey): StoredIdempotencyKey | undefined {
    const scope = this.#scopeNumbers.get(key.scope);
    const sequence = scope === undefined ? undefined : this.#lookup[scope]!.get(key.key);
    if (sequence === undefined || this.#expiresAt[sequence & this.#mask]! <= key.createdAt) return undefined;
    return this.at(sequence);
  }

  /** Keeps a key at the back of the queue (replacing, for `find`, an expired one with the same scope and key). */
  add(stored: StoredIdempotencyKey): void {
    if (this.size > this.#mask) this.#grow();
    let scope = this.#scopeNumbers.get(stored.scope);
    if (scope === undefined) {
      scope = this.#scopes.push(stored.scope) - 1;
      this.#scopeNumbers.set(stored.scope, scope);
      this.#lookup.push(new Map());
    }
    const sequence = this.#end++;
    const slot = sequence & this.#mask;
    this.#scopeOf[slot] = scope;
    this.#key[slot] = flattened(stored.key);
    if (!packDigest(stored.fingerprint, this.#digests, slot * DIGEST_BYTES)) {
      this.#oddFingerprints.set(sequence, flattened(stored.fingerprint));
    }
    this.#petId[slot] = stored.petId;
    this.#createdAt[slot] = stored.createdAt;
    this.#expiresAt[slot] = stored.expiresAt;
    this.#lookup[scope]!.set(stored.key, sequence);
  }

  /** The key with this sequence number (between `first` and `end`), as a new object. */
  at(sequence: number): StoredIdempotencyKey {
    const slot = sequence & this.#mask;
    return {
      scope: this.#scopes[this.#scopeOf[slot]!]!,
      key: this.#key[slot]!,
      fingerprint:
        (this.#oddFingerprints.size === 0 ? undefined : this.#oddFingerprints.get(sequence)) ??
        unpackDigest(this.#digests, slot * DIGEST_BYTES),
      petId: this.#petId[slot]!,
      createdAt: this.#createdAt[slot]!,
      expiresAt: this.#expiresAt[slot]!,
    };
  }

  /**
   * Forgets up to `atMost` keys expired at or before `now`, oldest first, stopping at the
   * first live one; answers how many it forgot. Bounded, so a caller on a timer never
   * stalls the event loop however many keys expire at once.
   */
  sweep(now: number, atMost: number): number {
    let forgotten = 0;
    while (forgotten < atMost && this.#first < this.#end && this.#expiresAt[this.#first & this.#mask]! <= now) {
      this.#forget(this.#first++);
      forgotten++;
    }
    return forgotten;
  }

  /** Forgets the keys added since the queue's `end` was `end` (a write that failed). */
  truncate(end: number): void {
    while (this.#end > Math.max(end, this.#first)) this.#forget(--this.#end);
  }

  /** The keys kept, oldest first, as new objects. */
  *values(): IterableIterator<StoredIdempotencyKey> {
    for (let sequence = this.#first; sequence < this.#end; sequence++) yield this.at(sequence);
  }

  #forget(sequence: number): void {
    const slot = sequence & this.#mask;
    const lookup = this.#lookup[this.#scopeOf[slot]!]!;
    const key = this.#key[slot]!;
    if (lookup.get(key) === sequence) lookup.delete(key);
    this.#key[slot] = undefined;
    this.#oddFingerprints.delete(sequence);
  }

  /**
   * Doubles the columns, moving each key to its slot under the new mask: run by run (a
   * run ends where either ring wraps, so there are at most three), each column's run in one
   * copy, not key by key (a view of each key's digest cost more than the rest of its move).
   */
  #grow(): void {
    const capacity = (this.#mask + 1) * 2;
    const mask = capacity - 1;
    const scopeOf = new Uint32Array(capacity);
    const petId = new Float64Array(capacity);
    const createdAt = new Float64Array(capacity);
    const expiresAt = new Float64Array(capacity);
    const key = stringColumn(capacity);
    const digests = new Uint8Array(capacity * DIGEST_BYTES);
    for (let sequence = this.#first; sequence < this.#end; ) {
      const runEnd = Math.min(this.#end, (sequence | this.#mask) + 1, (sequence | mask) + 1);
      const from = sequence & this.#mask;
      const to = sequence & mask;
      const length = runEnd - sequence;
      scopeOf.set(this.#scopeOf.subarray(from, from + length), to);
      petId.set(this.#petId.subarray(from, from + length), to);
      createdAt.set(this.#createdAt.subarray(from, from + length), to);
      expiresAt.set(this.#expiresAt.subarray(from, from + length), to);
      digests.set(this.#digests.subarray(from * DIGEST_BYTES, (from + length) * DIGEST_BYTES), to * DIGEST_BYTES);
      for (let offset = 0; offset < length; offset++) key[to + offset] = this.#key[from + offset];
      sequence = runEnd;
    }
    this.#mask = mask;
    this.#scopeOf = scopeOf;
    this.#petId = petId;
    this.#createdAt = createdAt;
    this.#expiresAt = expiresAt;
    this.#key = key;
    this.#digests = digests;
  }
}
