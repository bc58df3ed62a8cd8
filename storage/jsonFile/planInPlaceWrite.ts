/** @module Which bytes of a file differ between the bytes written last and the next ones, so only those are written. */

/** A run of bytes that changes: where it starts, its bytes before (up to the old end) and after (up to the new end). */
export interface ChangedRange {
  offset: number;
  before: Buffer;
  after: readonly Uint8Array[];
  /** The byte length of `after`. */
  length: number;
}

/** The changes that turn the old bytes into the new, and both lengths. */
export interface InPlacePlan {
  oldLength: number;
  newLength: number;
  ranges: ChangedRange[];
  /** How many bytes the ranges hold, before and after together. */
  bytes: number;
}

/** How many leading bytes two different runs of equal length share, found by halving (each half compared natively). */
const samePrefix = (a: Uint8Array, b: Uint8Array): number => {
  let low = 0;
  let high = a.byteLength;
  // Invariant: the first `low` bytes are equal; a difference lies before `high`.
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (Buffer.compare(a.subarray(low, middle), b.subarray(low, middle)) === 0) low = middle;
    else high = middle;
  }
  return low;
};

/** The bytes of a list of chunks, readable at any offset without joining them. */
class ChunkBytes {
  readonly #chunks: readonly Uint8Array[];
  readonly #starts: number[] = [];
  readonly length: number;

  constructor(chunks: readonly Uint8Array[]) {
    this.#chunks = chunks;
    let at = 0;
    for (const chunk of chunks) {
      this.#starts.push(at);
      at += chunk.byteLength;
    }
    this.length = at;
  }

  /** How many leading bytes of `bytes` are these bytes at `offset` (none past the end). */
  commonPrefix(offset: number, bytes: Uint8Array): number {
    if (offset >= this.length) return 0;
    let index = this.#indexAt(offset);
    let done = 0;
    while (done < bytes.byteLength && index < this.#chunks.length) {
      const chunk = this.#chunks[index]!;
      const from = offset + done - this.#starts[index]!;
      const count = Math.min(chunk.byteLength - from, bytes.byteLength - done);
      const mine = chunk.subarray(from, from + count);
      const theirs = bytes.subarray(done, done + count);
      if (Buffer.compare(mine, theirs) !== 0) return done + samePrefix(mine, theirs);
      done += count;
      index++;
    }
    return done;
  }

  /** A copy of the bytes from `start` to `end` (clipped to the length). */
  slice(start: number, end: number): Buffer {
    const stop = Math.min(end, this.length);
    const out = Buffer.allocUnsafe(Math.max(0, stop - start));
    if (stop <= start) return out;
    for (let index = this.#indexAt(start), at = start; at < stop; index++) {
      const chunk = this.#chunks[index]!;
      const from = at - this.#starts[index]!;
      const count = Math.min(chunk.byteLength - from, stop - at);
      out.set(chunk.subarray(from, from + count), at - start);
      at += count;
    }
    return out;
  }

  /** The chunk holding byte `offset`. */
  #indexAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/**
 * Compares, chunk by chunk at the same offsets, the bytes last written (`old`) with the next
 * (`next`), and answers the ranges to write in place; or `undefined` when they would hold
 * more than `limit` bytes (then replacing the file whole costs about as much). A range
 * starts at the first byte that differs, not at its chunk's start. A chunk that is the
 * very same buffer at the same offset is unchanged without a look; the serialiser
 * hands back the buffers it wrote before, so a write of a few animals compares a few
 * hundred bytes, whatever the file's size.
 */
export const planInPlaceWrite = (old: readonly Uint8Array[], next: readonly Uint8Array[], limit: number): InPlacePlan | undefined => {
  const before = new ChunkBytes(old);
  const ranges: ChangedRange[] = [];
  let bytes = 0;
  let oldIndex = 0;
  let oldAt = 0;
  let at = 0;
  for (const chunk of next) {
    // The old chunk at the same offset, if any starts there.
    while (oldIndex < old.length && oldAt < at) oldAt += old[oldIndex++]!.byteLength;
    // Only the bytes from the first that differs: a chunk that grew (a full chunk where
    // the tail was) changes only past what was written before.
    const kept = oldAt === at && old[oldIndex] === chunk ? chunk.byteLength : before.commonPrefix(at, chunk);
    if (kept < chunk.byteLength) {
      const changed = chunk.subarray(kept);
      const last = ranges.at(-1);
      if (last && last.offset + last.length === at + kept) {
        (last.after as Uint8Array[]).push(changed);
        last.length += changed.byteLength;
      } else {
        ranges.push({ offset: at + kept, before: Buffer.alloc(0), after: [changed], length: changed.byteLength });
      }
      bytes += 2 * changed.byteLength;
      if (bytes > limit) return undefined;
    }
    at += chunk.byteLength;
  }
  // A shorter file: the cut-off end is a change too, the last range's (an empty one if need be).
  const last = ranges.at(-1);
  if (at < before.length && !(last && last.offset + last.length === at)) {
    ranges.push({ offset: at, before: Buffer.alloc(0), after: [], length: 0 });
  }
  bytes = 0;
  for (const range of ranges) {
    // The old bytes under each range; a range ending at the new end also takes the old bytes past it.
    const rangeEnd = range.offset + range.length;
    range.before = before.slice(range.offset, rangeEnd === at ? Math.max(rangeEnd, before.length) : rangeEnd);
    bytes += range.before.byteLength + range.length;
    if (bytes > limit) return undefined;
  }
  return { oldLength: before.length, newLength: at, ranges, bytes };
};
