/** @module A run of consecutive Idempotency-Keys kept in typed arrays: their numbers, payload digests and texts. */
import { DIGEST_BYTES, isBase64UrlText, packBase64Url, packedBytes, unpackBase64Url } from './packedBase64Url.js';
import { hexBytes, isHexText, isUuidText, packHex, packUuid, UUID_BYTES, unpackHex, unpackUuid } from './packedHex.js';

/** How many keys one chunk holds: about 400 KB of arrays at the service's keys. */
export const CHUNK_KEYS = 4096;

/** The longest text a chunk keeps: a length fits in one byte, with 255 left over to mark a key kept elsewhere. */
const MAX_TEXT_LENGTH = 254;

/** The length of a key a chunk does not keep (see `keepsText`). */
const ELSEWHERE = 255;

/** What a number column holds for a number kept elsewhere (see `fitsColumn`). */
export const ELSEWHERE_NUMBER = 0xffffffff;

/** Whether `value` fits a number column: a whole number from 0 up to, not including, `ELSEWHERE_NUMBER`. */
export const fitsColumn = (value: number): boolean => Number.isInteger(value) && value >= 0 && value < ELSEWHERE_NUMBER;

/** How a chunk keeps a text (see `textKindOf`): its characters a byte each. */
const PLAIN_TEXT = 0;

/** A UUID in `crypto.randomUUID`'s spelling, in 16 bytes (see packedHex). */
const UUID_TEXT = 1;

/** Lowercase hex digits, four bits each (see packedHex). */
const HEX_TEXT = 2;

/** Base64url characters, six bits each (see packedBase64Url). */
const BASE64URL_TEXT = 3;

/** How far a text's kind is shifted in its place: the place's two high bits. */
const KIND_SHIFT = 30;

/** What of a text's place is the place itself, without its kind. */
const PLACE = 0x3fffffff;

/** How `text` (one `keepsText` accepts) is kept: the densest packing its characters allow. */
const textKindOf = (text: string): number =>
  isUuidText(text) ? UUID_TEXT : isHexText(text) ? HEX_TEXT : isBase64UrlText(text) ? BASE64URL_TEXT : PLAIN_TEXT;

/** The bytes a text of `length` characters takes, kept as `kind`. */
const bytesOf = (kind: number, length: number): number =>
  kind === UUID_TEXT ? UUID_BYTES : kind === HEX_TEXT ? hexBytes(length) : kind === BASE64URL_TEXT ? packedBytes(length) : length;

/** What `#alike` holds before the chunk's first text. */
const NO_TEXT_YET = -1;

/** What `#alike` holds once two of the chunk's texts differ in length or packing. */
const UNLIKE = -2;

/** What a scope column holds for a scope kept elsewhere: the 65,536th scope a queue met and those after. */
export const ELSEWHERE_SCOPE = 0xffff;

/**
 * The fewest bytes a chunk's texts get room for. The first text makes room for a chunk of
 * texts like it (see `writeText`), which a chunk's then fill exactly as a rule; texts that
 * take more double it, and it shrinks to fit once the chunk is full. (Room began at 4 KB
 * and doubled, and each chunk's texts were copied five times on their way to 64 KB, leaving
 * the C library's heap full of holes; then at 64 KB, which a chunk of 22-character tokens
 * outgrew, to 128 KB and a copy back to 68 KB.)
 */
const FEWEST_TEXT_BYTES = 4096;

/**
 * Whether a chunk keeps `text`: at most 254 characters, each in one byte (code below 256).
 * An Idempotency-Key header is, but for one of exactly 255 characters; a key read from a
 * file edited by hand may not be.
 */
const keepsText = (text: string): boolean => {
  if (text.length > MAX_TEXT_LENGTH) return false;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 255) return false;
  return true;
};

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

/** What a chunk holds (see `KeyChunk.parts`). */
export interface KeyChunkParts {
  scopeOf: Uint16Array;
  hashes: Uint32Array;
  petId: Uint32Array;
  createdBase: number;
  createdSince: Uint32Array;
  lifetime: number;
  digests: Uint8Array;
  /** Undefined while the chunk's texts are all alike (see `KeyChunk.#alike`). */
  textAt: Uint32Array | undefined;
  textLength: Uint8Array | undefined;
  alike: number;
  text: Uint8Array;
  textEnd: number;
}

/** The character codes of the text being read (one array for all chunks: they read one text at a time). */
const codes: number[] = [];

