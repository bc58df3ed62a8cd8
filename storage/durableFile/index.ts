/**
 * @module The durable file, the one way into this folder: a text file this process owns and
 * writes durably, with a journal of changes beside it (`DurableTextFile`), wrapped as lowdb
 * wraps its `TextFile` in a `DataFile` (`DurableDataFile`, given a `DataFormat`) for lowdb's
 * `Low`; plus the watch for edits, the health of the disk under it, and the errors it
 * fails with. It knows nothing of what the data is.
 */

export { type DataFormat, DurableDataFile, JOURNAL_BYTE_WEIGHT, JOURNAL_MIN_BYTES, START_BYTES } from './DurableDataFile.js';
export { DurableTextFile, type FileReading } from './DurableTextFile.js';
export {
  DataFileError,
  DataFileLockedError,
  type DataFileOwner,
  DurableWriteError,
  FileChangedError,
  systemErrorReason,
} from './errors.js';
export {
  byteLengthOf,
  bytesOfParts,
  COPY_PIECE_BYTES,
  copyOwnBytes,
  type DeferredPart,
  type FilePart,
  type ReadBack,
  Scratch,
  type WholeWrite,
} from './FilePart.js';
export { type FileSystem, nodeFileSystem } from './FileSystem.js';
export { findDanglingLink, realPathOf } from './filePaths.js';
export { createFolderDurably, folderFailureReason } from './folders.js';
export { freeableBytes, freeBuffer } from './freeableBuffer.js';
export { type JournalSpot, journalPath, readJournal } from './Journal.js';
export { type Changes, JournalChanges, type LentChanges, NO_CHANGES } from './JournalChanges.js';
export { inMebibytes } from './probeDisk.js';
export { NEW_FILE_MODE, tempPath } from './tempFiles.js';
export { WriteHealth } from './WriteHealth.js';
