/** @module The texts of a run of keys kept as bytes, each packed as densely as its characters allow. */
import { isBase64UrlText, packBase64Url, packedBytes, unpackBase64Url } from './packedBase64Url.js';
import { hexBytes, isHexText, isUuidText, packHex, packUuid, UUID_BYTES, unpackHex, unpackUuid } from './packedHex.js';

/** The longest text a column keeps: a length fits in one byte, with 255 left over to mark a text kept elsewhere. */
const MAX_TEXT_LENGTH = 254;

/** The length of a text the column does not keep (see `keepsText` and `TextColumn.skip`). */
const ELSEWHERE = 255;

/** How a column keeps a text (see `textKindOf`): its characters a byte each. */
const PLAIN_TEXT = 0;

/** A UUID in `crypto.randomUUID`'s spelling, in 16 bytes (see packedHex). */
const UUID_TEXT = 1;

/** Lowercase hex digits, four bits each (see packedHex). */
const HEX_TEXT = 2;

/** Base64url characters, six bits each (see packedBase64Url). */
const BASE64URL_TEXT = 3;

/** How far a text's kind is shifted in its place: the place's two high bits. */
const KIND_SHIFT = 30;

/** How far a text's kind is shifted in its entry of `#textLength`, above its length. */
const LENGTH_BITS = 8;

/**
 * How many texts one entry of `#textAt` places: the first of each run of this many; a text
 * after it lies after the ones before it in the run, which `#placeOf` sums (at most 15).
 */
const TEXTS_A_PLACE = 16;

/** What of a text's place is the place itself, without its kind. */
const PLACE = 0x3fffffff;

/** How `text` (one `keepsText` accepts) is kept: the densest packing its characters allow. */
const textKindOf = (text: string): number =>
  isUuidText(text) ? UUID_TEXT : isHexText(text) ? HEX_TEXT : isBase64UrlText(text) ? BASE64URL_TEXT : PLAIN_TEXT;

/** The bytes a text of `length` characters takes, kept as `kind`. */
const bytesOf = (kind: number, length: number): number =>
  kind === UUID_TEXT ? UUID_BYTES : kind === HEX_TEXT ? hexBytes(length) : kind === BASE64URL_TEXT ? packedBytes(length) : length;

/** What `#alike` holds before the column's first text. */
const NO_TEXT_YET = -1;

/** What `#alike` holds once two of the column's texts differ in length or packing (or one is not kept). */
const UNLIKE = -2;

/**
 * The fewest bytes a column's texts get room for. The first text makes room for a column of
 * texts like it (see `write`), which a column's then fill exactly as a rule; texts that
 * take more double it, and it shrinks to fit once the column is full. (Room began at 4 KB
 * and doubled, and each chunk's texts were copied five times on their way to 64 KB, leaving
 * the C library's heap full of holes; then at 64 KB, which a chunk of 22-character tokens
 * outgrew, to 128 KB and a copy back to 68 KB.)
 */
const FEWEST_TEXT_BYTES = 4096;

/**
 * Whether a column keeps `text`: at most 254 characters, each in one byte (code below 256).
 * An Idempotency-Key header is, but for one of exactly 255 characters; a text read from a
 * file edited by hand may not be.
 */
const keepsText = (text: string): boolean => {
  if (text.length > MAX_TEXT_LENGTH) return false;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 255) return false;
  return true;
};

/** What a column holds (see `TextColumn.parts`). */
export interface TextColumnParts {
  /** Undefined while the column's texts are all alike (see `TextColumn.#alike`). */
  textAt: Uint32Array | undefined;
  textLength: Uint16Array | undefined;
  alike: number;
  text: Uint8Array;
  textEnd: number;
}

/** Reads `length` bytes of a spilled column's texts from `offset` on (see `TextColumn.spill`), into an array valid until the next read. */
export type ReadSpilled = (offset: number, length: number) => Uint8Array;

/** The character codes of the text being read (one array for all columns: they read one text at a time). */
const codes: number[] = [];

/**
 * The texts of `size` consecutive keys (a chunk's), written from index 0 on, each kept as
 * bytes after the texts before it: a UUID as `crypto.randomUUID` writes it in 16 bytes,
 * lowercase hex four bits a digit (32 digits in 16 bytes), other texts six bits a character
 * when all are base64url ones (a 22-character base64url token in 17 bytes), else one byte
 * each. No array is ever copied to grow but the texts' (and a full column's are cut to fit).
 */
