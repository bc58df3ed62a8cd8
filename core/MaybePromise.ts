/** @module Values that may arrive at once or later. */

/**
 * A value now, or a promise of it: what a step answers when it can often answer at once.
 * The core goes on from one with `handleMaybePromise` (@whatwg-node/promise-helpers), which
 * stays in the same turn when nothing awaits: an answer made in the turn its request arrived
 * lets a server write it before it returns to the event loop, which over node:http costs
 * less CPU per request than awaiting each step (test/bench/serviceCost.ts measures it).
 */
export type MaybePromise<T> = T | Promise<T>;
