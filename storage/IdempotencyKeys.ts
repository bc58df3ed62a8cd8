/** @module The Idempotency-Keys a storage keeps in memory: a queue in arrival order, found by scope and key. */
import type { IdempotencyKey, StoredIdempotencyKey } from '../core/PetStorage.js';
import {
  CHUNK_KEYS,
  ELSEWHERE_NUMBER,
  ELSEWHERE_SCOPE,
  fitsColumn,
  hashKey,
  KeyChunk,
  type KeyChunkParts,
  type KeySpill,
} from './KeyChunk.js';

export type { KeySpill } from './KeyChunk.js';

/**
 * How many chunks at the back keep their bytes when the queue spills (see `spillTo`): the
 * one keys join, and the one before, which a write that failed may still take keys back from.
 */
const UNSPILLED_CHUNKS = 2;

/** The first size of the lookup table; it grows by half when three quarters full (see `isCrowded`). */
const INITIAL_TABLE = 1024;

/**
 * The size a table grows to from `size`: half as large again. Doubled, a table just grown
 * took 10.7 bytes a key (8 on average over its growth); by half, 8 (6.5), for a growth a
 * little more often (each places every entry again, from the hashes the chunks keep).
 */
const grownSize = (size: number): number => size + (size >>> 1);

/**
 * Table entries hold sequence numbers modulo this, plus one, so 0 marks an empty place: the
 * largest small integer of V8's, so the arithmetic stays on integers.
 */
const MODULUS = 2 ** 31 - 1;

/**
 * Whether a table of `size` places holding `listed` entries is too full. Three quarters at
 * most: a new key's lookup then probes about 8 places rather than 2.5 at half full (a tenth
 * of a microsecond more a keyed create), and the table takes 5.3 to 8 bytes a key (see
 * `grownSize`) rather than 8 to 16.
 */
const isCrowded = (listed: number, size: number): boolean => listed * 4 > size * 3;

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

/** What of a key is kept beside its chunk's columns. */
type OddParts = Partial<Pick<StoredIdempotencyKey, 'scope' | 'key' | 'fingerprint' | 'petId' | 'createdAt' | 'expiresAt'>>;

/**
 * What a queue holds, as plain values, maps and typed arrays (see `IdempotencyKeys.snapshot`):
 * a worker thread that read a file's keys hands its queue over so, the arrays' buffers
 * transferred, not copied.
 */
export interface IdempotencyKeysSnapshot {
  scopes: string[];
  chunks: KeyChunkParts[];
  chunkBase: number;
  odd: Map<number, OddParts>;
  table: Uint32Array;
  listed: number;
  seed: number;
  first: number;
  end: number;
}

/** The buffers of a snapshot's typed arrays (every array a chunk's parts hold, and the table), to transfer with it. */
export const buffersOf = ({ chunks, table }: IdempotencyKeysSnapshot): ArrayBuffer[] => [
  table.buffer as ArrayBuffer,
  ...chunks.flatMap(({ texts, fingerprints, ...columns }) => [columns, texts, fingerprints ?? {}].flatMap(arraysOf)),
];

/** The buffers of the typed arrays among `parts`' values. */
const arraysOf = (parts: object): ArrayBuffer[] =>
  Object.values(parts)
    .filter(ArrayBuffer.isView)
    .map((array) => array.buffer as ArrayBuffer);

/** The table's place after `place`: linear probing, from the last place back to the first. */
const nextPlace = (place: number, size: number): number => (place + 1 === size ? 0 : place + 1);

/** How many places on from `from` `to` is, going round a table of `size` places. */
const distance = (from: number, to: number, size: number): number => (to >= from ? to - from : to + size - from);

/** A random 32-bit number: the seed of one queue's lookup hashes (see `hashKey`). */
const randomSeed = (): number => crypto.getRandomValues(new Uint32Array(1))[0]!;

