/** @module The step that reads the request's URL and finds what lives at its path. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import type { Router } from '../routing/createRouter.js';
import type { Step } from './composeSteps.js';

/**
 * The request's URL. An adapter builds it from the Host header and the request target, so
 * a URL that does not parse means a Host that is not a host: the client's mistake.
 */
const parseRequestUrl = (url: string): URL => {
  try {
    return new URL(url);
  } catch (cause) {
    throw new AnimalStoreError(
      'validation_failed',
      'The request names no valid host; send a Host header such as "Host: example.com:8080".',
      {
        details: [{ path: 'Host', message: 'must be a host name or address, with an optional port' }],
        cause,
      },
    );
  }
};

/** Creates the step that parses the URL and matches the route; nothing living at the path is the route rules' 404. */
export const parseStep =
  (router: Router): Step =>
  (state, next) => {
    const url = parseRequestUrl(state.request.url);
    state.url = url;
    state.path = url.pathname;
    state.match = router.match(url.pathname, state.mountPath);
    return next();
  };
