/** @module A command-line mistake. */

/** A command-line mistake: printed in one line, then the command's usage line; exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose usage to show: `serve`, `copy` or `init-worker`. */
  readonly command: 'serve' | 'copy' | 'init-worker';

  constructor(message: string, command: 'serve' | 'copy' | 'init-worker' = 'serve') {
    super(message);
    this.command = command;
  }
}
