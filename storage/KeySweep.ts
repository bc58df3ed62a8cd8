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

/**
 * Runs `sweep(now, atMost)` every `everyMilliseconds` on an unref'd timer (it never keeps a
 * process alive) until `stop`. A create never pays for expired keys; a tick pays for at
 * most `atMost` of them, however many expired at once.
 *
 * `now` is the service's time, not necessarily this machine's: keys carry the time their
 * request arrived by the service's clock (which tests and embedders may set), so the sweep
 * reads the clock as the newest key saw it, moved on by the time passed since (`saw`).
 * With the service on the system clock this is `Date.now()`.
 */
export class KeySweep {
  #offset = 0;
  readonly #timer: ReturnType<typeof setInterval>;

  /**
   * @param sweep Forgets up to `atMost` keys expired at `now`; a sweep that throws is
   *   tried again at the next tick.
   */
  constructor(sweep: (now: number, atMost: number) => unknown, options: KeySweepOptions = {}) {
    const { everyMilliseconds, atMost } = { ...DEFAULT_KEY_SWEEP, ...options };
    if (!(everyMilliseconds > 0) || !(atMost >= 1)) {
      throw new TypeError(`A key sweep needs a period above 0 ms and at least 1 key a tick, not ${everyMilliseconds} ms and ${atMost}.`);
    }
    this.#timer = setInterval(() => {
      try {
        const swept = sweep(this.now(), atMost);
        if (swept instanceof Promise) swept.catch(() => {});
      } catch {
        // Nothing is lost: the same keys are expired at the next tick.
      }
    }, everyMilliseconds);
    this.#timer.unref?.();
  }

  /** The service's time now, as the newest key told it. */
  now(): number {
    return Date.now() + this.#offset;
  }

  /** A key arrived at `createdAt` by the service's clock. */
  saw(createdAt: number): void {
    this.#offset = createdAt - Date.now();
  }

  /** Stops the timer. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
