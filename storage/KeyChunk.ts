/** @module A run of consecutive Idempotency-Keys kept in typed arrays: their numbers, payload digests and texts. */
import { DIGEST_BYTES, packDigest, unpackDigest } from './packedBase64Url.js';
import { TextColumn, type TextColumnParts } from './TextColumn.js';

/**
 * Where a queue's older chunks keep their keys' texts, payload digests and animals, out of memory
 * (a JSON data file's storage: a scratch file beside it, see KeySpillFile). Reads are
 * synchronous and rare: a retry's lookup, a whole write that encodes keys again.
 */
export interface KeySpill {
  /** Writes `bytes` after the last bytes written; answers where (what `read` takes), or `undefined` when it cannot (a full disk): the chunk then keeps them. */
  write(bytes: Uint8Array): number | undefined;
  /** The `length` bytes written at `at` on, in an array valid until the next read; throws when they cannot be read. */
  read(at: number, length: number): Uint8Array;
  /** Says no chunk reads the bytes before `at` any more (they left the queue's front), so their room may be taken back. */
  releaseBefore(at: number): void;
}

/** How many keys one chunk holds: about 400 KB of arrays at the service's keys. */
export const CHUNK_KEYS = 4096;

/** What a number column holds for a number kept elsewhere (see `fitsColumn`). */
export const ELSEWHERE_NUMBER = 0xffffffff;

/** Whether `value` fits a number column: a whole number from 0 up to, not including, `ELSEWHERE_NUMBER`. */
export const fitsColumn = (value: number): boolean => Number.isInteger(value) && value >= 0 && value < ELSEWHERE_NUMBER;

/** What a scope column holds for a scope kept elsewhere: the 65,536th scope a queue met and those after. */
export const ELSEWHERE_SCOPE = 0xffff;

/** MurmurHash3's finaliser: every bit of the result depends on every bit of the state. */
const finish = (hash: number): number => {
  let mixed = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  mixed = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35);
  return (mixed ^ (mixed >>> 16)) >>> 0;
};

/**
 * A seeded 32-bit hash of `scope` (a small number) and the character codes of `key`. Seeded
 * per queue, as V8 seeds its own string hashes, so a client cannot choose keys that all land
 * in one run of a lookup table. A chunk keeps each key's hash (`hashes`), so the table grows
 * and deletes without reading a key's text again.
 */
export const hashKey = (seed: number, scope: number, key: string): number => {
  let hash = seed ^ Math.imul(scope + 1, 0x9e3779b1);
  for (let index = 0; index < key.length; index++) {
    const mixed = Math.imul(hash ^ key.charCodeAt(index), 0x5bd1e995);
    hash = mixed ^ (mixed >>> 15);
  }
  return finish(hash ^ key.length);
};

/** The bytes an animal's id takes in a chunk's column. */
const PET_ID_BYTES = Uint32Array.BYTES_PER_ELEMENT;

/** The 32-bit number at the start of `bytes`, in this machine's byte order (as a Uint32Array's bytes were written). */
const readUint32 = (bytes: Uint8Array): number => new Uint32Array(bytes.slice(0, 4).buffer)[0]!;

/** What a chunk holds (see `KeyChunk.parts`). */
export interface KeyChunkParts {
  scopeOf: Uint16Array;
  hashes: Uint32Array;
  petId: Uint32Array;
  createdBase: number;
  createdSince: Uint32Array;
  lifetime: number;
  digests: Uint8Array;
  texts: TextColumnParts;
  fingerprints: TextColumnParts | undefined;
}

/**
 * `CHUNK_KEYS` consecutive keys, in columns: their owner (IdempotencyKeys) writes a key's
 * numbers into the public arrays at its index, its text through `writeText` and its payload's
 * fingerprint through `writeFingerprint`, each into a `TextColumn`. The owner fills a chunk
 * from index 0 on and drops it whole once the queue's front has passed it, so no array is
 * ever copied to grow but the texts' (and a full chunk's texts are cut to fit).
 */
