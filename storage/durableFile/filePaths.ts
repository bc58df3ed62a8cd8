/** @module Where a data file really is: the path written to, symlinks resolved, and the link that leads nowhere on the way to it (a volume that did not mount). */
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

/** A symbolic link whose target does not exist. */
export interface DanglingLink {
  /** The link, as an absolute path. */
  link: string;
  /** Where it points, as written in the link. */
  target: string;
}

/**
 * The first symbolic link on the way to `file` (the file itself or one of its folders)
 * whose target does not exist, or `undefined`. A data file or folder that is a link to a
 * volume that did not mount is such a link; writing through it would make a new, empty
 * catalogue where the real one should be.
 */
export const findDanglingLink = async (fs: FileSystem, file: string): Promise<DanglingLink | undefined> => {
  const parts = path.resolve(file).split(path.sep).filter(Boolean);
  let at = path.parse(path.resolve(file)).root;
  for (const part of parts) {
    at = path.join(at, part);
    const stats = await fs.lstat(at).catch(() => undefined);
    if (stats === undefined) return undefined;
    if (!stats.isSymbolicLink()) continue;
    const missing = await fs.stat(at).then(
      () => false,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT' || error.code === 'ENOTDIR',
    );
    if (missing) return { link: at, target: await fs.readlink(at) };
  }
  return undefined;
};
