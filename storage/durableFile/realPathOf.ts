/** @module Where a data file really is: the path written to, symlinks resolved. */
import path from 'node:path';
import type { FileSystem } from './FileSystem.js';

/**
 * The file's real path (symlinks resolved), also when the file does not exist yet: the
 * path written to, so a symlinked data file stays a symlink to a file kept current.
 */
export const realPathOf = async (fs: Pick<FileSystem, 'realpath'>, file: string): Promise<string> => {
  try {
    return await fs.realpath(file);
  } catch {
    return path.join(await fs.realpath(path.dirname(file)), path.basename(file));
  }
};
