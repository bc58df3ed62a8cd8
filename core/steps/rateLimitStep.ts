/** @module The step that counts a caller's key against its rate limit. */
import type { RateLimiter } from '../http/createRateLimiter.js';
import { withHeaders } from '../http/withHeaders.js';
import type { Step } from './composeSteps.js';

/** Creates the step that counts each keyed request, adds the RateLimit headers, and refuses past the limit (429). */
export const rateLimitStep =
  (rateLimiter: RateLimiter): Step =>
  (state, next) => {
    if (state.caller === undefined) return next();
    const decision = rateLimiter.take(state.caller.keyFingerprint, state.time);
    state.headers = withHeaders(state.headers, decision.headers);
    if (decision.refusal) throw decision.refusal;
    return next();
  };
