/** @module Values that may arrive at once or later, and the one way the core goes on from them. */

/** A value now, or a promise of it: what a step answers when it can often answer at once. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Goes on with `value`: at once when it is there, once it resolves when it is a promise.
 * An answer made in the same turn as its request lets a server write it before it returns
 * to the event loop: over node:http, getPet costs less CPU per request that way than the
 * same code awaiting each step (test/bench/serviceCost.ts and compareSources.ts measure it).
 */
export const chain = <T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> =>
  value instanceof Promise ? value.then(next) : next(value);
