/** @module Group commit: items that arrive while a write is in flight share the next write. */

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Batches items into commits, one commit at a time. The first item to arrive when nothing
 * is being written starts a commit (after the current turn of the event loop, so items
 * submitted together go together); items arriving during a commit wait and form the next
 * one. So under load a commit carries many items and a durable write costs its fsyncs once
 * per batch, not once per item.
 *
 * Each item's promise settles with its own commit: resolved with the commit's result for
 * it, or rejected with the commit's error. A failed commit affects only the items it held.
 */
export class GroupCommit<Item, Result> {
  readonly #commit: (items: Item[]) => Promise<Result[]>;
  #waiting: Waiting<Item, Result>[] = [];
  #running: Promise<void> | undefined;

  /**
   * @param commit Makes a batch durable and returns one result per item, in order; throws
   *   to fail the whole batch.
   */
  constructor(commit: (items: Item[]) => Promise<Result[]>) {
    this.#commit = commit;
  }

  /** Adds an item to the next commit; settles when that commit has. */
  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#running ??= this.#run();
    });
  }

  /** Resolves once every item submitted so far has been committed or has failed. */
  async drain(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      try {
        const results = await this.#commit(batch.map(({ item }) => item));
        for (const [position, { resolve }] of batch.entries()) resolve(results[position]!);
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    // Cleared in the same synchronous step as the emptiness check above, so a submit can
    // never find a run that has already decided to stop.
    this.#running = undefined;
  }
}
