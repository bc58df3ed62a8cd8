/** @module The step that checks the bearer key, before anything else about the request is told. */
import type { BearerCheck } from '../auth/createBearerCheck.js';
import { whenReady } from '../MaybePromise.js';
import type { Step } from './composeSteps.js';

/**
 * Creates the step that lets a request on only with a valid key (`unauthorized` otherwise),
 * except on public routes. It comes before the route rules, so a caller without a key
 * learns nothing about paths; a key digest already known answers at once.
 */
export const authStep =
  (checkBearer: BearerCheck): Step =>
  (state, next) => {
    if (state.match?.route.public) return next();
    return whenReady(checkBearer(state.request.headers.get('authorization')), (caller) => {
      state.caller = caller;
      return next();
    });
  };
