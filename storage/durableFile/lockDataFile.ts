/** @module One owner per data file: the kernel's lock on the file itself, freed the moment its owner dies. */
import type { FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { DataFileError, DataFileLockedError } from './DataFileError.js';
import { findLockOwner } from './findLockOwner.js';
import { systemErrorReason } from './systemErrorReason.js';

/** What the storage uses of fs-native-extensions. */
interface NativeLocks {
  /** Takes an exclusive lock on the open file, or answers false when another open file holds one. */
  tryLock(fd: number): boolean;
}

let nativeLocks: NativeLocks | undefined;

/**
 * Loads the native module when a data file is first opened, not when the package is
 * imported: a program that keeps its animals in memory never loads it, and a platform
 * without a prebuild fails with a sentence at open rather than at import.
 */
const loadNativeLocks = (name: string): NativeLocks => {
  try {
    nativeLocks ??= createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;
    return nativeLocks;
  } catch (error) {
    throw new DataFileError(
      name,
      `The data file ${name} cannot be locked: the native lock module (fs-native-extensions) does not load on ${process.platform}-${process.arch}: ${systemErrorReason(error).reason}.`,
      { cause: error },
    );
  }
};

/**
 * Locks an open data file (opened for writing) for this process, or throws a
 * DataFileLockedError naming the file and, when it can be found, the owning process.
 *
 * The lock is the kernel's, on the open file: an open-file-description lock (F_OFD_SETLK) on
 * Linux, flock on macOS, LockFileEx on Windows, through fs-native-extensions. So it belongs
 * to the file (the inode), whatever name reaches it (a symlink, a hard link, a bind mount),
 * not to a path string; only who can open the file for writing can take it; a second open
 * in the same process is refused too; and the kernel frees it the moment its holder closes
 * the file or dies (kill -9 included): no stale lock, no timeout. It guards against
 * processes on one machine.
 */
export const lockDataFile = async (handle: FileHandle, name: string): Promise<void> => {
  if (loadNativeLocks(name).tryLock(handle.fd)) return;
  const { dev, ino } = await handle.stat();
  throw new DataFileLockedError(name, await findLockOwner(dev, ino));
};
