/** @module Why a data file's folder could not be made, in the system's true words. */
import path from 'node:path';
import type { FileSystem } from './FileSystem.js';
import { systemErrorReason } from './systemErrorReason.js';

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
