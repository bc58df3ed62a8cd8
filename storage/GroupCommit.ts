/** @module Group commit: items that arrive while a write is in flight share the next write. */

/** The longest a commit waits for more items to join it. */
const GATHER_MILLISECONDS = 1;

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/** What one commit did, for an operator's metrics: how many items it held, how long it took, whether it held. */
export interface CommitReport {
  size: number;
  seconds: number;
  ok: boolean;
}

/** Is told of every commit, after it settled. */
export type CommitObserver = (report: CommitReport) => void;

/**
 * Batches items into commits, one commit at a time. A commit starts once items stop
 * arriving: after the current turn of the event loop (so items submitted together go
 * together), and after more turns while each brings new items, for a millisecond at most.
 * Items arriving during a commit wait and form the next one. So under load a commit carries
 * many items and a durable write costs its fsyncs once per batch, not once per item; and
 * the clients a commit answered, who come back at once, make the next commit together
 * rather than a few of them making one of their own.
 *
 * Each item's promise settles with its own commit: resolved with the commit's result for
 * it, or rejected with the commit's error. A failed commit affects only the items it held.
 */
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
    await this.#gather();
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
      await this.#gather();
    }
    // Cleared in the same synchronous step as the emptiness check above, so a submit can
    // never find a run that has already decided to stop.
    this.#running = undefined;
  }

  /**
   * Waits while items keep arriving: turns of the event loop (each lets the server read
   * what has come in) until two in a row bring none, or 1 ms has passed. Idle, this costs
   * two turns; under load, the answers of the last commit bring their clients' next
   * requests within a fraction of a millisecond.
   */
  async #gather(): Promise<void> {
    const deadline = performance.now() + GATHER_MILLISECONDS;
    let seen = this.#waiting.length;
    let quiet = 0;
    while (quiet < 2 && performance.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#waiting.length === seen) quiet++;
      else {
        seen = this.#waiting.length;
        quiet = 0;
      }
    }
  }

  #report(report: CommitReport): void {
    try {
      this.#observe?.(report);
    } catch {
      // A metrics hook that throws must not fail the commits it watches.
    }
  }
}
