/** @module Whether a durable write could be made now, cheaply: a small fsynced temp file, and room for the next write. */
import path from 'node:path';
import { checkRoom } from './checkRoom.js';
import { DurableWriteError } from './DurableWriteError.js';
import type { FileSystem } from './FileSystem.js';
import { NEW_FILE_MODE, tempPath } from './tempFiles.js';

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