export class KeyChunk {
  /** Each key's scope number, or `ELSEWHERE_SCOPE` for one kept elsewhere. */
  readonly scopeOf: Uint16Array;
  /** Each key's `hashKey`. */
  readonly hashes: Uint32Array;
  /** Each key's animal, or `ELSEWHERE_NUMBER` for an id that does not fit (see `fitsColumn`). */
  #petIds: Uint32Array;
  /** The creation time the chunk's first key was made at, in whole milliseconds: what `createdSince` counts from. */
  createdBase: number;
  /** Each key's creation less `createdBase`, or `ELSEWHERE_NUMBER` for one that does not fit (see `fitsColumn`). */
  readonly createdSince: Uint32Array;
  /**
   * The lifetime (expiry less creation) of the chunk's first key, or NaN for one that does
   * not fit a column: the service gives every key the same one, so a key of another
   * lifetime (a setting changed, a file edited) has its expiry kept elsewhere.
   */
  lifetime: number;
  /** Each key's fingerprint as the service makes it, 8 bytes (see `packDigest`), unless `#fingerprints` keeps its text; empty once spilled. */
  #digests: Uint8Array;
  /**
   * Where the chunk's bytes lie in `#spill` once spilled (see `spill`): its texts from
   * `#spilledAt`, then its digests from `#spilledDigestsAt`, a whole chunk's, then its
   * animals' ids, a whole chunk's; the rest of the layout is derived from these two.
   */
  #spilledAt = -1;
  #spilledDigestsAt = -1;
  #spill: KeySpill | undefined;
  /** The keys' texts. */
  readonly #texts: TextColumn;
  /**
   * The texts of fingerprints the service did not make (a file's seeded by another program,
   * or edited by hand), made at the chunk's first such one: the others skip it. Kept in a map
   * of objects, a hundred thousand of them cost a start at a million animals about 0.3 s and
   * 20 MB (the keys' worker handed the map over, and the collector moved it).
   */
  #fingerprints: TextColumn | undefined;

  /** An empty chunk, or one made again from what `parts` of another gave (in another thread, say). */
  constructor(parts?: KeyChunkParts) {
    this.scopeOf = parts?.scopeOf ?? new Uint16Array(CHUNK_KEYS);
    this.hashes = parts?.hashes ?? new Uint32Array(CHUNK_KEYS);
    this.#petIds = parts?.petId ?? new Uint32Array(CHUNK_KEYS);
    this.createdBase = parts?.createdBase ?? 0;
    this.createdSince = parts?.createdSince ?? new Uint32Array(CHUNK_KEYS);
    this.lifetime = parts?.lifetime ?? Number.NaN;
    this.#digests = parts?.digests ?? new Uint8Array(CHUNK_KEYS * DIGEST_BYTES);
    this.#texts = new TextColumn(CHUNK_KEYS, parts?.texts);
    this.#fingerprints = parts?.fingerprints && new TextColumn(CHUNK_KEYS, parts.fingerprints);
  }

