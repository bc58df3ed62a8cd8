/** @module The errors a JSON data file fails with: damaged, unreadable, missing, or owned by another process. */

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
