/** @module A journal's changes as read: their bytes, each change's text made only when it is replayed. */
import { hash } from 'node:crypto';
import { freeBuffer } from './freeableBuffer.js';

/** The bytes before a change's text in its line: the checksum (16 hex digits) and a space. */
export const CHANGE_OFFSET = 17;

const SPACE = 0x20;
const LINE_BREAK = 0x0a;

/**
 * The first 16 hex digits of the SHA-256 of a change's UTF-8 bytes: enough to tell a whole
 * line from a torn or damaged one. Node's one-shot hash, which every append and every line
 * read at a start makes: no Hash object to build and collect each time.
 */
export const checksumOf = (change: string | Uint8Array): string => hash('sha256', change, 'hex').slice(0, 16);

/**
 * The changes of a journal's whole lines (`<checksum> <change>\n`), oldest first, read and
 * checked at once but kept as the journal's bytes: each change's text is made as it is
 * replayed. A start reads the journal before the file (it cuts a torn line first) and
 * replays it after; a journal of tens of megabytes held as strings meanwhile was copied to
 * the old generation by the collections of the file's parse, a second copy on fresh pages.
 * Bytes outside the heap are neither copied nor scanned; a change's text dies young.
 */
export class JournalChanges implements Iterable<string> {
  readonly #bytes: Uint8Array;
  /** Where each whole line's line break is. */
  readonly #ends: number[];

  /** The whole lines of `bytes` that check, from the first on; the rest is a torn tail (see `validBytes`). */
  constructor(bytes: Uint8Array) {
    const ends: number[] = [];
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    for (let end = text.indexOf(LINE_BREAK, at); end !== -1; end = text.indexOf(LINE_BREAK, at)) {
      if (end < at + CHANGE_OFFSET || text[at + CHANGE_OFFSET - 1] !== SPACE) break;
      const checksum = text.toString('latin1', at, at + CHANGE_OFFSET - 1);
      if (checksumOf(text.subarray(at + CHANGE_OFFSET, end)) !== checksum) break;
      ends.push(end);
      at = end + 1;
    }
    this.#bytes = text;
    this.#ends = ends;
  }

  /** How many changes. */
  get length(): number {
    return this.#ends.length;
  }

  /** How many bytes the whole lines take from the start: past them the bytes are a torn tail. */
  get validBytes(): number {
    return this.#ends.length === 0 ? 0 : this.#ends.at(-1)! + 1;
  }

  /** Each change's text, oldest first. */
  *[Symbol.iterator](): Iterator<string> {
    const text = this.#bytes as Buffer;
    let at = 0;
    for (const end of this.#ends) {
      yield text.toString('utf8', at + CHANGE_OFFSET, end);
      at = end + 1;
    }
  }

  /** Gives the bytes' memory back now, when they are in a freeable buffer (see `freeBuffer`): for their owner, once replayed. */
  free(): void {
    freeBuffer(this.#bytes);
  }
}

/** No changes: a journal that is missing or empty. */
export const NO_CHANGES = new JournalChanges(new Uint8Array(0));
