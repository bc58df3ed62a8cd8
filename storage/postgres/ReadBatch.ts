/** @module Reads that wait for a free slot share one statement: one round trip to the database for many pages. */

/** The most reads one statement carries. */
const MOST_PER_STATEMENT = 64;

interface WaitingRead<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
  timer: ReturnType<typeof setTimeout>;
}

/** How long a read may wait for its statement to be sent, and what it fails with then. */
export interface ReadWait {
  milliseconds: number;
  error(): unknown;
}

/**
 * Runs reads at once while fewer than `inFlight` statements are under way, and otherwise
 * queues them: when a statement returns, the reads queued meanwhile go together in the next
 * (`MOST_PER_STATEMENT` at most). Idle, a read waits for nothing; under load, a round trip,
 * which costs the server more CPU than the page it carries (the driver's work, the socket's
 * system calls), is paid once for many pages. Every read is sent after it was asked for,
 * so it sees every write acknowledged before that. A failed statement fails only its reads;
 * a read that waited `wait.milliseconds` unsent fails (a silent database must not hold it
 * for the sum of the timeouts of the statements before it).
 */
export class ReadBatch<Item, Result> {
  readonly #one: (item: Item) => Promise<Result>;
  readonly #many: (items: Item[]) => Promise<Result[]>;
  readonly #inFlight: number;
  readonly #wait: ReadWait;
  #running = 0;
  #waiting: WaitingRead<Item, Result>[] = [];

  /**
   * @param one Reads one item (a statement of its own, prepared once).
   * @param many Reads several in one statement, answering one result per item, in order.
   * @param inFlight How many statements may be under way at once.
   * @param wait How long a read may wait to be sent.
   */
  constructor(one: (item: Item) => Promise<Result>, many: (items: Item[]) => Promise<Result[]>, inFlight: number, wait: ReadWait) {
    this.#one = one;
    this.#many = many;
    this.#inFlight = inFlight;
    this.#wait = wait;
  }

  /** Reads an item, alone or with others; settles with its own result. */
  read(item: Item): Promise<Result> {
    if (this.#running < this.#inFlight) return this.#track(this.#one(item));
    return new Promise<Result>((resolve, reject) => {
      const waiting: WaitingRead<Item, Result> = {
        item,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiting), 1);
          reject(this.#wait.error());
        }, this.#wait.milliseconds),
      };
      this.#waiting.push(waiting);
    });
  }

  #track(statement: Promise<Result>): Promise<Result> {
    this.#running++;
    return statement.finally(() => {
      this.#running--;
      this.#next();
    });
  }

  #next(): void {
    if (this.#waiting.length === 0 || this.#running >= this.#inFlight) return;
    const batch = this.#waiting.splice(0, MOST_PER_STATEMENT);
    for (const { timer } of batch) clearTimeout(timer);
    this.#running++;
    const statement = batch.length === 1 ? this.#one(batch[0]!.item).then((result) => [result]) : this.#many(batch.map(({ item }) => item));
    statement
      .then(
        (results) => {
          for (const [position, { resolve }] of batch.entries()) resolve(results[position]!);
        },
        (error: unknown) => {
          for (const { reject } of batch) reject(error);
        },
      )
      .finally(() => {
        this.#running--;
        this.#next();
      });
  }
}
