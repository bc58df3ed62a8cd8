/** @module CORS as two steps: the headers every answer carries, and the preflight's own answer. */
import type { Cors } from '../http/createCors.js';
import { withHeaders } from '../http/withHeaders.js';
import type { Route } from '../routing/createRouter.js';
import type { Step } from './composeSteps.js';

/** Creates the step that gives every answer, errors included, the CORS headers of its request. */
export const corsHeadersStep =
  (cors: Cors): Step =>
  (state, next) => {
    const headers = cors.headersFor(state.request);
    if (headers !== undefined) state.headers = withHeaders(state.headers, headers);
    return next();
  };

/**
 * Creates the step that answers a preflight (OPTIONS from an allowed origin to a path that
 * lives) before the bearer check: browsers send preflights without credentials.
 */
export const preflightStep =
  (cors: Cors, allowOf: (route: Route) => string): Step =>
  (state, next) => {
    if (state.request.method !== 'OPTIONS') return next();
    return cors.preflight(state.request, state.match && allowOf(state.match.route)) ?? next();
  };