/**
 * Live Idempotency-Keys, oldest first, found by scope and key. Every key lives as long, so
 * arrival order is expiry order: expired keys leave from the front (`sweep`, a bounded
 * number at a time), new ones join at the back.
 *
 * Each key has a sequence number (0, 1, 2, … in arrival order, never reused) and is kept in
 * columns of typed arrays, a chunk of 4,096 keys at a time (see KeyChunk): its numbers, its
 * payload digest packed (8 bytes), a scope number instead of the scope's 64 characters, its
 * text as bytes (a UUID or 32 hex digits in 16). It is found through an open-addressing
 * table of its own (linear probing, at most three quarters full) rather than a `Map` of
 * strings. A key then costs 45 to 53 bytes (the most when a chunk's texts differ in
 * length or packing) and gives the garbage collector nothing to visit, where a string and a map entry
 * per key cost 180 (see docs/bounds.md); chunks are added and dropped whole, so no column
 * is copied to grow.
 * A key that replaces an expired one with the same scope and key leaves the old one in the
 * queue, unreachable, until the sweep reaches it.
 */
export class IdempotencyKeys {
  #scopes: string[] = [];
  readonly #scopeNumbers = new Map<string, number>();
  /** The chunks holding the keys from `#chunkBase * CHUNK_KEYS` on. */
  #chunks: KeyChunk[] = [];
  #chunkBase = 0;
  /** A chunk the front left, kept for the back's next one. */
  #spare: KeyChunk | undefined;
  /**
   * By sequence number, what of a key its chunk does not keep, exactly as given (files
   * edited by hand, tests): the scope of a queue's 65,536th API key and later ones, a key
   * text or a fingerprint over 254 characters or beyond one byte a character (other
   * fingerprints the chunk keeps, as 8 bytes or as text: see `KeyChunk.writeFingerprint`), a
   * pet id or creation time that does not fit a column (see `fitsColumn`), an expiry other
   * than its creation plus its chunk's lifetime.
   */
  #odd = new Map<number, OddParts>();
  /**
   * The lookup: for each scope and key, its newest entry's sequence number (modulo
   * `MODULUS`, plus one; 0 is an empty place), at the place its hash gives or the first
   * empty place after it. Kept at most three quarters full.
   */
  #table: Uint32Array = new Uint32Array(INITIAL_TABLE);
  #listed = 0;
  #seed = randomSeed();
  /** The last key `#place` hashed. */
  readonly #hashed = { key: '', scope: -1, hash: 0 };
  #first = 0;
  #end = 0;
  /** Where full chunks put their keys' texts and digests (see `spillTo`), if anywhere. */
  #spill: KeySpill | undefined;

  /** `expected`: about how many keys it will hold soon (a file's, read a piece at a time), so the table is made that size once, not doubled its way there. */
  constructor(keys: Iterable<StoredIdempotencyKey> = [], expected = Array.isArray(keys) ? keys.length : 0) {
    let size = INITIAL_TABLE;
    while (isCrowded(expected, size)) size = grownSize(size);
    if (size !== INITIAL_TABLE) this.#table = new Uint32Array(size);
    for (const key of keys) this.add(key);
  }

  /** Everything the queue holds, to make it again with `fromSnapshot` (the snapshot shares its arrays: the queue is not used after). */
  snapshot(): IdempotencyKeysSnapshot {
    this.unspill();
    return {
      scopes: this.#scopes,
      chunks: this.#chunks.map((chunk) => chunk.parts()),
      chunkBase: this.#chunkBase,
      odd: this.#odd,
      table: this.#table,
      listed: this.#listed,
      seed: this.#seed,
      first: this.#first,
      end: this.#end,
    };
  }

  /** The queue a `snapshot` holds. */
  static fromSnapshot(snapshot: IdempotencyKeysSnapshot): IdempotencyKeys {
    const keys = new IdempotencyKeys();
    keys.#scopes = snapshot.scopes;
    for (const [number, scope] of snapshot.scopes.entries()) keys.#scopeNumbers.set(scope, number);
    keys.#chunks = snapshot.chunks.map((parts) => new KeyChunk(parts));
    keys.#chunkBase = snapshot.chunkBase;
    keys.#odd = snapshot.odd;
    keys.#table = snapshot.table;
    keys.#listed = snapshot.listed;
    keys.#seed = snapshot.seed;
    keys.#first = snapshot.first;
    keys.#end = snapshot.end;
    return keys;
  }

  /**
   * From now on, every full chunk but the last two writes its keys' texts, payload digests
   * and animals to `spill` and lets go of them: a key then holds 10 bytes (its scope's
   * number, hash and time, which lookups and the sweep read) and its place in the table,
   * not the 28 more of a UUID key's text, digest and animal. Those are read back only when
   * a lookup meets the key (a retry) or a key is read whole (`at`: a whole write that
   * encodes it again). A chunk that `spill` cannot take (a full disk) keeps its bytes, and
   * the next full chunk tries again.
   */
  spillTo(spill: KeySpill): void {
    this.#spill = spill;
    this.#spillFullChunks();
  }

