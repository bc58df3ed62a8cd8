/** @module The bytes of the data file's Idempotency-Keys, encoded in chunks ahead of a whole write. */
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import { copyOwnBytes, type FilePart, type Scratch } from '../../durableFile/index.js';
import type { IdempotencyKeys } from '../../IdempotencyKeys.js';
import { CLOSE_BRACE } from '../format/jsonBytes.js';
import { keyJson } from '../format/PetFileData.js';
import type { KeyLinesInJournal } from './JournalKeys.js';
import { type ReadOwnBytes, walkListLines } from './listLines.js';

/** One key's line, after the separator every line but the file's first key has. */
export const keyLine = (stored: StoredIdempotencyKey): string => `,\n${keyJson(stored)}`;

/** The encoded lines of keys `start` to `end`, and where each line starts. */
interface EncodedPiece {
  start: number;
  end: number;
  bytes: Buffer;
  /** The byte offset of each key's line in `bytes`. */
  offsets: number[];
}

/**
 * The lines of keys `start` to `end` as the file or the journal holds them, copied as the
 * whole write runs: `copy` makes the lines from key `from` on (the first without its comma
 * when it is the document's first line), or answers `undefined` when it does not know where
 * that key's line starts (the lines from there on are then encoded).
 */
interface CopiedPiece {
  start: number;
  end: number;
  copy(from: number, first: boolean): FilePart[] | undefined;
}

type KeyPiece = EncodedPiece | CopiedPiece;

const isEncoded = (piece: KeyPiece): piece is EncodedPiece => 'bytes' in piece;

/** Pieces of fewer keys than this are joined with their neighbours, so a file at 100,000 keys is ~100 buffers. */
const JOIN_BELOW = 1024;

/** How many small pieces may stand apart before they are joined (each write of a few keys makes one). */
const MAX_SMALL_PIECES = 64;

/** The comma a copied line needs where the file's first line had the list's bracket. */
const SEPARATOR = Buffer.from(',');

/**
 * The keys' part of the file for a whole write, from the pieces made before (by `prepare`,
 * a thousand keys a turn of the event loop, so a whole write at 100,000 keys does not stall
 * creates): keys join the queue at its back and leave from its front, so a write encodes
 * only the keys added since the pieces were made, and drops the expired ones by starting
 * past their lines. The lines the last whole write put in the file (`reuse`) and those the
 * journal holds (`append`) are not held at all: they are copied from there as the write
 * runs, a megabyte at a time. Its owner drops the pieces after the write (`forget`): kept,
 * they would cost more memory than the keys.
 *
 * It trusts its owner (the file's content, the only writer of the queue) to say when keys
 * it has encoded leave from the back (`forgetFrom`, after a failed write) or the queue is
 * replaced (`forget`, after an edit is read).
 */
export class KeyLines {
  #queue: IdempotencyKeys | undefined;
  #pieces: KeyPiece[] = [];
  #encodedBytes = 0;

  /** How many bytes of key lines were encoded so far (the rest of each write is reused bytes). */
  get encodedBytes(): number {
    return this.#encodedBytes;
  }

