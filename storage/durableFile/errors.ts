/** @module How the durable file fails: a write the disk refused, a file someone else changed, a file that cannot be used or that another process owns, each saying why in one line. */

/** A failure's system error code and the words an operator acts on. */
export interface SystemErrorReason {
  /** The system error code (ENOSPC, EACCES, EROFS, EIO, …), when the failure was a system error. */
  code: string | undefined;
  /** One line: the failure's words and its code, such as `no space left on device (ENOSPC)`. */
  reason: string;
}

/**
 * Node's system errors read `ENOSPC: no space left on device, open '/x/animals.json.1.ab.tmp'`
 * or `EIO: i/o error, fsync`; this keeps the words and the code and drops the call and its
 * path, which names a temp file of its own at each write, so one failure reads the same
 * every time it happens.
 */
export const systemErrorReason = (error: unknown): SystemErrorReason => {
  const { code } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown };
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return { code: undefined, reason: message };
  const words = (message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message).replace(/, [a-z_0-9]+( '.*)?$/, '');
  return { code, reason: `${words} (${code})` };
};

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

/**
 * A data file cannot be used: it is damaged, of another format, unreadable, missing, or
 * owned by another process. The message is one sentence naming the file and the problem,
 * fit to print as it is; the file has not been changed.
 */
export class DataFileError extends Error {
  override readonly name: string = 'DataFileError';
  /** The data file, as given to `openJsonFileStorage`. */
  readonly file: string;
  /** What is wrong with the file's content, such as `pets[12].categoryId must be …`, when that is the problem. */
  readonly problem: string | undefined;

  constructor(file: string, message: string, options?: { cause?: unknown; problem?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.file = file;
    this.problem = options?.problem;
  }
}

/** Who owns a data file, as the system says. */
export interface DataFileOwner {
  /** The owner's process id. */
  pid: number;
  /** When the owning process started, as an ISO date, when known. */
  since?: string | undefined;
}

/** Another process owns the data file; running two on one file would lose animals. */
export class DataFileLockedError extends DataFileError {
  override readonly name: string = 'DataFileLockedError';
  /** The owning process, when it could be found (on Linux, from /proc). */
  readonly owner: DataFileOwner | undefined;

  constructor(file: string, owner: DataFileOwner | undefined) {
    const who = owner
      ? `process ${owner.pid}${owner.since ? ` (running since ${owner.since})` : ''}`
      : 'another process, which could not be named';
    super(
      file,
      `The data file ${file} is in use by ${who}. Only one animal-store server may use a data file at a time: stop the other one, or give this one another file.`,
    );
    this.owner = owner;
  }
}