export class TextColumn {
  readonly #size: number;
  /**
   * While every text so far has the same length and kind (the keys of one client, as a
   * rule: UUIDs, our client's 22-character tokens, our kiosk page's 32 hex digits), their
   * kind times 256 plus their length; the texts lie one after another, so a text's place is
   * its index times their size, and `#textAt` and `#textLength` are not made: 2.25 bytes a
   * key less. `NO_TEXT_YET` before the first, `UNLIKE` once two differ.
   */
  #alike = NO_TEXT_YET;
  /**
   * Where the first text of each run of `TEXTS_A_PLACE` starts in `#text`, and each text's
   * kind (shifted by `LENGTH_BITS`) and length in characters (`ELSEWHERE` for one the column
   * does not keep); made when the texts stop being alike. A place for each text took 4
   * bytes a key: a chunk of keys whose texts differ in length (a counter's, say) cost 5
   * bytes a key more than one of alike texts, now 2.25.
   */
  #textAt: Uint32Array | undefined;
  #textLength: Uint16Array | undefined;
  #text: Uint8Array;
  /** The bytes of `#text` in use: the texts before the next index. */
  #textEnd: number;
  /** Where the texts' bytes are read from once they left memory (see `spill`): `#text` is then empty. */
  #spilled: ReadSpilled | undefined;

  /** An empty column of `size` texts, or one made again from what `parts` of another gave (in another thread, say). */
  constructor(size: number, parts?: TextColumnParts) {
    this.#size = size;
    this.#textAt = parts?.textAt;
    this.#textLength = parts?.textLength;
    this.#alike = parts?.alike ?? NO_TEXT_YET;
    this.#text = parts?.text ?? new Uint8Array(0);
    this.#textEnd = parts?.textEnd ?? 0;
  }

