/**
 * @module Runs a request through an ordered list of steps, after koa-compose and hono's
 * `compose`: each step answers, or hands on to the next and may look at its answer.
 */
import type { MaybePromise } from '../MaybePromise.js';
import type { RequestState } from './RequestState.js';

/**
 * One step of a request. It reads and fills in the request's state, then answers (a
 * Response, or throws an error the first step turns into one) or calls `next` for the
 * answer of the steps after it, once at most. A step answers at once when it can: a request
 * every step answered at once is answered in the same turn it arrived.
 */
export type Step = (state: RequestState, next: () => MaybePromise<Response>) => MaybePromise<Response>;

/**
 * Joins steps into one function from a request's state to its answer. The last step must
 * answer; one that calls `next` past the end is a bug of the list, not of the request. A step
 * that calls `next` a second time is refused with an Error, as hono's `compose` refuses it:
 * the steps after it would run twice on one request (two creates, two log lines).
 */
export const composeSteps =
  (steps: readonly Step[]) =>
  (state: RequestState): MaybePromise<Response> => {
    // The furthest step this request has reached: a `next` that would go there again is a second call.
    let reached = -1;
    const dispatch = (index: number): MaybePromise<Response> => {
      if (index <= reached) throw new Error(`Step ${index - 1} of the request called next() a second time.`);
      reached = index;
      const step = steps[index];
      if (step === undefined) throw new Error('The last step of the request handed on instead of answering.');
      return step(state, () => dispatch(index + 1));
    };
    return dispatch(0);
  };
