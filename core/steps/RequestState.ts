/** @module What one request has learnt on its way through the steps: the one context they share. */
import type { Caller } from '../auth/createBearerCheck.js';
import type { Responder } from '../http/createResponder.js';
import type { RouteMatch } from '../routing/createRouter.js';

/** One request's context, made when it arrives and filled in by the steps, in order. */
export interface RequestState {
  readonly request: Request;
  /** The method the routes see: HEAD is GET answered without a body. */
  readonly method: string;
  /** Makes the answers: with their bodies, or for HEAD without them. */
  readonly respond: Responder;
  /** The path a framework mounted the service at, without a trailing slash; `''` at the root. */
  readonly mountPath: string;
  /** Where the operations live, as clients see it: mount path plus base path. */
  readonly base: string;
  /** The wall clock when the request arrived, in milliseconds since the epoch. */
  readonly time: number;
  /** The request's path, once parsed (`''` before: a request that never parsed logs no path). */
  path: string;
  /** The request's search, once parsed: `?` and the query, or `''` without one. */
  search: string;
  /** What lives at the path, once parsed; `undefined` for nothing. */
  match?: RouteMatch;
  /** Headers every answer to this request carries, success or error; grown by the steps. */
  headers: Record<string, string>;
  /** The request's id, when the service gives ids. */
  requestId?: string;
  /** Who called, once the bearer check passed; `undefined` on public routes. */
  caller?: Caller;
}
