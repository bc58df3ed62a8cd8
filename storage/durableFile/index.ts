/**
 * @module The durable file, the one way into this folder: a text file this process owns and
 * writes durably, with a journal of changes beside it (`DurableTextFile`), wrapped as lowdb
 * wraps its `TextFile` in a `DataFile` (`DurableDataFile`, given a `DataFormat`) for lowdb's
 * `Low`; plus the watch for edits, the health of the disk under it, and the errors it
 * fails with. It knows nothing of what the data is.
 */
export { inMebibytes } from './checkRoom.js';
export { DataFileError, DataFileLockedError, type DataFileOwner } from './DataFileError.js';
export { type DataFormat, DurableDataFile, JOURNAL_BYTE_WEIGHT, JOURNAL_MIN_BYTES, START_BYTES } from './DurableDataFile.js';
export { DurableTextFile, type FileReading } from './DurableTextFile.js';
export { DurableWriteError, FileChangedError } from './DurableWriteError.js';
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
export { findDanglingLink } from './findDanglingLink.js';
export { folderFailureReason } from './folderFailureReason.js';
export { freeableBytes, freeBuffer } from './freeableBuffer.js';
export { type JournalSpot, journalPath, readJournal } from './Journal.js';
export { type Changes, JournalChanges, type LentChanges, NO_CHANGES } from './JournalChanges.js';
export { realPathOf } from './realPathOf.js';
export { createFolderDurably } from './syncFolder.js';
export { systemErrorReason } from './systemErrorReason.js';
export { WriteHealth } from './WriteHealth.js';
