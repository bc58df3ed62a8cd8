/** @module Whether a durable write could be made now, cheaply: a small fsynced temp file, and room for the next write. */
import path from 'node:path';
import { DurableWriteError } from './DurableWriteError.js';
import type { FileSystem } from './FileSystem.js';
import { NEW_FILE_MODE, tempPath } from './tempFiles.js';

/** What the health probe writes. */
const PROBE_BYTES = Buffer.from('animal-store health probe\n');

/** Throws ENOSPC when the file system has less room than `needed` bytes (root may use the reserved blocks). */
const checkRoom = async (fs: FileSystem, folder: string, needed: number): Promise<void> => {
  const space = await fs.statfs(folder).catch(() => undefined);
  if (!space) return;
  const free = (process.getuid?.() === 0 ? space.bfree : space.bavail) * space.bsize;
  if (free >= needed) return;
  const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
  throw Object.assign(new Error(`no space left on device: ${megabytes(free)} free, a write needs ${megabytes(needed)}`), {
    code: 'ENOSPC',
  });
};

/**
 * Writes and fsyncs a small temp file beside `file` and removes it, then asks whether the
 * folder's file system has room for `size` bytes more (a write needs the new file beside the
 * old until its rename). Throws a DurableWriteError, naming the file as `name`, saying why not.
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
