/** @module The scratch file a data file's older Idempotency-Keys keep their texts, digests and animals in, out of memory. */
import fs from 'node:fs';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { NEW_FILE_MODE, tempPath } from '../durableFile/index.js';
import type { KeySpill } from '../IdempotencyKeys.js';

/** Dead bytes at the file's start below this are left alone: moving them would cost more than they do. */
const LEAST_RECLAIMED_BYTES = 1024 * 1024;

/** How many bytes one step of copying the live bytes reads and writes. */
const MOVE_BYTES = 1024 * 1024;

/**
 * A file of its own beside the data file (a temp file's name, see `tempPath`), removed as
 * soon as it is open: the kernel keeps it while this process holds it, and drops it when
 * the process ends, however it ends, so nothing is left to clean and nothing else sees it.
 * (Where a file cannot be removed while open, it is removed at `close`, and a start
 * sweeps one a crash left, as it sweeps temp files.)
 *
 * It holds a copy, not the record: every key is in the data file or its journal, and a
 * start reads them from there. So nothing here is synced to disk, and a failed write only
 * keeps the chunk's bytes in memory (`write` answers `undefined`).
 *
 * Chunks are written at its end and leave from its front (the queue's order), so what no
 * chunk reads is the file's start: once that is at least a megabyte and as large as the
 * rest, the rest is copied into a new file and the old one dropped. Places are counted
 * from the first file's start, so a chunk's place never changes.
 */
export class KeySpillFile implements KeySpill {
  readonly #dataFile: string;
  /** The file, and its name while it could not be removed (removed at `close`). */
  #file: OpenedFile;
  /** The place of the file's first byte. */
  #start = 0;
  /** The place after the last byte written. */
  #end = 0;
  /** The place of the first byte a chunk may still read. */
  #live = 0;
  readonly #scratch = Buffer.alloc(4096);

  private constructor(dataFile: string, file: OpenedFile) {
    this.#dataFile = dataFile;
    this.#file = file;
  }

  /** A new spill file beside `dataFile`, or `undefined` when none can be made (the keys then stay in memory). */
  static open(dataFile: string): KeySpillFile | undefined {
    const opened = openRemoved(dataFile);
    return opened && new KeySpillFile(dataFile, opened);
  }

  write(bytes: Uint8Array): number | undefined {
    try {
      writeBytesAt(this.#file.fd, bytes, this.#end - this.#start);
    } catch {
      // Whatever the partial write left past `#end` is written over by the next one.
      return undefined;
    }
    const at = this.#end;
    this.#end += bytes.length;
    return at;
  }

  read(at: number, length: number): Uint8Array {
    if (at < this.#live || at + length > this.#end) throw new Error(`No chunk's bytes lie at ${at} (${length} bytes).`);
    // A key's text or digest is read into the scratch; a chunk's bytes (taken back whole, rarely) into a buffer of their own.
    const into = length <= this.#scratch.length ? this.#scratch.subarray(0, length) : Buffer.allocUnsafe(length);
    try {
      readBytesAt(this.#file.fd, into, at - this.#start);
    } catch (error) {
      throw new AnimalStoreError(
        'storage_unavailable',
        `The Idempotency-Keys kept beside the data file ${this.#dataFile} cannot be read, so the key could not be checked; nothing was stored.`,
        { cause: error },
      );
    }
    return into;
  }

  releaseBefore(at: number): void {
    this.#live = Math.min(Math.max(this.#live, at), this.#end);
    const dead = this.#live - this.#start;
    if (dead >= LEAST_RECLAIMED_BYTES && dead >= this.#end - this.#live) this.#reclaim();
  }

  /** Says no chunk reads any byte written so far (the queue that wrote them was replaced). */
  releaseAll(): void {
    this.releaseBefore(this.#end);
  }

  /** The bytes the file holds, live or not. */
  get size(): number {
    return this.#end - this.#start;
  }

  /** Closes the file, which the kernel then drops. */
  close(): void {
    closeRemoved(this.#file);
  }

  /** Copies the live bytes into a new file and drops the old one; on any failure, keeps the old one as it was. */
  #reclaim(): void {
    const opened = openRemoved(this.#dataFile);
    if (opened === undefined) return;
    // A buffer of its own, dropped after: the scratch stays as small as a chunk's reads.
    const buffer = Buffer.alloc(Math.min(MOVE_BYTES, this.#end - this.#live));
    try {
      for (let from = this.#live; from < this.#end; from += buffer.length) {
        const length = Math.min(buffer.length, this.#end - from);
        readBytesAt(this.#file.fd, buffer.subarray(0, length), from - this.#start);
        writeBytesAt(opened.fd, buffer.subarray(0, length), from - this.#live);
      }
    } catch {
      closeRemoved(opened);
      return;
    }
    closeRemoved(this.#file);
    this.#file = opened;
    this.#start = this.#live;
  }
}

/** An open spill file, and its name where the system could not remove it while open. */
interface OpenedFile {
  fd: number;
  path: string | undefined;
}

/** A new file beside `dataFile`, removed at once where the system allows it (`path` is then undefined), or `undefined`. */
const openRemoved = (dataFile: string): OpenedFile | undefined => {
  const path = tempPath(dataFile);
  let fd: number;
  try {
    fd = fs.openSync(path, 'wx+', NEW_FILE_MODE);
  } catch {
    return undefined;
  }
  try {
    fs.unlinkSync(path);
    return { fd, path: undefined };
  } catch {
    return { fd, path };
  }
};

/** Closes a file `openRemoved` made, and removes it if it is still there. */
const closeRemoved = ({ fd, path }: OpenedFile): void => {
  fs.closeSync(fd);
  if (path) fs.rmSync(path, { force: true });
};

/** Fills `into` with the bytes from `position` on, synchronously. */
const readBytesAt = (fd: number, into: Uint8Array, position: number): void => {
  for (let done = 0; done < into.length; ) {
    const read = fs.readSync(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new Error('the file ended early');
    done += read;
  }
};

/** Writes all of `bytes` at `position`, synchronously (the async kin, for whole writes, are in durableFile/fileBytes.ts). */
const writeBytesAt = (fd: number, bytes: Uint8Array, position: number): void => {
  for (let done = 0; done < bytes.length; ) {
    const written = fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
    // A full tmpfs may count a short write without an error: stop rather than try forever.
    if (written === 0) throw new Error(`wrote ${done} of ${bytes.length} bytes`);
    done += written;
  }
};
