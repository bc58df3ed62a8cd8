/** @module The errors that opening a JSON data file fails with: damaged, unreadable, or owned by another process. */

/**
 * Opening a data file failed: it is damaged, of another format, unreadable, or owned by
 * another process. The message is one sentence naming the file and the problem, fit to
 * print as it is; the file has not been changed.
 */
export class DataFileError extends Error {
  override readonly name: string = 'DataFileError';
  /** The data file, as given to `openJsonFileStorage`. */
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.file = file;
  }
}

/** Who owns a data file, as the owner itself told us. */
export interface DataFileOwner {
  /** The owner's process id. */
  pid: number;
  /** When the owner took the file, as an ISO date. */
  since: string;
}

/** Another process owns the data file; running two on one file would lose animals. */
export class DataFileLockedError extends DataFileError {
  override readonly name: string = 'DataFileLockedError';
  /** The owning process, when it answered. */
  readonly owner: DataFileOwner | undefined;

  constructor(file: string, owner: DataFileOwner | undefined) {
    const who = owner ? `process ${owner.pid} (its owner since ${owner.since})` : 'another process, which did not say which';
    super(
      file,
      `The data file ${file} is in use by ${who}. Only one animal-store server may use a data file at a time: stop the other one, or give this one another file.`,
    );
    this.owner = owner;
  }
}
