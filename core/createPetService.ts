/** @module The service: one function from a Web Request to a Response. */
import { AnimalStoreError } from './AnimalStoreError.js';
import { createBearerCheck } from './auth/bearer.js';
import type { Catalogue } from './catalogue/Catalogue.js';
import { createCatalogue } from './catalogue/createCatalogue.js';
import { type Sha256, webCryptoSha256 } from './digest.js';
import { type CorsOptions, createCors } from './http/cors.js';
import { createResponder } from './http/createResponder.js';
import { deprecationHeaders } from './http/deprecation.js';
import { createOpenApiDocument } from './http/openApiDocument.js';
import type { PetStorage } from './PetStorage.js';
import { createDeprecationTracker, type DeprecatedUse } from './routing/createDeprecationTracker.js';
import { createRouter, normaliseBasePath, type RouteHandler } from './routing/createRouter.js';
import { createPetRoute, getPetRoute, listPetsRoute } from './routing/petRoutes.js';

export type { DeprecatedUse } from './routing/createDeprecationTracker.js';

/** One line of the access log: never a key, never a body. */
export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  milliseconds: number;
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
  /** Milliseconds from some fixed point, for the access log's timings; `Date.now` by default. */
  clock?: () => number;
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
  /** The in-process catalogue the handlers are built on. */
  catalogue: Catalogue;
  /** Calls of the deprecated getPet, per key. */
  deprecatedUses(): DeprecatedUse[];
}

/**
 * Creates the service. The result answers any Web Request under the base path (`/v1`),
 * plus `/healthz`, and never throws: every failure becomes an Error response.
 */
export const createPetService = (options: PetServiceOptions): PetService => {
  const basePath = normaliseBasePath(options.basePath ?? '/v1');
  const sha256 = options.sha256 ?? webCryptoSha256;
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? {};
  const warn = logger.warn ?? ((message: string) => console.warn(message));
  const reportError = logger.error ?? ((message: string, error: unknown) => console.error(message, error));
  const checkBearer = createBearerCheck(options.keys, sha256);
  const cors = createCors(options.cors);
  const ResponseClass = options.fetchAPI?.Response ?? Response;
  const respondWithBody = createResponder(ResponseClass, reportError);
  const respondWithoutBody = createResponder(ResponseClass, reportError, { bodies: false });
  const deprecation = createDeprecationTracker(warn);
  const catalogue = createCatalogue({
    storage: options.storage,
    sha256,
    ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
  });

  // The document names its server by the base clients see, mount path included: one per base.
  const openApiDocuments = new Map<string, string>();
  const openApiDocument: RouteHandler = async ({ base, respond }) => {
    let document = openApiDocuments.get(base);
    if (document === undefined) {
      document = JSON.stringify(createOpenApiDocument(base));
      openApiDocuments.set(base, document);
    }
    return respond.jsonText(200, document);
  };

  const router = createRouter(basePath, {
    pets: { methods: { GET: listPetsRoute(catalogue), POST: createPetRoute(catalogue) } },
    pet: { methods: { GET: getPetRoute(catalogue) }, deprecated: true },
    openApi: { methods: { GET: openApiDocument }, public: true },
    health: { methods: { GET: async ({ respond }) => respond.json(200, { status: 'ok' }) }, public: true },
  });

  const service = (async (request: Request, context?: RequestContext) => {
    const started = clock();
    const mountPath = context?.mountPath?.replace(/\/+$/, '') ?? '';
    const base = `${mountPath}${basePath}`;
    // HEAD is GET without the body: the same route and answer, made without one.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const respond = request.method === 'HEAD' ? respondWithoutBody : respondWithBody;
    let path = '';
    // The route's own headers (deprecation), set once the caller is known to hold a key.
    let routeHeaders: Record<string, string> | undefined;
    let response: Response;
    try {
      const url = new URL(request.url);
      path = url.pathname;
      const match = router.match(path, mountPath);
      const preflight = request.method === 'OPTIONS' ? cors.preflight(request, match && router.allowOf(match.route)) : undefined;
      if (preflight) response = preflight;
      else {
        // Authentication comes first, so a caller without a key learns nothing about paths.
        const caller = match?.route.public ? undefined : await checkBearer(request.headers.get('authorization'));
        if (!match)
          throw new AnimalStoreError('not_found', `There is nothing at ${path.slice(0, 64)}; the operations live under ${base}/pets.`);
        const { route, petId } = match;
        if (route.deprecated) {
          routeHeaders = deprecationHeaders(base);
          if (caller) deprecation.record(caller, base);
        }
        const handler = method === 'GET' || method === 'POST' ? route.methods[method] : undefined;
        if (!handler) {
          const allow = router.allowOf(route);
          throw new AnimalStoreError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed here; use ${allow}.`, {
            headers: { allow },
          });
        }
        response = await handler({
          request,
          url,
          base,
          respond,
          ...(petId === undefined ? {} : { petId }),
          ...(routeHeaders === undefined ? {} : { headers: routeHeaders }),
        });
      }
    } catch (error) {
      response = respond.error(error, `${request.method} ${path}`, routeHeaders);
    }
    response = cors.decorate(request, response);
    logger.access?.({ method: request.method, path, status: response.status, milliseconds: clock() - started });
    return response;
  }) as PetService;
  service.catalogue = catalogue;
  service.deprecatedUses = deprecation.uses;
  return service;
};