/**
 * `CHUNK_KEYS` consecutive keys, in columns: their owner (IdempotencyKeys) writes a key's
 * numbers and digest into the public arrays at its index, and its text through `writeText`,
 * which keeps it as bytes after the texts before it: a UUID as `crypto.randomUUID` writes it
 * in 16 bytes, lowercase hex four bits a digit (32 digits in 16 bytes), other texts six bits
 * a character when all are base64url ones (a 22-character base64url token in 17 bytes),
 * else one byte each. The owner fills a chunk
 * from index 0 on and drops it whole once the queue's front has passed it, so no array is
 * ever copied to grow but the texts' (and a full chunk's texts are cut to fit).
 */
export class KeyChunk {
  /** Each key's scope number, or `ELSEWHERE_SCOPE` for one kept elsewhere. */
  readonly scopeOf: Uint16Array;
  /** Each key's `hashKey`. */
  readonly hashes: Uint32Array;
  /** Each key's animal, or `ELSEWHERE_NUMBER` for an id that does not fit (see `fitsColumn`). */
  readonly petId: Uint32Array;
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
  readonly digests: Uint8Array;
  /**
   * While every text so far has the same length and kind (the keys of one client, as a
   * rule: UUIDs, our client's 22-character tokens, our kiosk page's 32 hex digits), their
   * kind times 256 plus their length; the texts lie one after another, so a key's place is
   * its index times their size, and `#textAt` and `#textLength` are not made: 5 bytes a key
   * less. `NO_TEXT_YET` before the first, `UNLIKE` once two differ.
   */
  #alike = NO_TEXT_YET;
  /**
   * Where each key's text starts in `#text` (its kind in the two high bits), and its
   * length in characters (`ELSEWHERE` for a key the chunk does not keep); made when the texts stop being alike.
   */
  #textAt: Uint32Array | undefined;
  #textLength: Uint8Array | undefined;
  #text: Uint8Array;
  /** The bytes of `#text` in use: the texts of the keys before the next index. */
  #textEnd: number;

  /** An empty chunk, or one made again from what `parts` of another gave (in another thread, say). */
  constructor(parts?: KeyChunkParts) {
    this.scopeOf = parts?.scopeOf ?? new Uint16Array(CHUNK_KEYS);
    this.hashes = parts?.hashes ?? new Uint32Array(CHUNK_KEYS);
    this.petId = parts?.petId ?? new Uint32Array(CHUNK_KEYS);
    this.createdBase = parts?.createdBase ?? 0;
    this.createdSince = parts?.createdSince ?? new Uint32Array(CHUNK_KEYS);
    this.lifetime = parts?.lifetime ?? Number.NaN;
    this.digests = parts?.digests ?? new Uint8Array(CHUNK_KEYS * DIGEST_BYTES);
    this.#textAt = parts?.textAt;
    this.#textLength = parts?.textLength;
    this.#alike = parts?.alike ?? NO_TEXT_YET;
    this.#text = parts?.text ?? new Uint8Array(0);
    this.#textEnd = parts?.textEnd ?? 0;
  }

  /** Everything the chunk holds, as plain values and typed arrays (each over a buffer of its own, to transfer): see the constructor. */
  parts(): KeyChunkParts {
    const { scopeOf, hashes, petId, createdBase, createdSince, lifetime, digests } = this;
    return {
      scopeOf,
      hashes,
      petId,
      createdBase,
      createdSince,
      lifetime,
      digests,
      textAt: this.#textAt,
      textLength: this.#textLength,
      alike: this.#alike,
      text: this.#text,
      textEnd: this.#textEnd,
    };
  }

