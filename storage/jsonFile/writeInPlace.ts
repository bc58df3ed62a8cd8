/** @module Writes only a file's changed bytes, in place and durably, with an undo record that a crash mid-write is undone from at the next open. */
import { type BigIntStats, constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileSystem } from './FileSystem.js';
import type { InPlacePlan } from './planInPlaceWrite.js';
import { syncFolder } from './syncFolder.js';
import { NEW_FILE_MODE } from './tempFiles.js';
import { decodeUndoRecord, encodeUndoRecord, type UndoRecord } from './UndoRecord.js';

/** The undo record's path: beside the file, named after it. */
export const undoPath = (file: string): string => `${file}.undo`;

/** Writes buffers at `position`, all of them. */
const writeAt = async (handle: FileHandle, buffers: readonly Uint8Array[], position: number): Promise<void> => {
  if (buffers.length === 0) return;
  const { bytesWritten } = await handle.writev(buffers as Uint8Array[], position);
  const expected = buffers.reduce((total, buffer) => total + buffer.byteLength, 0);
  // libuv writes until done or failed; a short count would be a bug below us, not a retry case.
  if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes`);
};

/** The undo record's file, and whether each write to it is durable on its own return (O_DSYNC). */
export interface UndoFile {
  handle: FileHandle;
  dsync: boolean;
}

/**
 * Opens the undo record's file for reuse, creating it durably (its name fsynced into the
 * folder) when missing: a record the folder could forget would undo nothing. Where the
 * system has O_DSYNC, each write to it returns once durable, which saves the write's
 * fdatasync a round trip through the thread pool.
 */
export const openUndoFile = async (fs: FileSystem, file: string): Promise<UndoFile> => {
  const { O_RDWR, O_CREAT, O_DSYNC } = constants;
  const flags = O_DSYNC === undefined ? O_RDWR : O_RDWR | O_DSYNC;
  const dsync = O_DSYNC !== undefined;
  try {
    return { handle: await fs.open(undoPath(file), flags), dsync };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const handle = await fs.open(undoPath(file), flags | O_CREAT, NEW_FILE_MODE);
  try {
    await handle.sync();
    await syncFolder(fs, path.dirname(file));
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
  return { handle, dsync };
};

/** Where a write in place got to, for its error: whether the file itself was touched. */
export interface InPlaceStep {
  step: string;
  touched: boolean;
}

/**
 * Makes the planned changes durable in `data` (the file, open for writing, whose inode is
 * `inode`): first the undo record (the old and new bytes of each range) into `undo`,
 * fdatasynced; only then the new bytes into the file, cut to its new length, fdatasynced.
 * A crash before the record is whole leaves the file untouched (a torn record is known by
 * its checksum); a crash after it is undone at the next open (`recoverInPlaceWrite`).
 * `progress` follows the steps, so a failure says which one failed.
 */
export const writeInPlace = async (
  data: FileHandle,
  undo: UndoFile,
  inode: bigint,
  plan: InPlacePlan,
  progress: InPlaceStep,
): Promise<BigIntStats> => {
  progress.step = 'write the undo record';
  await writeAt(undo.handle, encodeUndoRecord(inode, plan), 0);
  progress.step = 'fdatasync the undo record';
  if (!undo.dsync) await undo.handle.datasync();
  progress.step = 'write the changed bytes in place';
  progress.touched = true;
  // In order: the next id first, so a reader who meets the file between two ranges finds
  // a valid document (a higher next id, the animals before), not animals above the next id.
  for (const { offset, after } of plan.ranges) await writeAt(data, after, offset);
  if (plan.newLength < plan.oldLength) await data.truncate(plan.newLength);
  progress.step = 'fdatasync the data file';
  // The file's new size and times are set by now: read them while the data is flushed.
  const [stats] = await Promise.all([data.stat({ bigint: true }), data.datasync()]);
  return stats;
};

/** Puts back the bytes a write in place replaced, durably (the file as it was before it). */
export const undoInPlace = async (
  data: FileHandle,
  { oldLength, ranges }: { oldLength: number; ranges: readonly { offset: number; before: Buffer }[] },
): Promise<void> => {
  for (const { offset, before } of ranges) await writeAt(data, [before], offset);
  await data.truncate(oldLength);
  await data.datasync();
};

/** What the file holds, judged against an undo record. */
type Judgement = 'written' | 'torn' | 'other';

const readAt = async (data: FileHandle, offset: number, length: number): Promise<Buffer> => {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await data.read(buffer, 0, length, offset);
  return buffer.subarray(0, bytesRead);
};

/**
 * `written` when the file holds the record's new bytes at its new length; `torn` when each
 * byte of each range is the old one, the new one or a zero (what a crash mid-write leaves)
 * at a length between the two; otherwise `other`: not what this write left, so someone
 * else's content, which is never touched.
 */
const judge = async (data: FileHandle, size: number, record: UndoRecord): Promise<Judgement> => {
  let written = size === record.newLength;
  for (const { offset, before, after } of record.ranges) {
    const present = await readAt(data, offset, Math.max(before.byteLength, after.byteLength));
    if (written && !present.subarray(0, after.byteLength).equals(after)) written = false;
    if (written) continue;
    for (let index = 0; index < present.byteLength; index++) {
      const byte = present[index];
      if (byte !== before[index] && byte !== after[index] && byte !== 0) return 'other';
    }
  }
  if (written) return 'written';
  const low = Math.min(record.oldLength, record.newLength);
  const high = Math.max(record.oldLength, record.newLength);
  return size >= low && size <= high ? 'torn' : 'other';
};

/** What opening found of an earlier write in place. */
export type Recovery = 'none' | 'written' | 'undone' | 'other';

/**
 * Run at open, while this process holds the file's lock: when an undo record is beside the
 * file and its write was torn by a crash, puts the file back as it was before that write
 * (which had not been acknowledged: an answer follows the data's fdatasync). A write that
 * completed is kept; a torn record means the file was never touched; a record about another
 * inode, or a file that is neither, is someone else's doing and left alone. The record is
 * then removed.
 */
export const recoverInPlaceWrite = async (fs: FileSystem, file: string, data: FileHandle): Promise<Recovery> => {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(undoPath(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
  const record = decodeUndoRecord(bytes);
  const stats = await data.stat({ bigint: true });
  let found: Recovery = 'none';
  if (record && record.inode === String(stats.ino)) {
    const judgement = await judge(data, Number(stats.size), record);
    if (judgement === 'torn') await undoInPlace(data, record);
    found = judgement === 'torn' ? 'undone' : judgement;
  }
  await fs.unlink(undoPath(file));
  await syncFolder(fs, path.dirname(file));
  return found;
};