  /** Everything the column holds, as plain values and typed arrays (each over a buffer of its own, to transfer): see the constructor. */
  parts(): TextColumnParts {
    if (this.#spilled) throw new Error('A spilled column has no parts: take it back first (see unspill).');
    return { textAt: this.#textAt, textLength: this.#textLength, alike: this.#alike, text: this.#text, textEnd: this.#textEnd };
  }

  /** Keeps `text` as the text at `index` (the column's next one) when `keepsText(text)`; answers whether it did. */
  write(index: number, text: string): boolean {
    if (this.#spilled) throw new Error('A spilled column takes no text.');
    if (!keepsText(text)) {
      this.skip(index);
      return false;
    }
    const kind = textKindOf(text);
    const alike = kind * 256 + text.length;
    if (this.#alike === NO_TEXT_YET && index === 0) this.#alike = alike;
    else if (this.#alike !== alike) this.#unlike(index);
    const end = this.#textEnd + bytesOf(kind, text.length);
    if (this.#textEnd === 0) {
      // The column's first text: room for a column of texts like it (a chunk left spare has it already).
      const room = Math.max(this.#size * end, FEWEST_TEXT_BYTES);
      if (this.#text.length !== room) this.#text = new Uint8Array(room);
    } else if (end > this.#text.length) {
      const bytes = new Uint8Array(Math.max(this.#text.length * 2, end));
      bytes.set(this.#text.subarray(0, this.#textEnd));
      this.#text = bytes;
    }
    const bytes = this.#text;
    if (kind === UUID_TEXT) packUuid(text, bytes, this.#textEnd);
    else if (kind === HEX_TEXT) packHex(text, bytes, this.#textEnd);
    else if (kind === BASE64URL_TEXT) packBase64Url(text, bytes, this.#textEnd);
    else for (let offset = 0, at = this.#textEnd; offset < text.length; offset++, at++) bytes[at] = text.charCodeAt(offset);
    if (this.#textAt) {
      if (index % TEXTS_A_PLACE === 0) this.#textAt[index / TEXTS_A_PLACE] = this.#textEnd;
      this.#textLength![index] = (kind << LENGTH_BITS) | text.length;
    }
    this.#textEnd = end;
    this.#fitWhenFull(index);
    return true;
  }

  /** Keeps no text at `index` (the column's next one): its owner keeps it, in another form or elsewhere. */
  skip(index: number): void {
    this.#unlike(index);
    if (index % TEXTS_A_PLACE === 0) this.#textAt![index / TEXTS_A_PLACE] = this.#textEnd;
    this.#textLength![index] = ELSEWHERE;
    this.#fitWhenFull(index);
  }

  /** Whether the column keeps the text at `index` (otherwise its owner does). */
  keeps(index: number): boolean {
    return this.#textLength === undefined || this.#textLength[index] !== ELSEWHERE;
  }

  /** The text at `index` (one the column keeps), as a flat string. */
  read(index: number): string {
    // Through an array of codes: a view of the bytes, made for each text, cost half again as much.
    this.#readCodes(index);
    return String.fromCharCode.apply(null, codes);
  }

  /** Whether the text at `index` (one the column keeps) is `text`. */
  equals(index: number, text: string): boolean {
    if (text.length !== this.#lengthOf(index)) return false;
    this.#readCodes(index);
    for (let offset = 0; offset < text.length; offset++) if (codes[offset] !== text.charCodeAt(offset)) return false;
    return true;
  }

  /** The bytes of the texts, to spill (see `spill`). */
  get bytes(): Uint8Array {
    return this.#text.subarray(0, this.#textEnd);
  }

  /**
   * Lets go of the texts' bytes (`bytes`, which its owner wrote elsewhere): each text read
   * from now on is read through `read`. Where each text lies stays in memory.
   */
  spill(read: ReadSpilled): void {
    this.#spilled = read;
    this.#text = new Uint8Array(0);
  }

  /** Holds the texts' bytes again (`bytes`, as `bytes` gave them before `spill`). */
  unspill(bytes: Uint8Array): void {
    this.#spilled = undefined;
    this.#text = bytes;
  }

  /** Forgets the texts from `index` on (those of keys a write that failed added, or all of them to use the column again). */
  dropFrom(index: number): void {
    if (this.#spilled && index > 0) throw new Error('A spilled column keeps its texts: take it back first (see unspill).');
    if (index === 0) {
      this.#spilled = undefined;
      this.#textEnd = 0;
      this.#alike = NO_TEXT_YET;
      this.#textAt = undefined;
      this.#textLength = undefined;
    } else this.#textEnd = this.#endOf(index - 1);
  }

  /** After the column's last text, its texts will not grow again, so they keep no spare bytes. */
  #fitWhenFull(index: number): void {
    if (index === this.#size - 1 && this.#textEnd < this.#text.length) this.#text = this.#text.slice(0, this.#textEnd);
  }

  /**
   * From the text at `index` on, the texts are no longer alike: where each of the texts
   * before it lies (one after another, each as long) is written down, as every later one's will be.
   */
  #unlike(index: number): void {
    if (this.#textAt !== undefined) return;
    const textAt = new Uint32Array(Math.ceil(this.#size / TEXTS_A_PLACE));
    const textLength = new Uint16Array(this.#size);
    if (this.#alike >= 0) {
      for (let before = 0; before < index; before += TEXTS_A_PLACE) textAt[before / TEXTS_A_PLACE] = this.#placeOf(before) & PLACE;
      textLength.fill(this.#alike, 0, index);
    }
    this.#textAt = textAt;
    this.#textLength = textLength;
    this.#alike = UNLIKE;
  }

  /** Where the text at `index` starts in `#text`, its kind in the two high bits. */
  #placeOf(index: number): number {
    const textAt = this.#textAt;
    if (textAt === undefined) {
      const kind = this.#alike >>> LENGTH_BITS;
      return ((index * bytesOf(kind, this.#alike & 255)) | (kind << KIND_SHIFT)) >>> 0;
    }
    const first = index - (index % TEXTS_A_PLACE);
    let at = textAt[first / TEXTS_A_PLACE]!;
    for (let before = first; before < index; before++) at += this.#bytesAt(before);
    return (at | ((this.#textLength![index]! >>> LENGTH_BITS) << KIND_SHIFT)) >>> 0;
  }

  /** Where the text at `index` ends in `#text`: where the next one starts. */
  #endOf(index: number): number {
    return (this.#placeOf(index) & PLACE) + this.#bytesAt(index);
  }

  /** The bytes the text at `index` takes in `#text`: none for one the column does not keep. */
  #bytesAt(index: number): number {
    const entry = this.#textLength === undefined ? this.#alike : this.#textLength[index]!;
    return entry === ELSEWHERE ? 0 : bytesOf(entry >>> LENGTH_BITS, entry & 255);
  }

  /** The length in characters of the text at `index`. */
  #lengthOf(index: number): number {
    return (this.#textLength === undefined ? this.#alike : this.#textLength[index]!) & 255;
  }

  /** Sets `codes` to the character codes of the text at `index` (one the column keeps). */
  #readCodes(index: number): void {
    const length = this.#lengthOf(index);
    const place = this.#placeOf(index);
    let at = place & PLACE;
    const kind = place >>> KIND_SHIFT;
    let text = this.#text;
    if (this.#spilled) {
      text = this.#spilled(at, this.#bytesAt(index));
      at = 0;
    }
    if (kind === UUID_TEXT) unpackUuid(text, at, codes);
    else if (kind === HEX_TEXT) unpackHex(text, at, length, codes);
    else if (kind === BASE64URL_TEXT) unpackBase64Url(text, at, length, codes);
    else {
      codes.length = length;
      for (let offset = 0; offset < length; offset++) codes[offset] = text[at + offset]!;
    }
  }
}
