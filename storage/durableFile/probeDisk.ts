/** @module Whether the disk takes a durable write, asked before rather than learnt by filling it: room for the write, and a small fsynced temp file. */
import path from 'node:path';
import { DurableWriteError } from './errors.js';
import type { FileSystem } from './FileSystem.js';
import { NEW_FILE_MODE, tempPath } from './tempFiles.js';

/** Bytes in MiB, to a tenth, for messages: `21.5`. */
export const inMebibytes = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

/**
 * Throws an ENOSPC error when the file system holding `folder` has no room for a whole write
 * of `bytes` (root may use the reserved blocks): `no space left on device: 3.1 MiB free, a
 * write needs 21.5 MiB`. Answers quietly when the file system cannot say. The room asked is
 * the write's bytes and an eighth more: the journal's appends go on while it runs, and a
 * write that filled the disk would make them fail with it.
 */
export const checkRoom = async (fs: FileSystem, folder: string, bytes: number): Promise<void> => {
  const needed = bytes + Math.ceil(bytes / 8);
  const space = await fs.statfs(folder).catch(() => undefined);
  // A file system that reports no size at all (some FUSE ones) cannot say: the write is tried.
  if (!space || space.blocks === 0) return;
  const free = (process.getuid?.() === 0 ? space.bfree : space.bavail) * space.bsize;
  if (free >= needed) return;
  throw Object.assign(new Error(`no space left on device: ${inMebibytes(free)} MiB free, a write needs ${inMebibytes(needed)} MiB`), {
    code: 'ENOSPC',
  });
};

/** What the health probe writes. */
const PROBE_BYTES = Buffer.from('animal-store health probe\n');

/**
 * Writes and fsyncs a small temp file beside `file` and removes it, then asks whether the
 * folder's file system has room for a whole write of `size` bytes, as the write itself will
 * (`checkRoom`: the new file beside the old until its rename). Throws a DurableWriteError,
 * naming the file as `name`, saying why not.
 */
export const probeDisk = async (fs: FileSystem, file: string, name: string, size: number): Promise<void> => {
  const temp = tempPath(file);
  let step = 'open a temp file beside it';
  try {
    const handle = await fs.open(temp, 'wx', NEW_FILE_MODE);
    try {
      step = 'write a temp file';
      await handle.write(PROBE_BYTES);
      step = 'fsync a temp file';
      await handle.sync();
    } finally {
      await handle.close();
    }
    step = 'remove a temp file';
    await fs.unlink(temp);
    step = 'find room for the next write';
    await checkRoom(fs, path.dirname(file), size);
  } catch (error) {
    await fs.unlink(temp).catch(() => {});
    throw new DurableWriteError(name, step, false, error);
  }
};