  /** The lines of every key in `keys`, the first without its separator; new keys are encoded now. */
  lines(keys: IdempotencyKeys): FilePart[] {
    this.#encodeUpTo(keys, keys.end);
    const parts: FilePart[] = [];
    for (const piece of this.#pieces) {
      const first = parts.length === 0;
      if (!isEncoded(piece)) {
        const from = Math.max(piece.start, keys.first);
        const copied = piece.copy(from, first);
        if (copied) parts.push(...copied);
        // Keys a copied piece cannot find the lines of: encoded for this write alone.
        else parts.push(this.#encode(keys, from, piece.end).bytes.subarray(first ? 1 : 0));
        continue;
      }
      const { start, bytes, offsets } = piece;
      const lines = start < keys.first ? bytes.subarray(offsets[keys.first - start]) : bytes;
      parts.push(first ? lines.subarray(1) : lines);
    }
    return parts.filter((part) => part.byteLength > 0);
  }

  /**
   * Encodes the keys not encoded yet, a thousand per turn of the event loop, so the first
   * write after opening a file of many keys costs what later ones cost. Stops when
   * `stopped()` says so.
   */
  async prepare(keys: IdempotencyKeys, stopped: () => boolean, upTo = keys.end): Promise<void> {
    for (let end = this.encodedEnd(keys); end < Math.min(upTo, keys.end) && !stopped(); end = this.encodedEnd(keys)) {
      this.#encodeUpTo(keys, Math.min(upTo, keys.end, end + JOIN_BELOW));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Takes `lines` as the lines of keys `lines.start` to `lines.end`, found in the journal
   * (see JournalKeys): answers false, taking nothing, unless they are the next keys to encode.
   */
  append(keys: IdempotencyKeys, lines: KeyLinesInJournal): boolean {
    const { start, end } = lines;
    if (start !== this.encodedEnd(keys) || end > keys.end || start >= end) return false;
    this.#pieces.push({ start, end, copy: (from, first) => [lines.copy(from, first)] });
    return true;
  }

  /**
   * Takes the `length` bytes from `offset` of the file as the lines of keys `start` to `end`
   * of `keys`, as a whole write put them there (`offset` is the first line's line break; the
   * byte before it, the list's bracket): the next write copies them from the file instead
   * of encoding them again, from the first key still live. The file is read through `read`
   * only as far as the lines of the keys that left the queue's front since, and a megabyte
   * past them, to find where each of those lines starts; and at its last byte. Nothing is
   * kept of its bytes, and the lines past those are not read now: each read checks that
   * the file is still the version this process wrote, unchanged, so they are as written.
   * (Reading them all made a clean stop at 355,000 keys read 90 MB twice.) Should more keys
   * leave before the write than the lines found, the write encodes the rest (see `lines`).
   * Answers false, taking nothing, unless nothing is encoded yet and the lines read are
   * lines of one key each (a check of the separators, not of each key), or when `stopped()`
   * says so once the reads are done. Reads through `scratch`, which its caller frees.
   */
  async reuse(
    keys: IdempotencyKeys,
    { start, end, offset, length }: { start: number; end: number; offset: number; length: number },
    read: ReadOwnBytes,
    stopped: () => boolean,
    scratch: Scratch,
  ): Promise<boolean> {
    const fits = () =>
      this.encodedEnd(keys) === keys.first && this.#pieces.length === 0 && start <= keys.first && keys.first < end && end <= keys.end;
    // From the byte before the first line: the list's bracket, which each line's offset counts from.
    const total = length + 1;
    if (!fits() || total >= 2 ** 32) return false;
    const expired = keys.first - start;
    // Where each line starts: the bracket before the first, the comma before each other.
    const offsets: number[] = [];
    const line = (position: number) => {
      if (offsets.length === end - start) return false;
      offsets.push(position - 1);
      return true;
    };
    const reached = await walkListLines(read, offset - 1, total, scratch, line, { stopped, more: () => offsets.length <= expired });
    if (reached === undefined) return false;
    const readToEnd = reached >= total;
    if (!readToEnd && (await read(offset + length - 1, 1, scratch.read(1)))?.[0] !== CLOSE_BRACE) return false;
    // The queue may have moved on while the file was read (its front, what was encoded), or a whole write replaced the file.
    if ((readToEnd && offsets.length !== end - start) || stopped() || !fits()) return false;
    const found = Uint32Array.from(offsets);
    const listStart = offset - 1;
    const listEnd = offset + length;
    this.#pieces.push({
      start,
      end,
      copy: (from, first) => {
        if (from - start >= found.length) return undefined;
        // From the line's line break: the first line in the file follows the bracket, not a comma.
        const lineBreak = listStart + found[from - start]! + 1;
        const lines = copyOwnBytes(lineBreak, listEnd - lineBreak);
        return first ? [lines] : [SEPARATOR, lines];
      },
    });
    return true;
  }

  /** Forgets the lines of keys from sequence number `sequence` on, which are about to change. */
  forgetFrom(sequence: number): void {
    while ((this.#pieces.at(-1)?.end ?? 0) > sequence) this.#pieces.pop();
  }

  /** Forgets every line (the queue was replaced). */
  forget(): void {
    this.#queue = undefined;
    this.#pieces = [];
  }

  /** Where the encoded lines end (the sequence number of the first key not encoded), after dropping those of keys that have left the queue. */
  encodedEnd(keys: IdempotencyKeys): number {
    if (keys !== this.#queue) {
      this.forget();
      this.#queue = keys;
    }
    while (this.#pieces.length > 0 && this.#pieces[0]!.end <= keys.first) this.#pieces.shift();
    return Math.max(this.#pieces.at(-1)?.end ?? keys.first, keys.first);
  }

  #encodeUpTo(keys: IdempotencyKeys, end: number): void {
    const start = this.encodedEnd(keys);
    if (start >= end) return;
    if (this.#pieces.length > 0 && this.#pieces.at(-1)!.end !== start) this.#pieces = [];
    this.#pieces.push(this.#encode(keys, start, end));
    this.#join();
  }

  /** The lines of keys `start` to `end`, encoded now, and where each starts. */
  #encode(keys: IdempotencyKeys, start: number, end: number): EncodedPiece {
    let text = '';
    const offsets: number[] = [];
    for (let sequence = start; sequence < end; sequence++) {
      offsets.push(text.length);
      const line = keyLine(keys.at(sequence));
      // Made flat now (a template's text is a tree of its parts): one tree per line would make the piece's a tree of millions.
      line.charCodeAt(0);
      text += line;
    }
    const bytes = Buffer.from(text);
    // Offsets were counted in characters: the same as bytes when every character took one
    // (ASCII, as the service's keys are); else each line's bytes are counted in the text.
    if (bytes.byteLength !== text.length) {
      for (let line = 1, character = 0; line < offsets.length; line++) {
        const next = offsets[line]!;
        offsets[line] = offsets[line - 1]! + Buffer.byteLength(text.slice(character, next));
        character = next;
      }
    }
    this.#encodedBytes += bytes.byteLength;
    return { start, end, bytes, offsets };
  }

  /** Joins the small encoded pieces before the last (which stays apart, to be cut back alone) once there are enough of them. */
  #join(): void {
    const last = this.#pieces.length - 1;
    let from = last;
    while (from > 0 && isSmallEncoded(this.#pieces[from - 1]!)) from--;
    const small = this.#pieces.slice(from, last) as EncodedPiece[];
    if (small.length < 2 || (small.length < MAX_SMALL_PIECES && small.at(-1)!.end - small[0]!.start < JOIN_BELOW)) return;
    const offsets: number[] = [];
    let at = 0;
    for (const piece of small) {
      for (const offset of piece.offsets) offsets.push(at + offset);
      at += piece.bytes.byteLength;
    }
    const joined = { start: small[0]!.start, end: small.at(-1)!.end, bytes: Buffer.concat(small.map(({ bytes }) => bytes)), offsets };
    this.#pieces.splice(from, small.length, joined);
  }
}

const isSmallEncoded = (piece: KeyPiece): piece is EncodedPiece => isEncoded(piece) && piece.end - piece.start < JOIN_BELOW;
