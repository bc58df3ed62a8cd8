/** @module Whether a file system has room for a write, asked before the write rather than learnt by filling the disk. */
import type { FileSystem } from './FileSystem.js';

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