  /** Everything the chunk holds, as plain values and typed arrays (each over a buffer of its own, to transfer): see the constructor. */
  parts(): KeyChunkParts {
    if (this.#spill) throw new Error('A spilled chunk has no parts: take it back first (see unspill).');
    const { scopeOf, hashes, createdBase, createdSince, lifetime } = this;
    const petId = this.#petIds;
    return {
      scopeOf,
      hashes,
      petId,
      createdBase,
      createdSince,
      lifetime,
      digests: this.#digests,
      texts: this.#texts.parts(),
      fingerprints: this.#fingerprints?.parts(),
    };
  }

  /** Keeps `key` as the text of the key at `index` (the chunk's next one) when the column can; answers whether it did. */
  writeText(index: number, key: string): boolean {
    return this.#texts.write(index, key);
  }

  /** Whether the chunk keeps the text of the key at `index` (otherwise its owner does). */
  keeps(index: number): boolean {
    return this.#texts.keeps(index);
  }

  /** The text of the key at `index` (one the chunk keeps), as a flat string. */
  readText(index: number): string {
    return this.#texts.read(index);
  }

  /** Whether the key at `index` (one the chunk keeps) is `key`. */
  textEquals(index: number, key: string): boolean {
    return this.#texts.equals(index, key);
  }

  /**
   * Keeps `fingerprint` as the fingerprint of the key at `index` (the chunk's next one): 8
   * bytes when the service made it, else its text; answers false when it keeps neither (a
   * text of more than 254 characters, or beyond one byte a character: the owner keeps it).
   */
  writeFingerprint(index: number, fingerprint: string): boolean {
    if (packDigest(fingerprint, this.#digests, index * DIGEST_BYTES)) {
      this.#fingerprints?.skip(index);
      return true;
    }
    if (this.#fingerprints === undefined) {
      this.#fingerprints = new TextColumn(CHUNK_KEYS);
      for (let before = 0; before < index; before++) this.#fingerprints.skip(before);
    }
    return this.#fingerprints.write(index, fingerprint);
  }

  /** The fingerprint of the key at `index`, unless kept by the owner (see `writeFingerprint`). */
  readFingerprint(index: number): string {
    const texts = this.#fingerprints;
    if (texts?.keeps(index)) return texts.read(index);
    if (this.#spill) return unpackDigest(this.#spill.read(this.#spilledDigestsAt + index * DIGEST_BYTES, DIGEST_BYTES), 0);
    return unpackDigest(this.#digests, index * DIGEST_BYTES);
  }

  /** The animal of the key at `index` (`ELSEWHERE_NUMBER` for one kept elsewhere). */
  petIdAt(index: number): number {
    if (this.#spill) return readUint32(this.#spill.read(this.#spilledPetIdsAt + index * PET_ID_BYTES, PET_ID_BYTES));
    return this.#petIds[index]!;
  }

  /** Keeps `petId` as the animal of the key at `index` (the chunk's next one). */
  setPetId(index: number, petId: number): void {
    this.#petIds[index] = petId;
  }

  /** Whether the chunk's texts, digests and animals are out of memory (see `spill`). */
  get spilled(): boolean {
    return this.#spill !== undefined;
  }

  /** Where the chunk's bytes end in its spill (a chunk spilled). */
  get spilledEnd(): number {
    return this.#spilledPetIdsAt + CHUNK_KEYS * PET_ID_BYTES;
  }

  /** Where the animals' ids start in the spill: after the digests (a chunk spilled). */
  get #spilledPetIdsAt(): number {
    return this.#spilledDigestsAt + CHUNK_KEYS * DIGEST_BYTES;
  }

  /**
   * Writes the keys' texts, digests and animals (a full chunk's: its owner adds none after)
   * to `spill` and lets go of them, 28 bytes a UUID key: a lookup that meets one of the
   * keys reads its text there, and `at` its digest and animal. Answers false, keeping
   * them, when `spill` could not write them.
   */
  spill(spill: KeySpill): boolean {
    const texts = this.#texts.bytes;
    const digestsEnd = texts.length + this.#digests.length;
    const bytes = new Uint8Array(digestsEnd + this.#petIds.byteLength);
    bytes.set(texts);
    bytes.set(this.#digests, texts.length);
    bytes.set(new Uint8Array(this.#petIds.buffer, this.#petIds.byteOffset, this.#petIds.byteLength), digestsEnd);
    const at = spill.write(bytes);
    if (at === undefined) return false;
    this.#spill = spill;
    this.#spilledAt = at;
    this.#spilledDigestsAt = at + texts.length;
    this.#texts.spill((offset, length) => spill.read(at + offset, length));
    this.#digests = new Uint8Array(0);
    this.#petIds = new Uint32Array(0);
    return true;
  }

  /** Reads the texts, digests and animals back from the spill and keeps them again (a write that failed takes keys back from the chunk, say). */
  unspill(): void {
    const spill = this.#spill;
    if (spill === undefined) return;
    const bytes = spill.read(this.#spilledAt, this.spilledEnd - this.#spilledAt).slice();
    const digestsAt = this.#spilledDigestsAt - this.#spilledAt;
    const petIdsAt = this.#spilledPetIdsAt - this.#spilledAt;
    this.#texts.unspill(bytes.subarray(0, digestsAt));
    this.#digests = bytes.subarray(digestsAt, petIdsAt);
    // Copied out: a Uint32Array's bytes must start at a multiple of 4, which the texts' length need not be.
    this.#petIds = new Uint32Array(bytes.slice(petIdsAt).buffer);
    this.#spill = undefined;
  }

  /** Forgets the texts of the keys from `index` on (keys added by a write that failed, or all of them to use the chunk again). */
  dropTextsFrom(index: number): void {
    this.#texts.dropFrom(index);
    if (index === 0) this.#fingerprints = undefined;
    else this.#fingerprints?.dropFrom(index);
  }
}
