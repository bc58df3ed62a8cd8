/** @module What a route handler is given: the request, where the service lives, how to answer. */
import type { Responder } from '../http/createResponder.js';

/** What a route handler is given besides the request. */
export interface RouteContext {
  request: Request;
  url: URL;
  /** Where the operations live, as clients see it: mount path plus base path. */
  base: string;
  /** The path segment after `/pets/`, for getPet. */
  petId?: string;
  /** Headers every answer of this route carries (the deprecation headers of getPet). */
  headers?: Record<string, string>;
  /** Makes the answers: with their bodies, or for HEAD without them. */
  respond: Responder;
}
