/** @module A data file's folder: made durably with its parents, fsynced so a rename in it lasts, and why it could not be made, in the system's true words. */
import path from 'node:path';
import { systemErrorReason } from './errors.js';
import type { FileSystem } from './FileSystem.js';

/** Opens a folder and fsyncs it, which makes a rename or a new entry in it durable. */
export const syncFolder = async (fs: FileSystem, folder: string): Promise<void> => {
  // Windows cannot open a folder for fsync, and its renames are durable on their own terms.
  if (process.platform === 'win32') return;
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * Creates a file's folder and any missing parents, durably: each new folder's parent is
 * fsynced, or a power loss could forget the folder and the file in it.
 */
export const createFolderDurably = async (file: string, fs: FileSystem): Promise<void> => {
  const folder = path.dirname(file);
  const first = await fs.mkdir(folder, { recursive: true });
  if (first === undefined) return;
  for (let created = folder; ; created = path.dirname(created)) {
    await syncFolder(fs, path.dirname(created));
    if (created === first || path.dirname(created) === created) break;
  }
};

/**
 * The reason `mkdir(folder, { recursive: true })` failed, as `systemErrorReason` words it.
 * Node's recursive mkdir reports ENOENT where the file system is read-only (it is refused
 * EROFS on the first folder, then fails to find it); here the first missing folder is made
 * alone to learn the true cause, `read-only file system (EROFS)` or `permission denied
 * (EACCES)`. Any other failure is worded as it is.
 */
export const folderFailureReason = async (error: unknown, folder: string, fs: FileSystem): Promise<string> => {
  const given = systemErrorReason(error);
  if (given.code !== 'ENOENT') return given.reason;
  let missing = path.resolve(folder);
  for (let parent = path.dirname(missing); parent !== missing; missing = parent, parent = path.dirname(parent)) {
    const exists = await fs.stat(parent).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    try {
      await fs.mkdir(missing);
    } catch (again) {
      return systemErrorReason(again).reason;
    }
    return given.reason;
  }
  return given.reason;
};
