/** @module What the journal's tests share: a journal beside a fresh data file, and a file system whose rename to the journal fails. */
import { type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { Journal } from '../../../storage/durableFile/Journal.js';
import { tempDataFile } from '../../support/tempFolder.js';

/** A journal beside a fresh data file, with `lines` appended. */
export const journalWith = async (lines: string[], fs: FileSystem = nodeFileSystem) => {
  const file = tempDataFile();
  const journal = await Journal.open(fs, file, file);
  for (const line of lines) await journal.append(line);
  return { file, journal };
};

/** Node's file functions, but a rename onto a journal fails as a failing disk's would (EIO). */
export const failingJournalRename: FileSystem = {
  ...nodeFileSystem,
  rename: async (from, to) => {
    if (String(to).endsWith('.journal')) throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
    return nodeFileSystem.rename(from, to);
  },
};
