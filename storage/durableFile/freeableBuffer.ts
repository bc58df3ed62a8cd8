/**
 * @module Buffers for a whole write's passing bytes, whose memory goes back to the system
 * the moment their owner frees them rather than when the collector gets to them.
 */

/**
 * A whole write needs some bytes for a moment only: the megabyte it reads and copies
 * through, the bytes of the animals it encodes ahead, the journal's later lines it copies.
 * An ordinary Buffer of that size lives outside the heap until a full collection finds its
 * object dead, and a whole write lasts long enough for its objects to reach the old
 * generation: after one, a server under keyed creates held 9 to 16 MB of such garbage for
 * as long as no full collection came, more than the memory of the keys the write was for.
 * A resizable ArrayBuffer gives its pages back at once when resized to nothing, so these
 * buffers are made on one, and `freeBuffer` does that.
 */
export const freeableBuffer = (length: number): Buffer => Buffer.from(new ArrayBuffer(length, { maxByteLength: length }), 0, length);

/** A text's UTF-8 bytes in a freeable buffer. */
export const freeableBytes = (text: string): Buffer => {
  const bytes = freeableBuffer(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
};

/**
 * Gives a `freeableBuffer`'s memory back now. Every view of it is empty from then on (no
 * byte can be read or written through it), so only its owner frees it, once nothing reads
 * it any more. Other buffers are left to the collector.
 */
export const freeBuffer = (bytes: Uint8Array): void => {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && buffer.resizable) buffer.resize(0);
};
