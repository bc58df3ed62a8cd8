/** @module The record that lets an in-place write be undone: the bytes it replaces and the bytes it writes, checksummed. */
import { createHash } from 'node:crypto';
import type { InPlacePlan } from './planInPlaceWrite.js';

/** The first line of every record, so a person who opens the file knows what it is. */
const MAGIC = Buffer.from('animal-store undo record 1\n');
const DIGEST_BYTES = 32;

/** A range as the record keeps it: the old and the new bytes at `offset`. */
export interface RecordedRange {
  offset: number;
  before: Buffer;
  after: Buffer;
}

/** A decoded record: the file's length before and after the write, and its ranges. */
export interface UndoRecord {
  /** The inode the write was to: a record about another file (replaced since, or edited by rename) says nothing. */
  inode: string;
  oldLength: number;
  newLength: number;
  ranges: RecordedRange[];
}

/**
 * The record of a planned write, as buffers for one `writev`: the magic line, a JSON line
 * saying the lengths and ranges, each range's old then new bytes, and a SHA-256 of all
 * that, so a record torn by a crash is known as such (its write had not begun).
 */
export const encodeUndoRecord = (inode: bigint, { oldLength, newLength, ranges }: InPlacePlan): Buffer[] => {
  const header = {
    inode: String(inode),
    oldLength,
    newLength,
    ranges: ranges.map(({ offset, before, length }) => ({ offset, before: before.byteLength, after: length })),
  };
  const buffers: Buffer[] = [MAGIC, Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const { before, after } of ranges)
    buffers.push(before, ...after.map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  const hash = createHash('sha256');
  for (const buffer of buffers) hash.update(buffer);
  buffers.push(hash.digest());
  return buffers;
};

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The record in `bytes` (which may go on past it), or `undefined` when it is torn, damaged or not a record. */
export const decodeUndoRecord = (bytes: Buffer): UndoRecord | undefined => {
  if (!bytes.subarray(0, MAGIC.byteLength).equals(MAGIC)) return undefined;
  const headerEnd = bytes.indexOf(0x0a, MAGIC.byteLength);
  if (headerEnd < 0) return undefined;
  let header: {
    inode?: unknown;
    oldLength?: unknown;
    newLength?: unknown;
    ranges?: { offset?: unknown; before?: unknown; after?: unknown }[];
  };
  try {
    header = JSON.parse(bytes.subarray(MAGIC.byteLength, headerEnd).toString('utf8'));
  } catch {
    return undefined;
  }
  const { inode, oldLength, newLength, ranges } = header;
  if (typeof inode !== 'string' || !isCount(oldLength) || !isCount(newLength) || !Array.isArray(ranges)) return undefined;
  let at = headerEnd + 1;
  const decoded: RecordedRange[] = [];
  for (const { offset, before, after } of ranges) {
    if (!isCount(offset) || !isCount(before) || !isCount(after) || at + before + after > bytes.byteLength) return undefined;
    decoded.push({ offset, before: bytes.subarray(at, at + before), after: bytes.subarray(at + before, at + before + after) });
    at += before + after;
  }
  if (at + DIGEST_BYTES > bytes.byteLength) return undefined;
  const digest = createHash('sha256').update(bytes.subarray(0, at)).digest();
  if (!digest.equals(bytes.subarray(at, at + DIGEST_BYTES))) return undefined;
  return { inode, oldLength, newLength, ranges: decoded };
};
