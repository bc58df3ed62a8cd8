/** @module The bytes of the data file's Idempotency-Keys, encoded in chunks ahead of a whole write. */
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { IdempotencyKeys } from '../IdempotencyKeys.js';
import { CLOSE_BRACE, COMMA, NEWLINE, OPEN_BRACE } from './jsonBytes.js';
import { keyJson } from './PetFileData.js';

/** One key's line, after the separator every line but the file's first key has. */
export const keyLine = (stored: StoredIdempotencyKey): string => `,\n${keyJson(stored)}`;

/** The encoded lines of keys `start` to `end` (sequence numbers), and where each line starts. */
interface KeyPiece {
  start: number;
  end: number;
  bytes: Buffer;
  /** The byte offset of each key's line in `bytes`. */
  offsets: number[];
}

/** Pieces of fewer keys than this are joined with their neighbours, so a file at 100,000 keys is ~100 buffers. */
const JOIN_BELOW = 1024;

/** How many small pieces may stand apart before they are joined (each write of a few keys makes one). */
const MAX_SMALL_PIECES = 64;

/**
 * The keys' part of the file as buffers for one `writev`, from the pieces encoded before
 * (by `prepare`, a thousand keys a turn of the event loop, so a whole write at 100,000 keys
 * does not stall creates): keys join the queue at its back and leave from its front, so a
 * write encodes only the keys added since the pieces were made, and drops the expired ones
 * by starting its first buffer past their lines (a view, not a copy). Its owner drops the
 * pieces after the write (`forget`): kept, they would cost more memory than the keys.
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
  lines(keys: IdempotencyKeys): Buffer[] {
    this.#encodeUpTo(keys, keys.end);
    const buffers: Buffer[] = [];
    for (const { start, bytes, offsets } of this.#pieces) {
      buffers.push(start < keys.first ? bytes.subarray(offsets[keys.first - start]) : bytes);
    }
    if (buffers.length > 0) buffers[0] = buffers[0]!.subarray(1);
    return buffers.filter((buffer) => buffer.byteLength > 0);
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
   * Takes `lines.bytes` as the lines of keys `lines.start` to `lines.end` (each line's
   * offset in `lines.offsets`), made elsewhere as `keyLine` makes them (read back from the
   * journal): answers false, taking nothing, unless they are the next keys to encode.
   */
  append(keys: IdempotencyKeys, { start, end, bytes, offsets }: { start: number; end: number; bytes: Buffer; offsets: number[] }): boolean {
    if (start !== this.encodedEnd(keys) || end > keys.end || start >= end || offsets.length !== end - start) return false;
    this.#pieces.push({ start, end, bytes, offsets });
    this.#join();
    return true;
  }

  /**
   * Takes `bytes` as the lines of keys `start` to `end` of `keys` as a whole write put them
   * in the file and the file gave them back, from the byte before the first line (the file's
   * first line has no separator's comma: that byte becomes it): the keys the next write
   * still holds are then not encoded again. Answers false, taking nothing, unless nothing is
   * encoded yet and `bytes` are exactly `end - start` lines of one key each (a check of the
   * separators, not of each key: the file they come from was checked to be the one written,
   * unchanged).
   */
  reuse(keys: IdempotencyKeys, start: number, end: number, bytes: Buffer): boolean {
    // Nothing encoded yet: the encoded end is the queue's first key.
    if (this.encodedEnd(keys) !== keys.first || start > keys.first || start >= end || end > keys.end) return false;
    const offsets: number[] = [];
    bytes[0] = COMMA;
    if (bytes[1] !== NEWLINE || bytes[2] !== OPEN_BRACE || bytes.at(-1) !== CLOSE_BRACE) return false;
    offsets.push(0);
    for (let newline = bytes.indexOf(NEWLINE, 2); newline !== -1; newline = bytes.indexOf(NEWLINE, newline + 1)) {
      // A key's text holds no raw line break (JSON escapes it), so each one starts a line.
      if (bytes[newline - 2] !== CLOSE_BRACE || bytes[newline - 1] !== COMMA || bytes[newline + 1] !== OPEN_BRACE) return false;
      offsets.push(newline - 1);
      if (offsets.length > end - start) return false;
    }
    if (offsets.length !== end - start) return false;
    this.#pieces.push({ start, end, bytes, offsets });
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
    this.#pieces.push({ start, end, bytes, offsets });
    this.#join();
  }

  /** Joins the small pieces before the last (which stays apart, to be cut back alone) once there are enough of them. */
  #join(): void {
    const last = this.#pieces.length - 1;
    let from = last;
    while (from > 0 && this.#pieces[from - 1]!.end - this.#pieces[from - 1]!.start < JOIN_BELOW) from--;
    const small = this.#pieces.slice(from, last);
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
