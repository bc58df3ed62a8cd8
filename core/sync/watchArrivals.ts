/** @module What a waiting pull waits on: an arrival, its deadline, or an end (the key withdrawn, the server stopping, the client gone). */

/** How a wait ended. */
export type WaitOutcome = 'arrived' | 'timeout' | 'ended';

/** A watch over arrivals, started before the first look at the storage so that no arrival falls between. */
export interface ArrivalWatch {
  /**
   * Resolves once an animal arrived since the last `next` (at once when one did already),
   * after `milliseconds`, or when a signal aborts.
   */
  next(milliseconds: number): Promise<WaitOutcome>;
  /** Stops listening; every pull calls it once it answers. */
  close(): void;
}

/**
 * Starts watching: `subscribe` is the storage's `onArrival`; `signals` end the wait (an
 * aborted one ends it at once). A watch holds one listener, one timer while it waits, and
 * nothing that polls.
 */
export const watchArrivals = (subscribe: (listener: () => void) => () => void, signals: readonly AbortSignal[]): ArrivalWatch => {
  let arrived = false;
  let wake: ((outcome: WaitOutcome) => void) | undefined;
  const unsubscribe = subscribe(() => {
    arrived = true;
    wake?.('arrived');
  });
  const onEnd = () => wake?.('ended');
  for (const signal of signals) signal.addEventListener('abort', onEnd);
  return {
    next(milliseconds) {
      if (signals.some((signal) => signal.aborted)) return Promise.resolve('ended');
      if (arrived) {
        arrived = false;
        return Promise.resolve('arrived');
      }
      return new Promise<WaitOutcome>((resolve) => {
        const timer = setTimeout(() => wake?.('timeout'), Math.max(0, milliseconds));
        wake = (outcome) => {
          wake = undefined;
          arrived = false;
          clearTimeout(timer);
          resolve(outcome);
        };
      });
    },
    close() {
      wake = undefined;
      unsubscribe();
      for (const signal of signals) signal.removeEventListener('abort', onEnd);
    },
  };
};
