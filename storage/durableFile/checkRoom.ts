/** @module Whether a file system has room for a write, asked before the write rather than learnt by filling the disk. */
import type { FileSystem } from './FileSystem.js';

/** Bytes in MiB, to a tenth, for messages: `21.5`. */
export const inMebibytes = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

/**
 * Throws an ENOSPC error when the file system holding `folder` has less room than `needed`
 * bytes (root may use the reserved blocks): `no space left on device: 3.1 MiB free, a write
 * needs 21.5 MiB`. Answers quietly when the file system cannot say.
 */
export const checkRoom = async (fs: FileSystem, folder: string, needed: number): Promise<void> => {
  const space = await fs.statfs(folder).catch(() => undefined);
  if (!space) return;
  const free = (process.getuid?.() === 0 ? space.bfree : space.bavail) * space.bsize;
  if (free >= needed) return;
  throw Object.assign(new Error(`no space left on device: ${inMebibytes(free)} MiB free, a write needs ${inMebibytes(needed)} MiB`), {
    code: 'ENOSPC',
  });
};
