/** @module Takes a data file for this process: opens it and takes its lock, or creates it locked from its first moment. */
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { DataFileError, systemErrorReason } from './errors.js';
import type { FilePart } from './FilePart.js';
import type { FileSystem } from './FileSystem.js';
import { sameInode } from './FileVersion.js';
import { writeAll } from './fileBytes.js';
import { syncFolder } from './folders.js';
import { lockDataFile } from './lockDataFile.js';
import { NEW_FILE_MODE, tempPath } from './tempFiles.js';

/** How to take a file. */
export interface TakeOptions {
  /** The file's name in messages (the path as given, where `file` may be its real path). */
  name: string;
  fs: FileSystem;
  /** The content of the file when it has to be created. */
  initial: () => FilePart[];
}

/** The file, open and locked, and its stats as of the lock. */
export interface TakenFile {
  handle: FileHandle;
  stats: BigIntStats;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

/**
 * Creates the file, locked from its first moment: the temp file is written, locked and
 * fsynced, then hard-linked to the file's name, which fails rather than replace a file
 * another process created meanwhile (then the answer is `undefined`). A file system
 * without hard links gets a rename instead, which two servers creating one file at the
 * same instant could both think they won.
 */
const create = async (file: string, { name, fs, initial }: TakeOptions): Promise<TakenFile | undefined> => {
  const temp = tempPath(file);
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', NEW_FILE_MODE);
    await lockDataFile(handle, name);
    await handle.chmod(NEW_FILE_MODE);
    await writeAll(handle, initial());
    await handle.sync();
    try {
      await fs.link(temp, file);
    } catch (error) {
      if (codeOf(error) === 'EEXIST') return undefined;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(codeOf(error) ?? '')) throw error;
      await fs.rename(temp, file);
    }
    await fs.unlink(temp).catch(() => {});
    await syncFolder(fs, path.dirname(file));
    const created = { handle, stats: await handle.stat({ bigint: true }) };
    handle = undefined;
    return created;
  } catch (error) {
    const { reason } = systemErrorReason(error);
    throw new DataFileError(name, `The data file ${name} cannot be created: ${reason}.`, { cause: error });
  } finally {
    if (handle) {
      await handle.close().catch(() => {});
      await fs.unlink(temp).catch(() => {});
    }
  }
};

/**
 * Takes the file at `file`, creating it (mode 0600, with the initial content, durably)
 * when it is missing. Throws a DataFileLockedError when another process (or another open
 * in this one) owns it, and a DataFileError when it cannot be opened for writing.
 */
export const takeDataFile = async (file: string, options: TakeOptions): Promise<TakenFile> => {
  const { name, fs } = options;
  for (let attempt = 0; attempt < 5; attempt++) {
    let handle: FileHandle;
    try {
      handle = await fs.open(file, 'r+');
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') {
        const { reason } = systemErrorReason(error);
        throw new DataFileError(name, `The data file ${name} cannot be read and written by this process: ${reason}.`, { cause: error });
      }
      const created = await create(file, options);
      if (created) return created;
      continue; // Another process created it first: take it, or meet its lock.
    }
    try {
      await lockDataFile(handle, name);
      // Between our open and our lock, an owner that was stopping may have replaced the file: take what is there now.
      const locked = await handle.stat({ bigint: true });
      const atPath = await fs.stat(file, { bigint: true }).catch(() => undefined);
      if (atPath !== undefined && sameInode(atPath, locked)) return { handle, stats: locked };
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
    await handle.close().catch(() => {});
  }
  throw new DataFileError(name, `The data file ${name} kept being replaced while this process tried to open it; try again.`);
};
