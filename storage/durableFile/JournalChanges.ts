/** @module A journal's changes as read: their bytes, each change's text made only when it is replayed. */
import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { freeableBuffer, freeBuffer } from './freeableBuffer.js';

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

/** A journal's changes, oldest first: a `JournalChanges`, or an array of them. */
export type Changes = Iterable<string> & { readonly length: number };

/** A journal's changes as another thread is sent them: bytes that were checked, and where each line ends. */
export interface LentChanges {
  bytes: Uint8Array;
  ends: number[];
}

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
  /** The journal the bytes were read from, when known: `readable` reads them there again once they were lent. */
  readonly #file: string | undefined;

  private constructor(bytes: Uint8Array, ends: number[], file: string | undefined) {
    this.#bytes = bytes;
    this.#ends = ends;
    this.#file = file;
  }

  /** The whole lines of `bytes`, read from the journal `file`, that check, from the first on; the rest is a torn tail (see `validBytes`). */
  static read(bytes: Uint8Array, file?: string): JournalChanges {
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
    return new JournalChanges(bytes, ends, file);
  }

  /** Changes another thread lent (see `lend`), checked there already. */
  static borrowed({ bytes, ends }: LentChanges): JournalChanges {
    return new JournalChanges(bytes, ends, undefined);
  }

  /** How many changes. */
  get length(): number {
    return this.#ends.length;
  }

  /** How many bytes the whole lines take from the start: past them the bytes are a torn tail. */
  get validBytes(): number {
    return this.#ends.length === 0 ? 0 : this.#ends.at(-1)! + 1;
  }

  /** How many of the first changes lie wholly within the first `bytes` bytes. */
  countWithin(bytes: number): number {
    let [low, high] = [0, this.#ends.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#ends[middle]! < bytes) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The changes after the first `count` (the bytes are still these changes', and freed with them). */
  after(count: number): Changes {
    return { length: Math.max(0, this.length - count), [Symbol.iterator]: () => this.#texts(count) };
  }

  /**
   * The first `count` changes (all by default) for another thread: its message, and the
   * buffer to transfer. All of them, in a buffer of their own, move (not copied) and are then
   * this object's no more (see `readable`); fewer are copied into a buffer of their own, and
   * these stay readable. `undefined` when there are none to lend, or they were lent already.
   */
  lend(count = this.length): { changes: LentChanges; transfer: ArrayBuffer[] } | undefined {
    count = Math.min(count, this.length);
    if (count <= 0 || this.#lent) return undefined;
    const { buffer } = this.#bytes;
    // Only a freeable buffer (see `freeableBuffer`) is surely all theirs: a small Buffer may share a pool.
    if (count === this.length && buffer instanceof ArrayBuffer && buffer.resizable) {
      return { changes: { bytes: this.#bytes, ends: this.#ends }, transfer: [buffer] };
    }
    const bytes = freeableBuffer(this.#ends[count - 1]! + 1);
    bytes.set(this.#bytes.subarray(0, bytes.byteLength));
    return { changes: { bytes, ends: this.#ends.slice(0, count) }, transfer: [bytes.buffer as ArrayBuffer] };
  }

  /** Whether the bytes went to another thread (`lend`): moved, they are no longer here. */
  get #lent(): boolean {
    return this.#bytes.byteLength === 0 && this.#ends.length > 0;
  }

  /** These changes, or, once lent, the same read again from their journal (a journal is not written before a start has replayed it). */
  async readable(): Promise<JournalChanges> {
    if (!this.#lent) return this;
    const file = this.#file;
    if (file === undefined) throw new Error('the journal was lent to another thread and cannot be read again');
    const again = JournalChanges.read(await readFile(file), file);
    if (again.validBytes !== this.validBytes) throw new Error(`the journal ${file} changed while it was read`);
    return again;
  }

  /** Each change's text, oldest first. */
  [Symbol.iterator](): Iterator<string> {
    return this.#texts(0);
  }

  /** The text of each change from the one at `first` on. */
  *#texts(first: number): Generator<string> {
    if (this.#lent) throw new Error('the journal was lent to another thread: read it again (readable)');
    const text = Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
    let at = first === 0 ? 0 : this.#ends[first - 1]! + 1;
    for (const end of this.#ends.slice(first)) {
      yield text.toString('utf8', at + CHANGE_OFFSET, end);
      at = end + 1;
    }
  }

  /** Gives the bytes' memory back now, when they are in a freeable buffer (see `freeBuffer`): for their owner, once replayed. */
  free(): void {
    if (!this.#lent) freeBuffer(this.#bytes);
  }
}

/** No changes: a journal that is missing or empty. */
export const NO_CHANGES = JournalChanges.read(new Uint8Array(0));