  /** Reads every spilled chunk's bytes back and spills no more (the queue is about to be handed on, or replaced). */
  unspill(): void {
    for (const chunk of this.#chunks) chunk.unspill();
    this.#spill = undefined;
  }

  /** The sequence number of the oldest key kept. */
  get first(): number {
    return this.#first;
  }

  /** The sequence number the next key gets. */
  get end(): number {
    return this.#end;
  }

  /**
   * How many keys have a part kept apart from their chunk's columns, in a map (about 100
   * bytes more each): none of the keys the service makes (see `#odd`), only keys from files
   * edited by hand, and those made under another key lifetime than their chunk's first.
   */
  get keptApart(): number {
    return this.#odd.size;
  }

  /** How many keys are kept (expired ones the sweep has not reached yet included). */
  get size(): number {
    return this.#end - this.#first;
  }

  /** The live key with the same scope and key as `key`, or `undefined` (one expired by `key`'s arrival counts as absent). */
  find(key: IdempotencyKey): StoredIdempotencyKey | undefined {
    const scope = this.#scopeNumbers.get(key.scope);
    if (scope === undefined) return undefined;
    const entry = this.#table[this.#place(scope, key.key)]!;
    if (entry === 0) return undefined;
    const sequence = this.#sequenceOf(entry);
    if (this.#expiresAt(sequence) <= key.createdAt) return undefined;
    return this.at(sequence);
  }

  /** Keeps a key at the back of the queue (replacing, for `find`, an expired one with the same scope and key). */
  add(stored: StoredIdempotencyKey): void {
    let scope = this.#scopeNumbers.get(stored.scope);
    if (scope === undefined) {
      scope = this.#scopes.push(stored.scope) - 1;
      this.#scopeNumbers.set(stored.scope, scope);
    }
    const sequence = this.#end;
    const index = sequence % CHUNK_KEYS;
    const number = Math.floor(sequence / CHUNK_KEYS);
    if (this.#chunks.length === 0) this.#chunkBase = number;
    const started = number - this.#chunkBase === this.#chunks.length;
    if (started) {
      this.#addChunk();
      if (this.#spill) this.#spillFullChunks();
    }
    const chunk = this.#chunkOf(sequence);
    if (started) {
      // The chunk's first key sets what its times count from.
      chunk.createdBase = Math.floor(stored.createdAt);
      const lifetime = stored.expiresAt - stored.createdAt;
      chunk.lifetime = fitsColumn(lifetime) ? lifetime : Number.NaN;
    }
    this.#end++;
    chunk.scopeOf[index] = Math.min(scope, ELSEWHERE_SCOPE);
    if (scope >= ELSEWHERE_SCOPE) this.#keepOdd(sequence, { scope: stored.scope });
    const place = this.#place(scope, stored.key);
    chunk.hashes[index] = this.#hashed.hash;
    if (!chunk.writeText(index, stored.key)) this.#keepOdd(sequence, { key: flattened(stored.key) });
    if (!chunk.writeFingerprint(index, stored.fingerprint)) this.#keepOdd(sequence, { fingerprint: flattened(stored.fingerprint) });
    const petIdFits = fitsColumn(stored.petId);
    chunk.setPetId(index, petIdFits ? stored.petId : ELSEWHERE_NUMBER);
    if (!petIdFits) this.#keepOdd(sequence, { petId: stored.petId });
    const since = stored.createdAt - chunk.createdBase;
    chunk.createdSince[index] = fitsColumn(since) ? since : ELSEWHERE_NUMBER;
    if (chunk.createdSince[index] === ELSEWHERE_NUMBER) this.#keepOdd(sequence, { createdAt: stored.createdAt });
    // Kept as the chunk's lifetime when that gives the expiry back exactly (times are whole milliseconds).
    if (!Object.is(stored.createdAt + chunk.lifetime, stored.expiresAt)) this.#keepOdd(sequence, { expiresAt: stored.expiresAt });
    if (this.#table[place] === 0) this.#listed++;
    this.#table[place] = (sequence % MODULUS) + 1;
    if (isCrowded(this.#listed, this.#table.length)) this.#growTable();
  }

  /** The key with this sequence number (between `first` and `end`), as a new object. */
  at(sequence: number): StoredIdempotencyKey {
    const chunk = this.#chunkOf(sequence);
    const index = sequence % CHUNK_KEYS;
    const odd = this.#odd.size === 0 ? undefined : this.#odd.get(sequence);
    const petId = chunk.petIdAt(index);
    return {
      scope: chunk.scopeOf[index] === ELSEWHERE_SCOPE ? odd!.scope! : this.#scopes[chunk.scopeOf[index]!]!,
      key: chunk.keeps(index) ? chunk.readText(index) : odd!.key!,
      fingerprint: odd?.fingerprint ?? chunk.readFingerprint(index),
      petId: petId === ELSEWHERE_NUMBER ? odd!.petId! : petId,
      createdAt: this.#createdAt(chunk, index, odd),
      expiresAt: this.#expiry(chunk, index, odd),
    };
  }

  /**
   * Forgets up to `atMost` keys expired at or before `now`, oldest first, stopping at the
   * first live one; answers how many it forgot. Bounded, so a caller on a timer never
   * stalls the event loop however many keys expire at once.
   */
  sweep(now: number, atMost: number): number {
    let forgotten = 0;
    while (forgotten < atMost && this.#first < this.#end && this.#expiresAt(this.#first) <= now) {
      this.#forget(this.#first);
      this.#first++;
      forgotten++;
    }
    // Chunks the front has passed are dropped whole.
    let released = -1;
    while (this.#chunks.length > 0 && this.#chunkBase < Math.floor(this.#first / CHUNK_KEYS)) {
      const chunk = this.#chunks.shift()!;
      if (chunk.spilled) released = chunk.spilledEnd;
      else this.#spare = chunk;
      this.#chunkBase++;
    }
    if (released !== -1) this.#spill?.releaseBefore(released);
    return forgotten;
  }

  /** Forgets the keys added since the queue's `end` was `end` (a write that failed). */
  truncate(end: number): void {
    const from = Math.max(end, this.#first);
    if (this.#end <= from) return;
    // A write's keys are in the last chunks, which keep their bytes; should one have spilled, it takes them back.
    for (let chunk = Math.floor(from / CHUNK_KEYS) - this.#chunkBase; chunk < this.#chunks.length; chunk++) this.#chunks[chunk]!.unspill();
    while (this.#end > from) this.#forget(--this.#end);
    this.#chunkOf(from).dropTextsFrom(from % CHUNK_KEYS);
    // A chunk no key is in any more is dropped, so `add` finds the back as it left it.
    while (this.#chunks.length > 0 && (this.#chunkBase + this.#chunks.length - 1) * CHUNK_KEYS >= this.#end) {
      this.#spare = this.#chunks.pop();
    }
  }

  /** The keys kept, oldest first, as new objects. */
  *values(): IterableIterator<StoredIdempotencyKey> {
    for (let sequence = this.#first; sequence < this.#end; sequence++) yield this.at(sequence);
  }

  #chunkOf(sequence: number): KeyChunk {
    return this.#chunks[Math.floor(sequence / CHUNK_KEYS) - this.#chunkBase]!;
  }

  /** Spills each full chunk not spilled yet but the last `UNSPILLED_CHUNKS`, oldest first, until one cannot. */
  #spillFullChunks(): void {
    const spill = this.#spill!;
    for (let index = 0; index < this.#chunks.length - UNSPILLED_CHUNKS; index++) {
      const chunk = this.#chunks[index]!;
      if (!chunk.spilled && !chunk.spill(spill)) return;
    }
  }

  #addChunk(): void {
    const chunk = this.#spare ?? new KeyChunk();
    this.#spare = undefined;
    chunk.dropTextsFrom(0);
    this.#chunks.push(chunk);
  }

  #expiresAt(sequence: number): number {
    const chunk = this.#chunkOf(sequence);
    const index = sequence % CHUNK_KEYS;
    // The map is empty but for keys from files edited by hand or settings changed: most lookups skip it.
    return this.#expiry(chunk, index, this.#odd.size === 0 ? undefined : this.#odd.get(sequence));
  }

  /** The expiry of the key at `index` of `chunk`, whose odd parts are `odd`: its creation plus the chunk's lifetime, unless kept apart. */
  #expiry(chunk: KeyChunk, index: number, odd: OddParts | undefined): number {
    return odd?.expiresAt ?? this.#createdAt(chunk, index, odd) + chunk.lifetime;
  }

  /** The creation time of the key at `index` of `chunk`, whose odd parts are `odd`. */
  #createdAt(chunk: KeyChunk, index: number, odd: OddParts | undefined): number {
    const since = chunk.createdSince[index]!;
    return since === ELSEWHERE_NUMBER ? odd!.createdAt! : chunk.createdBase + since;
  }

  /** The sequence number a table entry stands for: the one between `first` and `end` with that remainder. */
  #sequenceOf(entry: number): number {
    const offset = entry - 1 - (this.#first % MODULUS);
    return this.#first + (offset < 0 ? offset + MODULUS : offset);
  }

  /** The hash of the scope and key of `sequence`, as `hashKey` gave it. */
  #hashOf(sequence: number): number {
    return this.#chunkOf(sequence).hashes[sequence % CHUNK_KEYS]!;
  }

  /** The table's place for `scope` and `key`: the one holding their entry, or the empty one where it would go. */
  #place(scope: number, key: string): number {
    const table = this.#table;
    const size = table.length;
    // A create looks its key up, then adds it: the second look reuses the first one's hash.
    const hashed = this.#hashed;
    if (key !== hashed.key || scope !== hashed.scope) {
      hashed.key = key;
      hashed.scope = scope;
      hashed.hash = hashKey(this.#seed, scope, key);
    }
    const hash = hashed.hash;
    for (let place = hash % size; ; place = nextPlace(place, size)) {
      const entry = table[place]!;
      if (entry === 0 || this.#holds(this.#sequenceOf(entry), hash, scope, key)) return place;
    }
  }

  /** Whether `sequence` is the key `key` of scope `scope` (whose hash is `hash`). */
  #holds(sequence: number, hash: number, scope: number, key: string): boolean {
    const chunk = this.#chunkOf(sequence);
    const index = sequence % CHUNK_KEYS;
    if (chunk.hashes[index] !== hash || chunk.scopeOf[index] !== Math.min(scope, ELSEWHERE_SCOPE)) return false;
    if (scope >= ELSEWHERE_SCOPE && this.#odd.get(sequence)!.scope !== this.#scopes[scope]) return false;
    return chunk.keeps(index) ? chunk.textEquals(index, key) : this.#odd.get(sequence)!.key === key;
  }

  /** Removes the table's entry for `sequence`, if it holds one (a newer key with the same scope and key may have replaced it). */
  #unlist(sequence: number): void {
    const table = this.#table;
    const size = table.length;
    const entry = (sequence % MODULUS) + 1;
    let place = this.#hashOf(sequence) % size;
    while (table[place] !== 0 && table[place] !== entry) place = nextPlace(place, size);
    if (table[place] === 0) return;
    this.#listed--;
    // Linear probing's deletion: move back each later entry of the run that may sit in the hole.
    let hole = place;
    for (let next = nextPlace(hole, size); table[next] !== 0; next = nextPlace(next, size)) {
      const home = this.#hashOf(this.#sequenceOf(table[next]!)) % size;
      if (distance(home, next, size) >= distance(hole, next, size)) {
        table[hole] = table[next]!;
        hole = next;
      }
    }
    table[hole] = 0;
  }

  /** Forgets `sequence` (still between `first` and `end`: its chunk and number are read to find its entry). */
  #forget(sequence: number): void {
    this.#unlist(sequence);
    this.#odd.delete(sequence);
  }

  #keepOdd(sequence: number, parts: OddParts): void {
    const kept = this.#odd.get(sequence);
    if (kept) Object.assign(kept, parts);
    else this.#odd.set(sequence, parts);
  }

  /** Grows the table (see `grownSize`), placing each entry anew. */
  #growTable(): void {
    const old = this.#table;
    const table = new Uint32Array(grownSize(old.length));
    const size = table.length;
    for (const entry of old) {
      if (entry === 0) continue;
      let place = this.#hashOf(this.#sequenceOf(entry)) % size;
      while (table[place] !== 0) place = nextPlace(place, size);
      table[place] = entry;
    }
    this.#table = table;
  }
}