  /** Keeps `key` as the text of the key at `index` (the chunk's next one) when `keepsText(key)`; answers whether it did. */
  writeText(index: number, key: string): boolean {
    if (!keepsText(key)) {
      this.#unlike(index);
      this.#textAt![index] = this.#textEnd;
      this.#textLength![index] = ELSEWHERE;
      return false;
    }
    const kind = textKindOf(key);
    const alike = kind * 256 + key.length;
    if (this.#alike === NO_TEXT_YET && index === 0) this.#alike = alike;
    else if (this.#alike !== alike) this.#unlike(index);
    const end = this.#textEnd + bytesOf(kind, key.length);
    if (this.#textEnd === 0) {
      // The chunk's first text: room for 4,096 like it (a chunk left spare has it already).
      const room = Math.max(CHUNK_KEYS * end, FEWEST_TEXT_BYTES);
      if (this.#text.length !== room) this.#text = new Uint8Array(room);
    } else if (end > this.#text.length) {
      const text = new Uint8Array(Math.max(this.#text.length * 2, end));
      text.set(this.#text.subarray(0, this.#textEnd));
      this.#text = text;
    }
    const text = this.#text;
    if (kind === UUID_TEXT) packUuid(key, text, this.#textEnd);
    else if (kind === HEX_TEXT) packHex(key, text, this.#textEnd);
    else if (kind === BASE64URL_TEXT) packBase64Url(key, text, this.#textEnd);
    else for (let offset = 0, at = this.#textEnd; offset < key.length; offset++, at++) text[at] = key.charCodeAt(offset);
    if (this.#textAt) {
      this.#textAt[index] = this.#textEnd | (kind << KIND_SHIFT);
      this.#textLength![index] = key.length;
    }
    this.#textEnd = end;
    // The chunk's last key: its texts will not grow again, so they keep no spare bytes.
    if (index === CHUNK_KEYS - 1 && this.#textEnd < this.#text.length) this.#text = this.#text.slice(0, this.#textEnd);
    return true;
  }

  /** Whether the chunk keeps the text of the key at `index` (otherwise its owner does). */
  keeps(index: number): boolean {
    return this.#textLength === undefined || this.#textLength[index] !== ELSEWHERE;
  }

  /** The text of the key at `index` (one the chunk keeps), as a flat string. */
  readText(index: number): string {
    // Through an array of codes: a view of the bytes, made for each key, cost half again as much.
    this.#readCodes(index);
    return String.fromCharCode.apply(null, codes);
  }

  /** Whether the key at `index` (one the chunk keeps) is `key`. */
  textEquals(index: number, key: string): boolean {
    if (key.length !== this.#lengthOf(index)) return false;
    this.#readCodes(index);
    for (let offset = 0; offset < key.length; offset++) if (codes[offset] !== key.charCodeAt(offset)) return false;
    return true;
  }

  /** Forgets the texts of the keys from `index` on (keys added by a write that failed, or all of them to use the chunk again). */
  dropTextsFrom(index: number): void {
    if (index === 0) {
      this.#textEnd = 0;
      this.#alike = NO_TEXT_YET;
      this.#textAt = undefined;
      this.#textLength = undefined;
    } else this.#textEnd = this.#placeOf(index) & PLACE;
  }

  /**
   * From the key at `index` on, the texts are no longer alike: where each of the keys before
   * it lies (one after another, each as long) is written down, as every later key's will be.
   */
  #unlike(index: number): void {
    if (this.#textAt !== undefined) return;
    const textAt = new Uint32Array(CHUNK_KEYS);
    const textLength = new Uint8Array(CHUNK_KEYS);
    if (this.#alike >= 0) {
      for (let before = 0; before < index; before++) textAt[before] = this.#placeOf(before);
      textLength.fill(this.#lengthOf(0), 0, index);
    }
    this.#textAt = textAt;
    this.#textLength = textLength;
    this.#alike = UNLIKE;
  }

  /** Where the text of the key at `index` starts in `#text`, its kind in the two high bits. */
  #placeOf(index: number): number {
    if (this.#textAt !== undefined) return this.#textAt[index]!;
    const kind = this.#alike >>> 8;
    return ((index * bytesOf(kind, this.#alike & 255)) | (kind << KIND_SHIFT)) >>> 0;
  }

  /** The length in characters of the key at `index`. */
  #lengthOf(index: number): number {
    return this.#textLength === undefined ? this.#alike & 255 : this.#textLength[index]!;
  }

  /** Sets `codes` to the character codes of the key at `index` (one the chunk keeps). */
  #readCodes(index: number): void {
    const length = this.#lengthOf(index);
    const place = this.#placeOf(index);
    const at = place & PLACE;
    const kind = place >>> KIND_SHIFT;
    if (kind === UUID_TEXT) unpackUuid(this.#text, at, codes);
    else if (kind === HEX_TEXT) unpackHex(this.#text, at, length, codes);
    else if (kind === BASE64URL_TEXT) unpackBase64Url(this.#text, at, length, codes);
    else {
      codes.length = length;
      for (let offset = 0; offset < length; offset++) codes[offset] = this.#text[at + offset]!;
    }
  }
}
