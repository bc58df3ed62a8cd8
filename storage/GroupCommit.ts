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
/** What one commit did, for an operator's metrics: how many items it held, how long it took, whether it held. */
export interface CommitReport {
  size: number;
  seconds: number;
  ok: boolean;
}

/** Is told of every commit, after it settled. */
export type CommitObserver = (report: CommitReport) => void;

export class GroupCommit<Item, Result> {
  readonly #commit: (items: Item[]) => Promise<Result[]>;
  readonly #observe: CommitObserver | undefined;
  #waiting: Waiting<Item, Result>[] = [];
  #running: Promise<void> | undefined;

  /**
   * @param commit Makes a batch durable and returns one result per item, in order; throws
   *   to fail the whole batch.
   * @param observe Told of each commit once it has settled (metrics); its errors are ignored.
   */
  constructor(commit: (items: Item[]) => Promise<Result[]>, observe?: CommitObserver) {
    this.#commit = commit;
    this.#observe = observe;
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
      const started = performance.now();
      let ok = false;
      try {
        const results = await this.#commit(batch.map(({ item }) => item));
        ok = true;
        for (const [position, { resolve }] of batch.entries()) resolve(results[position]!);
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
      this.#report({ size: batch.length, seconds: (performance.now() - started) / 1000, ok });
    }
    // Cleared in the same synchronous step as the emptiness check above, so a submit can
    // never find a run that has already decided to stop.
    this.#running = undefined;
  }

  #report(report: CommitReport): void {
    try {
      this.#observe?.(report);
    } catch {
      // A metrics hook that throws must not fail the commits it watches.
    }
  }
}
