/** @module Replaces a file whole and durably: a locked temp file with the file's owner, fsync, rename, fsync of the folder. */
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { DurableWriteError, FileChangedError } from './errors.js';
import { byteLengthOf, type FilePart, type ReadBack } from './FilePart.js';
import type { FileSystem } from './FileSystem.js';
import type { Ownership } from './FileVersion.js';
import { writeAll } from './fileBytes.js';
import { syncFolder } from './folders.js';
import { lockDataFile } from './lockDataFile.js';
import { checkRoom } from './probeDisk.js';
import { NEW_FILE_MODE, tempPath } from './tempFiles.js';

/**
 * Gives a replacement the file's owner, group and permissions. chown comes first, since it
 * clears set-id bits; fchmod is not masked by the umask, as the mode given to open is. Only
 * root (or the owner itself) may give a file to another user: a server that may not keeps
 * at least the group when it belongs to it, and becomes the owner.
 */
const keepOwnership = async (handle: FileHandle, { mode, uid, gid }: Ownership): Promise<void> => {
  if (process.platform !== 'win32') {
    await handle
      .chown(uid, gid)
      .catch(() => handle.chown(-1, gid))
      .catch(() => {});
  }
  await handle.chmod(mode);
};

/** What a replacement needs to know of the file it replaces. */
export interface Replaced {
  fs: FileSystem;
  /** The file's path, and its name in messages. */
  file: string;
  name: string;
  ownership: Ownership;
  /** Whether the file changed since its owner last read or wrote it; checked just before the rename. */
  changed(): Promise<boolean>;
  /** Takes the new file (locked, in place) as the current one; called once the rename is done. */
  adopt(handle: FileHandle, stats: BigIntStats): void;
  /** What deferred parts read back from the file being replaced and its journal. */
  readBack: ReadBack;
}

/**
 * Replaces the file with these parts (see FilePart); resolves once they are durable. Throws a
 * FileChangedError, having written nothing, when the file changed since its owner last
 * read or wrote it; a DurableWriteError when the disk fails.
 */
export const replaceDurably = async (
  { fs, file, name, ownership, changed, adopt, readBack }: Replaced,
  parts: readonly FilePart[],
): Promise<void> => {
  const temp = tempPath(file);
  let step = 'find room for the temp file';
  let handle: FileHandle | undefined;
  try {
    // A write that cannot fit would fill the disk before it failed: it is not begun.
    await checkRoom(fs, path.dirname(file), byteLengthOf(parts));
    step = 'open a temp file beside it';
    handle = await fs.open(temp, 'wx', NEW_FILE_MODE);
    step = 'lock the temp file';
    // Still mode 0600 and ours: no one else can hold a lock on it yet.
    await lockDataFile(handle, name);
    step = "give the temp file the data file's owner and permissions";
    await keepOwnership(handle, ownership);
    step = 'write the temp file';
    await writeAll(handle, parts, readBack);
    step = 'fsync the temp file';
    await handle.sync();
    step = 'check the data file for changes';
    if (await changed()) throw new FileChangedError(`The data file ${name} was changed by someone else.`);
    step = 'rename the temp file over the data file';
    await fs.rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => {});
    await fs.unlink(temp).catch(() => {});
    if (error instanceof FileChangedError) throw error;
    throw new DurableWriteError(name, step, false, error);
  }
  // The folder's fsync makes the rename durable; meanwhile the new file's identity is read,
  // and it becomes the current, locked file even should the fsync fail (the file is in
  // place). The replaced file's handle is closed after that, off the write's path: its
  // last close frees the old file's blocks, which can take as long as the fsync itself.
  const folderSynced = syncFolder(fs, path.dirname(file));
  folderSynced.catch(() => {});
  try {
    step = 'lock the new data file';
    adopt(handle, await handle.stat({ bigint: true }));
    step = 'fsync the folder';
    await folderSynced;
  } catch (error) {
    throw new DurableWriteError(name, step, true, error);
  }
};
