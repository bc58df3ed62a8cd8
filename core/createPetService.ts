/** @module The service: one function from a Web Request to a Response. */
import { AnimalStoreError, isAnimalStoreError } from './AnimalStoreError.js';
import { type Caller, createBearerCheck } from './auth/bearer.js';
import type { Catalogue } from './catalogue/Catalogue.js';
import { buildCatalogue } from './catalogue/createCatalogue.js';
import { createRequestIds } from './createRequestIds.js';
import { createStorageFailureLog } from './createStorageFailureLog.js';
import { type Sha256, webCryptoSha256 } from './digest.js';
import { type CorsOptions, createCors } from './http/cors.js';
import { createRateLimiter, type RateLimitOptions } from './http/createRateLimiter.js';
import { createResponder } from './http/createResponder.js';
import { deprecationHeaders, SUNSET_TIME } from './http/deprecation.js';
import type { DocsAssets } from './http/docsPage.js';
import { createEntityTagger } from './http/entityTags.js';
import { withHeaders } from './http/withHeaders.js';
import { chain, type MaybePromise } from './MaybePromise.js';
import type { PetStorage } from './PetStorage.js';
import { createDeprecationTracker, type DeprecatedUse } from './routing/createDeprecationTracker.js';
import { createRouter, normaliseBasePath, type Route, type RouteMatch } from './routing/createRouter.js';
import { docsAssetRoute, docsRoute, openApiRoute } from './routing/documentRoutes.js';
import { healthRoute } from './routing/healthRoute.js';
import { createPetRoute, getPetRoute, listPetsRoute } from './routing/petRoutes.js';
import type { RouteContext } from './routing/RouteContext.js';

export type { DeprecatedUse } from './routing/createDeprecationTracker.js';

/** One line of the access log: never a key, never a body. */
export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  /** How long the service took, in milliseconds, with sub-millisecond precision. */
  milliseconds: number;
  /**
   * The interface's name of what was asked (`listPets`, `createPet`, `getPet`,
   * `getOpenApiDocument`, `getReference`, `checkHealth`), or `undefined` for anything else
   * (an unknown path, another method, a preflight).
   */
  operation: string | undefined;
  /** The request's id, when the service gives ids (see `requestIds`). */
  requestId?: string;
}

/** Where the service reports; every member is optional. */
export interface PetServiceLogger {
  /** Called once per request, after the response is made. */
  access?(entry: AccessLogEntry): void;
  /** Notable events, such as the first deprecated call by a key. */
  warn?(message: string): void;
  /** Unexpected failures, with the error; the client only ever sees a bare 500. */
  error?(message: string, error: unknown): void;
}

/** How to build the service. Everything that varies between embeddings is passed in. */
export interface PetServiceOptions {
  /** Where the animals live. */
  storage: PetStorage;
  /** The API keys accepted as `Authorization: Bearer <key>`; several at once for rotation. */
  keys: readonly string[];
  /** The path the operations live under; `/v1` by default. */
  basePath?: string;
  /** Milliseconds from some fixed point, for the access log's timings; `performance.now` by default. */
  clock?: () => number;
  /**
   * Gives every request an id: the caller's `X-Request-Id` when it is a safe token (1 to 128
   * letters, digits and `._:-`), else a new one; the answer carries it in `X-Request-Id` and
   * the access log in `requestId`. Off by default.
   */
  requestIds?: boolean;
  /**
   * The wall clock, in milliseconds since the epoch; `Date.now` by default. It decides when
   * Idempotency-Keys expire, rate-limit windows, and when the deprecated getPet is gone.
   */
  now?: () => number;
  /** The shortest API key accepted; 16 by default. Lower it only in tests. */
  minimumKeyLength?: number;
  /** Idempotency-Keys on POST /pets: optional by default, kept a day. */
  idempotency?: {
    /** Refuse a create without an Idempotency-Key (400). */
    required?: boolean;
    /** How long a key is kept after its first request, in seconds; 86,400 (a day) by default. */
    keyLifetimeSeconds?: number;
  };
  /** A rate limit per API key; none by default. */
  rateLimit?: RateLimitOptions;
  /**
   * The files of the API reference renderer (Swagger UI) for `{base}/docs`; without them the
   * page still documents the deprecation and links the OpenAPI document. The Node adapter
   * passes them when the optional `swagger-ui-dist` package is installed.
   */
  docsAssets?: DocsAssets;
  /** Browser origins allowed to call the API; none by default. */
  cors?: CorsOptions;
  /** Reporting of access, warnings and failures; warnings and failures go to `console` by default. */
  logger?: PetServiceLogger;
  /** The secret that seals page cursors (see `createCatalogue`). */
  cursorSecret?: string;
  /** SHA-256 for key digests and cursor seals; Web Crypto by default. */
  sha256?: Sha256;
  /**
   * The fetch API classes to answer with; the runtime's `Response` by default. A server
   * adapter passes its own when it can send those faster (see adapters/node/serve.ts).
   */
  fetchAPI?: { Response: typeof Response };
}

