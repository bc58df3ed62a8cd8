/** @module The pieces of a whole write: bytes in memory, or bytes made while the write runs, a bounded piece at a time. */
import { freeableBuffer, freeBuffer } from './freeableBuffer.js';

/**
 * What a deferred part may do while its whole write runs: add bytes to the new file, and
 * read back bytes of the file being replaced and of its journal (bytes that were written
 * once already, so the new file copies them rather than holding them in memory).
 */
export interface WholeWrite {
  /** Writes `bytes` after everything written before; `bytes` may be reused once this resolves. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * `length` bytes from `offset` of the file being replaced, as this process last wrote or
   * read it, into `into` when it is large enough. Throws a FileChangedError when the file
   * was edited since.
   */
  readOwnBytes(offset: number, length: number, into?: Buffer): Promise<Buffer>;
  /** Bytes this process appended to the journal (see `Journal.readBytes`), into `into` when large enough; throws when it no longer holds them. */
  readJournalBytes(generation: number, offset: number, length: number, into?: Buffer): Promise<Buffer>;
  /** Buffers the write's deferred parts share as they run, one after another; the write frees them when it ends. */
  scratch: Scratch;
}

/** What a whole write reads back from: the file it replaces, and its journal. */
export type ReadBack = Pick<WholeWrite, 'readOwnBytes' | 'readJournalBytes'>;

/**
 * Bytes a whole write makes as it runs, through `writeTo`: exactly `byteLength` of them.
 * A file of 100 MB is then written with a few megabytes in memory, not 100 MB that the C
 * library keeps after they are freed.
 */
export interface DeferredPart {
  readonly byteLength: number;
  writeTo(whole: WholeWrite): Promise<void>;
}

/** A piece of a whole write, in the order written. */
export type FilePart = Uint8Array | DeferredPart;

/** How many bytes the parts hold. */
export const byteLengthOf = (parts: readonly FilePart[]): number => parts.reduce((sum, part) => sum + part.byteLength, 0);

/** The bytes of `parts` laid end to end, each deferred one made through `reading`: for tests and small files. */
export const bytesOfParts = async (parts: readonly FilePart[], reading: ReadBack): Promise<Buffer> => {
  const pieces: Buffer[] = [];
  const write = async (bytes: Uint8Array) => {
    pieces.push(Buffer.from(bytes));
  };
  const scratch = new Scratch();
  try {
    for (const part of parts) {
      if (part instanceof Uint8Array) pieces.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
      else await part.writeTo({ ...reading, write, scratch });
    }
  } finally {
    scratch.free();
  }
  return Buffer.concat(pieces);
};

/** How many bytes a deferred part copies at a time. */
export const COPY_PIECE_BYTES = 1024 * 1024;

/**
 * Two buffers reused by the deferred parts of one whole write (which run one after
 * another), grown when a piece needs more: one for bytes read back, one for bytes made from
 * them. A whole write then allocates a few megabytes once, not a buffer per piece, and
 * their owner frees them when it is done (see `freeableBuffer`): the whole write when it
 * ends, a preparation when it ends. Not a part: a write of many parts that each freed and
 * allocated again spent more time giving pages back and faulting them in again than on
 * its copies. A buffer given out is valid until the next call for the same kind, or `free`.
 */
export class Scratch {
  #read: Buffer | undefined;
  #made: Buffer | undefined;

  /** A buffer of `length` bytes to read into. */
  read(length: number): Buffer {
    this.#read = fitting(this.#read, length);
    return this.#read.subarray(0, length);
  }

  /** A buffer of `length` bytes to make bytes in, apart from `read`'s. */
  made(length: number): Buffer {
    this.#made = fitting(this.#made, length);
    return this.#made.subarray(0, length);
  }

  /** Gives both buffers' memory back; the next `read` or `made` allocates anew. */
  free(): void {
    for (const bytes of [this.#read, this.#made]) if (bytes) freeBuffer(bytes);
    this.#read = undefined;
    this.#made = undefined;
  }
}

/** `bytes` when it holds `length` bytes, or a new freeable buffer that does (the old one freed). */
const fitting = (bytes: Buffer | undefined, length: number): Buffer => {
  if (bytes && bytes.byteLength >= length) return bytes;
  if (bytes) freeBuffer(bytes);
  return freeableBuffer(Math.max(length, COPY_PIECE_BYTES));
};

/** `length` bytes from `offset` of the file being replaced, copied into the new one a piece at a time. */
export const copyOwnBytes = (offset: number, length: number): DeferredPart => ({
  byteLength: length,
  async writeTo(whole) {
    for (let done = 0; done < length; done += COPY_PIECE_BYTES) {
      const piece = Math.min(COPY_PIECE_BYTES, length - done);
      await whole.write(await whole.readOwnBytes(offset + done, piece, whole.scratch.read(piece)));
    }
  },
});
