/** @module The step that applies what holds for the route: it exists, its deprecation and sunset, its methods. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { createDeprecationHeaders, SUNSET_TIME } from '../http/deprecation.js';
import { withHeaders } from '../http/withHeaders.js';
import type { DeprecationTracker } from '../routing/createDeprecationTracker.js';
import type { Route } from '../routing/createRouter.js';
import type { Step } from './composeSteps.js';

/** What the route rules need beyond the request. */
export interface RouteRulesOptions {
  deprecation: DeprecationTracker;
  /** The methods a route answers, as an `Allow` header lists them. */
  allowOf(route: Route): string;
}

/**
 * Creates the step that refuses a path where nothing lives (404), gives a deprecated
 * route's answers their headers, counts its calls per key and refuses it after its sunset
 * (410), and refuses a method the route does not answer (405, with `Allow`).
 */
export const routeRulesStep = ({ deprecation, allowOf }: RouteRulesOptions): Step => {
  const deprecationHeaders = createDeprecationHeaders();
  return (state, next) => {
    const { match, base, method, request } = state;
    if (!match)
      throw new AnimalStoreError('not_found', `There is nothing at ${state.path.slice(0, 64)}; the operations live under ${base}/pets.`);
    if (match.route.deprecated) {
      state.headers = withHeaders(state.headers, deprecationHeaders(base));
      if (state.caller) deprecation.record(state.caller, base);
      if (state.time >= SUNSET_TIME) {
        throw new AnimalStoreError(
          'gone',
          `GET ${base}/pets/{petId} was removed on 5 December 2030; use GET ${base}/pets with the status filter.`,
        );
      }
    }
    if ((method !== 'GET' && method !== 'POST') || !match.route.methods[method]) {
      const allow = allowOf(match.route);
      throw new AnimalStoreError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed here; use ${allow}.`, {
        headers: { allow },
      });
    }
    return next();
  };
};
