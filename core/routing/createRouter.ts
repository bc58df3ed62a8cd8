/** @module Finds the route of a request path: which handlers, which path parameter, which rules. */
import type { Scope } from '../auth/apiKeys.js';
import type { MaybePromise } from '../MaybePromise.js';
import type { RouteContext } from './RouteContext.js';

/** Answers one method of one route: at once when it can, or with a promise. */
export type RouteHandler = (context: RouteContext) => MaybePromise<Response>;

/** The handlers of one path, by method; HEAD is served by GET. */
export type RouteMethods = Partial<Record<'GET' | 'POST', RouteHandler>>;

/** A path of the service and what holds for it. */
export interface Route {
  methods: RouteMethods;
  /** The interface's name of each method's operation (`listPets`), for logs and metrics. */
  operations?: Partial<Record<'GET' | 'POST', string>>;
  /** Answers without a credential (the OpenAPI document, the liveness probe). */
  public?: boolean;
  /** Answers carry the deprecation headers and calls are counted per key. */
  deprecated?: boolean;
  /** The scope each method needs (`every`: a key with every scope); none for public routes. */
  scopes?: Partial<Record<'GET' | 'POST', Scope | 'every'>>;
}

/** The routes of the service, by where they live. */
export interface RouteTable {
  /** `{base}/pets` */
  pets: Route;
  /** `{base}/pets/{petId}` */
  pet: Route;
  /** `{base}/openapi.json` */
  openApi: Route;
  /** `{base}/docs`: the human-readable reference. */
  docs: Route;
  /** `{base}/docs/{asset}`: the files the reference page loads. */
  docsAsset: Route;
  /** `/healthz`, outside the base path. */
  health: Route;
  /** More routes at fixed paths under the base path, by their path after it (`sync/pull`). */
  more?: Readonly<Record<string, Route>>;
}

/** A route found for a path, with the segment it names when the path has one. */
export interface RouteMatch {
  route: Route;
  /** The segment after `/pets/`. */
  petId?: string;
  /** The segment after `/docs/`. */
  asset?: string;
}

/** Finds routes for paths; `undefined` when nothing lives at a path. */
export interface Router {
  /** The route at `path`, for a service mounted at `mountPath` (`''` at the origin's root). */
  match(path: string, mountPath: string): RouteMatch | undefined;
  /** The methods a route answers, as an `Allow` header lists them. */
  allowOf(route: Route): string;
}

/** Normalises a base path: a leading slash, no trailing one; `''` or `/` means the root. */
export const normaliseBasePath = (basePath: string): string => {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) {
    throw new TypeError(`The base path ${JSON.stringify(basePath)} must start with "/" and hold only URL-safe characters.`);
  }
  return trimmed;
};

/**
 * Creates the router of a service whose operations live under `basePath` (normalised). The
 * paths are few and fixed, so matching is a handful of string comparisons, no patterns.
 */
export const createRouter = (basePath: string, routes: RouteTable): Router => ({
  match(path, mountPath) {
    if (path === `${mountPath}/healthz`) return { route: routes.health };
    const prefix = `${mountPath}${basePath}/`;
    if (!path.startsWith(prefix)) return undefined;
    const rest = path.slice(prefix.length);
    if (rest === 'pets') return { route: routes.pets };
    if (rest === 'openapi.json') return { route: routes.openApi };
    if (rest === 'docs') return { route: routes.docs };
    if (rest.startsWith('docs/') && rest.length > 5 && !rest.includes('/', 5)) return { route: routes.docsAsset, asset: rest.slice(5) };
    if (rest.startsWith('pets/') && rest.length > 5 && !rest.includes('/', 5)) return { route: routes.pet, petId: rest.slice(5) };
    if (routes.more !== undefined && Object.hasOwn(routes.more, rest)) return { route: routes.more[rest]! };
    return undefined;
  },
  allowOf: ({ methods }) => [...(methods.GET ? ['GET', 'HEAD'] : []), ...(methods.POST ? ['POST'] : [])].join(', '),
});