/** Extra facts an adapter knows about a request. */
export interface RequestContext {
  /** The path the service is mounted at by a framework (Express's `req.baseUrl`), if any. */
  mountPath?: string;
}

/** The service: a fetch-style handler, plus its catalogue for in-process use. */
export interface PetService {
  (request: Request, context?: RequestContext): Promise<Response>;
  /**
   * The same answers, given at once (not as a promise) whenever every step could answer at
   * once, as getPet from memory or the JSON file does. A server that can write a Response
   * in the same turn as its request arrived saves a turn of the event loop: the Node
   * adapter calls this. Like the service, it never throws (unless the access logger does).
   */
  handle(request: Request, context?: RequestContext): MaybePromise<Response>;
  /** The in-process catalogue the handlers are built on. */
  catalogue: Catalogue;
  /** Calls of the deprecated getPet, per key. */
  deprecatedUses(): DeprecatedUse[];
}

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

/**
 * Creates the service. The result answers any Web Request under the base path (`/v1`),
 * plus `/healthz`, and never throws: every failure becomes an Error response.
 */
export const createPetService = (options: PetServiceOptions): PetService => {
  const basePath = normaliseBasePath(options.basePath ?? '/v1');
  const sha256 = options.sha256 ?? webCryptoSha256;
  const clock = options.clock ?? (() => performance.now());
  const requestIds = options.requestIds ? createRequestIds() : undefined;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? {};
  const warn = logger.warn ?? ((message: string) => console.warn(message));
  const reportError = logger.error ?? ((message: string, error: unknown) => console.error(message, error));
  const checkBearer = createBearerCheck(options.keys, sha256, options.minimumKeyLength);
  const cors = createCors(options.cors);
  const rateLimiter = options.rateLimit === undefined ? undefined : createRateLimiter(options.rateLimit);
  const ResponseClass = options.fetchAPI?.Response ?? Response;
  const respondWithBody = createResponder(ResponseClass, reportError);
  const respondWithoutBody = createResponder(ResponseClass, reportError, { bodies: false });
  const deprecation = createDeprecationTracker(warn);
  const storageFailures = createStorageFailureLog(reportError, warn);
  const tagOf = createEntityTagger(sha256);
  const { storage, docsAssets } = options;
  const { catalogue, creation, getPet } = buildCatalogue({
    storage,
    sha256,
    now,
    ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
    ...(options.idempotency?.keyLifetimeSeconds === undefined
      ? {}
      : { idempotencyKeyLifetimeSeconds: options.idempotency.keyLifetimeSeconds }),
  });

  const health: Route = { operations: { GET: 'checkHealth' }, methods: { GET: healthRoute(storage, storageFailures) }, public: true };
  const router = createRouter(basePath, {
    pets: {
      operations: { GET: 'listPets', POST: 'createPet' },
      methods: {
        GET: listPetsRoute(catalogue, tagOf),
        POST: createPetRoute(creation, { idempotencyKeyRequired: options.idempotency?.required ?? false }),
      },
    },
    pet: { operations: { GET: 'getPet' }, methods: { GET: getPetRoute(getPet, tagOf) }, deprecated: true },
    openApi: { operations: { GET: 'getOpenApiDocument' }, methods: { GET: openApiRoute() }, public: true },
    docs: { operations: { GET: 'getReference' }, methods: { GET: docsRoute(docsAssets) }, public: true },
    docsAsset: { methods: { GET: docsAssetRoute(docsAssets) }, public: true },
    health,
  });

  const handle = (request: Request, context?: RequestContext): MaybePromise<Response> => {
    const started = logger.access ? clock() : 0;
    const mountPath = context?.mountPath?.replace(/\/+$/, '') ?? '';
    const base = `${mountPath}${basePath}`;
    // HEAD is GET without the body: the same route and answer, made without one.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const respond = request.method === 'HEAD' ? respondWithoutBody : respondWithBody;
    let path = '';
    // The headers every answer to this request carries, success or error: CORS from the
    // start; rate limits and the route's own (deprecation) once the caller holds a key.
    let headers = cors.headersFor(request) ?? {};
    const requestId = requestIds?.idOf(request.headers.get('x-request-id'));
    if (requestId !== undefined) headers = withHeaders(headers, { 'x-request-id': requestId });
    let match: RouteMatch | undefined;

    /** The route's answer for a caller who passed the bearer check (or needed none). */
    const answerCaller = (caller: Caller | undefined, url: URL): MaybePromise<Response> => {
      if (caller && rateLimiter) {
        const decision = rateLimiter.take(caller.keyIndex, now());
        headers = withHeaders(headers, decision.headers);
        if (decision.refusal) throw decision.refusal;
      }
      if (!match)
        throw new AnimalStoreError('not_found', `There is nothing at ${path.slice(0, 64)}; the operations live under ${base}/pets.`);
      const { route, petId, asset } = match;
      if (route.deprecated) {
        headers = withHeaders(headers, deprecationHeaders(base));
        if (caller) deprecation.record(caller, base);
        if (now() >= SUNSET_TIME) {
          throw new AnimalStoreError(
            'gone',
            `GET ${base}/pets/{petId} was removed on 5 December 2030; use GET ${base}/pets with the status filter.`,
          );
        }
      }
      const handler = method === 'GET' || method === 'POST' ? route.methods[method] : undefined;
      if (!handler) {
        const allow = router.allowOf(route);
        throw new AnimalStoreError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed here; use ${allow}.`, {
          headers: { allow },
        });
      }
      const routeContext: RouteContext = { request, url, base, respond, headers };
      if (caller !== undefined) routeContext.caller = caller;
      if (petId !== undefined) routeContext.petId = petId;
      if (asset !== undefined) routeContext.asset = asset;
      return handler(routeContext);
    };
    /** The Error answer for anything thrown on the way. */
    const failed = (error: unknown): Response => {
      // Requests that needed the storage report its failure; the health probe only answers it.
      if (isAnimalStoreError(error) && error.code === 'storage_unavailable' && match?.route !== health) storageFailures.failed(error);
      return respond.error(error, `${request.method} ${path}`, headers);
    };
    /** Every answer, success or error, passes here once: the storage's health and the access log. */
    const finished = (response: Response): Response => {
      if (response.status === 201) storageFailures.succeeded();
      if (logger.access) {
        const operation = match && (method === 'GET' || method === 'POST') ? match.route.operations?.[method] : undefined;
        const entry: AccessLogEntry = { method: request.method, path, status: response.status, milliseconds: clock() - started, operation };
        if (requestId !== undefined) entry.requestId = requestId;
        logger.access(entry);
      }
      return response;
    };

    let answer: MaybePromise<Response>;
    try {
      const url = parseRequestUrl(request.url);
      path = url.pathname;
      match = router.match(path, mountPath);
      const preflight = request.method === 'OPTIONS' ? cors.preflight(request, match && router.allowOf(match.route)) : undefined;
      if (preflight) answer = preflight;
      else {
        // Authentication comes first, so a caller without a key learns nothing about paths.
        const checked = match?.route.public ? undefined : checkBearer(request.headers.get('authorization'));
        answer = chain(checked, (caller) => answerCaller(caller, url));
      }
    } catch (error) {
      answer = failed(error);
    }
    return answer instanceof Promise ? answer.then(finished, (error: unknown) => finished(failed(error))) : finished(answer);
  };

  const service = ((request: Request, context?: RequestContext) => {
    try {
      return Promise.resolve(handle(request, context));
    } catch (error) {
      // Only a throwing access logger gets here.
      return Promise.reject(error);
    }
  }) as PetService;
  service.handle = handle;
  service.catalogue = catalogue;
  service.deprecatedUses = deprecation.uses;
  return service;
};
