/** @module How a durable write fails: the disk refused (DurableWriteError), or someone else changed the file (FileChangedError). */
import { systemErrorReason } from './systemErrorReason.js';

/**
 * A write that failed: says why in one line (the same line each time the same failure
 * happens), with the system error's code, and whether the file may already hold the new
 * content.
 */
export class DurableWriteError extends Error {
  override readonly name = 'DurableWriteError';
  /**
   * True when the rename had happened, so the new content may be in place (only its
   * durability is in doubt); false when the file still holds what it held before.
   */
  readonly replaced: boolean;
  /** The system error's code (ENOSPC, EACCES, EROFS, EIO, …), when the failure was one. */
  readonly code: string | undefined;
  /** The step that failed, such as `fsync the temp file`. */
  readonly step: string;

  constructor(file: string, step: string, replaced: boolean, cause: unknown) {
    const { code, reason } = systemErrorReason(cause);
    super(`The data file ${file} cannot be written: ${reason}`, { cause });
    this.replaced = replaced;
    this.code = code;
    this.step = step;
  }
}

/** The file is not as this process last read or wrote it: someone else changed it. Nothing was written. */
export class FileChangedError extends Error {
  override readonly name = 'FileChangedError';
}
