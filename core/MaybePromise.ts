/** @module Values that may arrive at once or later, and going on from them in the same turn when they are there. */

/**
 * A value now, or a promise of it: what a step answers when it can often answer at once.
 * An answer made in the turn its request arrived lets a server write it before it returns
 * to the event loop, which over node:http costs less CPU per request than awaiting each
 * step (test/bench/serviceCost.ts measures it).
 */
export type MaybePromise<T> = T | Promise<T>;

/** Whether a value is still to come: a promise, or any thenable. */
const isPending = <T>(value: MaybePromise<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/*
 * Not @whatwg-node/promise-helpers' `handleMaybePromise`, which the core used before: it
 * wraps every value in three objects with closures of their own, even when nothing is
 * pending. The core goes on from a value a dozen times a request, and those objects cost a
 * loaded server more CPU than the steps themselves (test/bench/proposals/README.md).
 */

/**
 * Goes on from a value that may be a promise: `use(value)` at once when the value is there,
 * else once the promise resolves. What `use` throws is thrown, or rejects the promise.
 */
export const whenReady = <T, R>(value: MaybePromise<T>, use: (value: T) => MaybePromise<R>): MaybePromise<R> =>
  isPending(value) ? value.then(use) : use(value);

/**
 * Runs `run`, then goes on as `whenReady` does; a failure of `run`, thrown at once or a
 * rejection later, goes to `recover` instead (a failure of `use` does not).
 */
export const whenSettled = <T, R>(
  run: () => MaybePromise<T>,
  use: (value: T) => MaybePromise<R>,
  recover: (error: unknown) => MaybePromise<R>,
): MaybePromise<R> => {
  let value: MaybePromise<T>;
  try {
    value = run();
  } catch (error) {
    return recover(error);
  }
  return isPending(value) ? value.then(use, recover) : use(value);
};
