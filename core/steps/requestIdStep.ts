/** @module The step that gives a request its id: the caller's when safe, else a new one. */
import type { RequestIds } from '../createRequestIds.js';
import { withHeaders } from '../http/withHeaders.js';
import type { Step } from './composeSteps.js';

/** Creates the step that names the request in its `X-Request-Id` answer header and its access-log line. */
export const requestIdStep =
  (requestIds: RequestIds): Step =>
  (state, next) => {
    const requestId = requestIds.idOf(state.request.headers.get('x-request-id'));
    state.requestId = requestId;
    state.headers = withHeaders(state.headers, { 'x-request-id': requestId });
    return next();
  };
