/** @module The step that reads the request's URL and finds what lives at its path. */
import { createTargetReader } from '../http/createTargetReader.js';
import type { Router } from '../routing/createRouter.js';
import type { Step } from './composeSteps.js';

/** Creates the step that reads the URL and matches the route; nothing living at the path is the route rules' 404. */
export const parseStep = (router: Router): Step => {
  const readTarget = createTargetReader();
  return (state, next) => {
    const { path, search } = readTarget(state.request.url);
    state.path = path;
    state.search = search;
    state.match = router.match(path, state.mountPath);
    return next();
  };
};
