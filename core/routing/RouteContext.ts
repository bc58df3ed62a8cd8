/** @module What a route handler is given: the request, where the service lives, how to answer. */
import type { Caller } from '../auth/createBearerCheck.js';
import type { Responder } from '../http/createResponder.js';

/** What a route handler is given besides the request. */
export interface RouteContext {
  request: Request;
  /** The request's search: `?` and the query, or `''` without one. */
  search: string;
  /** Where the operations live, as clients see it: mount path plus base path. */
  base: string;
  /** The path segment after `/pets/`, for getPet. */
  petId?: string;
  /** The path segment after `/docs/`, for the reference page's files. */
  asset?: string;
  /** Headers every answer to this request carries (CORS, rate limits, getPet's deprecation). */
  headers: Record<string, string>;
  /** Who called, when the route needs a key. */
  caller?: Caller;
  /** Makes the answers: with their bodies, or for HEAD without them. */
  respond: Responder;
  /** The wall clock when the request arrived (the service's `now`), in milliseconds since the epoch. */
  time: number;
}
