/** @module The data file's writes and reloads, one at a time; a write that an edit interrupts starts again, a few times. */
import { DataFileError, FileChangedError } from '../durableFile/index.js';
import { refusal } from './fileProblems.js';

/** How many times a write meets an edit saved during its own write before it gives up. */
const EDIT_RETRIES = 3;

/**
 * Runs a data file's tasks one at a time, in the order given. A write first runs `before`
 * (PetFile reads an edited file again there), and starts
 * again on the edited content when an edit was saved during it (a FileChangedError).
 */
export class WriteQueue {
  readonly #name: string;
  readonly #before: () => Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();

  /** A queue for the data file `name`; `before` runs ahead of each attempt of each write. */
  constructor(name: string, before: () => Promise<void>) {
    this.#name = name;
    this.#before = before;
  }

  /** Runs `task` after every task before it, alone. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Runs `writeOnce` alone, after `before`, and again when an edit lands during it. */
  write<T>(writeOnce: () => Promise<T>): Promise<T> {
    return this.run(async () => {
      for (let attempt = 1; ; attempt++) {
        await this.#before();
        try {
          return await writeOnce();
        } catch (error) {
          if (!(error instanceof FileChangedError)) throw error;
          if (attempt === EDIT_RETRIES) {
            throw refusal(new DataFileError(this.#name, `The data file ${this.#name} kept changing during each write.`));
          }
        }
      }
    });
  }
}
