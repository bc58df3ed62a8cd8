/** @module Bytes written to or read from an open file whole, or an error: never a silent short count. */
import type { FileHandle } from 'node:fs/promises';
import { byteLengthOf, type FilePart, type ReadBack, Scratch } from './FilePart.js';

/** The chunks without their first `skip` bytes. */
const after = (chunks: readonly Uint8Array[], skip: number): Uint8Array[] => {
  const rest: Uint8Array[] = [];
  for (const chunk of chunks) {
    if (skip >= chunk.byteLength) skip -= chunk.byteLength;
    else {
      rest.push(skip === 0 ? chunk : chunk.subarray(skip));
      skip = 0;
    }
  }
  return rest;
};

/** Writes all the chunks to a handle, after what it wrote before. */
const writeBuffers = async (handle: FileHandle, chunks: readonly Uint8Array[]): Promise<number> => {
  const expected = byteLengthOf(chunks);
  let rest = chunks as Uint8Array[];
  let done = 0;
  for (;;) {
    const { bytesWritten } = await handle.writev(rest);
    done += bytesWritten;
    if (done >= expected) return done;
    // A disk filling up writes what fits and counts it (tmpfs does): the rest is written
    // again, and that write fails saying why (ENOSPC), where the count alone could not.
    if (bytesWritten === 0) throw new Error(`wrote ${done} of ${expected} bytes`);
    rest = after(rest, bytesWritten);
  }
};

/**
 * Writes all the parts to a handle, in order: the bytes in memory a `writev` at a time,
 * each deferred part through `reading` as it makes its bytes. Throws when a deferred part
 * makes more or fewer bytes than it said, and when the parts in all wrote other than the
 * bytes they held as the write began (a part freed meanwhile: see `freeableBuffer`), so a
 * short file is never taken for a whole one.
 */
export const writeAll = async (handle: FileHandle, parts: readonly FilePart[], reading?: ReadBack): Promise<void> => {
  const expected = byteLengthOf(parts);
  let total = 0;
  let batch: Uint8Array[] = [];
  const scratch = new Scratch();
  try {
    for (const part of parts) {
      if (part instanceof Uint8Array) {
        batch.push(part);
        continue;
      }
      if (batch.length > 0) total += await writeBuffers(handle, batch);
      batch = [];
      if (!reading) throw new Error('a deferred part needs a file to read back from');
      let written = 0;
      await part.writeTo({
        ...reading,
        scratch,
        write: async (bytes) => {
          written += await writeBuffers(handle, [bytes]);
        },
      });
      if (written !== part.byteLength) throw new Error(`a part made ${written} of its ${part.byteLength} bytes`);
      total += written;
    }
  } finally {
    scratch.free();
  }
  if (batch.length > 0) total += await writeBuffers(handle, batch);
  if (total !== expected) throw new Error(`wrote ${total} of the ${expected} bytes its parts held as the write began`);
};

/** Reads up to `length` bytes from `position` of a handle, into `into` when it is large enough: fewer only where the file ends sooner. */
export const readUpTo = async (handle: FileHandle, position: number, length: number, into?: Buffer): Promise<Buffer> => {
  const bytes = into && into.byteLength >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(bytes, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return bytes.subarray(0, done);
};

/** Reads `length` bytes from `position` of a handle, into `into` when it is large enough; throws when the file ends before them. */
export const readAll = async (handle: FileHandle, position: number, length: number, into?: Buffer): Promise<Buffer> => {
  const bytes = await readUpTo(handle, position, length, into);
  if (bytes.byteLength < length) throw new Error(`read ${bytes.byteLength} of ${length} bytes`);
  return bytes;
};
