/** @module A timer that forgets expired Idempotency-Keys a bounded number at a time, off the create path. */

/** How often the sweep runs and how much it may do each time. */
export interface KeySweepOptions {
  /** Milliseconds between sweeps; 100 by default. */
  everyMilliseconds?: number;
  /** The most keys one sweep forgets; 2,000 by default (about 0.2 ms of work in memory). */
  atMost?: number;
}

/** The sweep's defaults: up to 20,000 expired keys a second, far above any create rate a storage sustains. */
export const DEFAULT_KEY_SWEEP: Required<KeySweepOptions> = { everyMilliseconds: 100, atMost: 2_000 };

/** Lets a timer not keep the process alive: Node's and Bun's `unref`, Deno's `unrefTimer`. */
const unref = (timer: ReturnType<typeof setInterval>): void => {
  if (typeof timer === 'object' && timer !== null && 'unref' in timer) timer.unref();
  else (globalThis as { Deno?: { unrefTimer?(id: unknown): void } }).Deno?.unrefTimer?.(timer);
};

/**
 * Runs `sweep(now, atMost)` every `everyMilliseconds` on an unref'd timer (it never keeps a
 * process alive) while there are keys to sweep: from `start` (or the first key `saw`) until
 * `idle()` says the keys are gone, and again from the next key; `stop` ends it for good. A
 * create never pays for expired keys; a tick pays for at most `atMost` of them, however many
 * expired at once.
 *
 * `now` is the service's time, not necessarily this machine's: keys carry the time their
 * request arrived by the service's clock (which tests and embedders may set), so the sweep
 * reads the clock as the newest key saw it, moved on by the time passed since (`saw`).
 * With the service on the system clock this is `Date.now()`.
 */
export class KeySweep {
  readonly #sweep: (now: number, atMost: number) => unknown;
  readonly #idle: () => boolean;
  readonly #everyMilliseconds: number;
  readonly #atMost: number;
  #offset = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  /**
   * @param sweep Forgets up to `atMost` keys expired at `now`; a sweep that throws (or
   *   rejects) is tried again at the next tick.
   * @param idle Whether no key is left to sweep, so the timer may end until the next key.
   */
  constructor(sweep: (now: number, atMost: number) => unknown, options: KeySweepOptions = {}, idle: () => boolean = () => false) {
    const { everyMilliseconds, atMost } = { ...DEFAULT_KEY_SWEEP, ...options };
    if (!(everyMilliseconds > 0) || !(atMost >= 1)) {
      throw new TypeError(`A key sweep needs a period above 0 ms and at least 1 key a tick, not ${everyMilliseconds} ms and ${atMost}.`);
    }
    this.#sweep = sweep;
    this.#idle = idle;
    this.#everyMilliseconds = everyMilliseconds;
    this.#atMost = atMost;
  }

  /** The service's time now, as the newest key told it. */
  now(): number {
    return Date.now() + this.#offset;
  }

  /** A key arrived at `createdAt` by the service's clock: there is something to sweep. */
  saw(createdAt: number): void {
    this.#offset = createdAt - Date.now();
    this.start();
  }

  /** Starts the timer, unless running or stopped. */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => this.#tick(), this.#everyMilliseconds);
    unref(this.#timer);
  }

  /** Stops the timer for good. */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    try {
      const swept = this.#sweep(this.now(), this.#atMost);
      if (swept instanceof Promise) swept.catch(() => {});
    } catch {
      // Nothing is lost: the same keys are expired at the next tick.
    }
    if (this.#idle()) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
