/** @module Bytes written to or read from an open file whole, or an error: never a silent short count. */
import type { FileHandle } from 'node:fs/promises';

/** Writes all the chunks to a handle. */
export const writeAll = async (handle: FileHandle, chunks: readonly Uint8Array[]): Promise<void> => {
  const { bytesWritten } = await handle.writev(chunks as Uint8Array[]);
  const expected = chunks.reduce((total, chunk) => total + chunk.byteLength, 0);
  // libuv writes until done or failed; a short count would be a bug below us, not a retry case.
  if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes`);
};

/** Reads `length` bytes from `position` of a handle; throws when the file ends before them. */
export const readAll = async (handle: FileHandle, position: number, length: number): Promise<Buffer> => {
  const bytes = Buffer.allocUnsafe(length);
  for (let done = 0; done < length; ) {
    const { bytesRead } = await handle.read(bytes, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`read ${done} of ${length} bytes`);
    done += bytesRead;
  }
  return bytes;
};
